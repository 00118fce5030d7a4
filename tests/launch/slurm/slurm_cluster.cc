#include "tests/launch/slurm/slurm_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "src/launch/capture_output.h"
#include "src/launch/slurm/slurm_commands.h"

namespace hptune::testing_slurm {

std::string ClusterConfig() {
  const char* dir = std::getenv("HPTUNE_SLURM_DIR");
  return std::string(dir != nullptr ? dir : "/tmp/hptune-slurm") +
         "/etc/slurm.conf";
}

bool SlurmCommandsInstalled() {
  return launch::slurm_internal::OnPath("sbatch") &&
         launch::slurm_internal::OnPath("scontrol");
}

bool ClusterUsable(std::string* why_not) {
  if (std::getenv("SLURM_CONF") == nullptr) {
    setenv("SLURM_CONF", ClusterConfig().c_str(), 1);
  }
  if (!SlurmCommandsInstalled()) {
    *why_not = "sbatch or scontrol is not on PATH";
    return false;
  }
  auto ping = launch::RunCapturingOutput({"scontrol", "ping"});
  if (ping.ok() && ping->exit_code == 0 &&
      ping->out.find("UP") != std::string::npos) {
    return true;
  }
  *why_not = "`scontrol ping` with SLURM_CONF=" +
             std::string(std::getenv("SLURM_CONF")) + ": " +
             (ping.ok() ? ping->out + ping->err
                        : std::string(ping.status().message()));
  return false;
}

bool ClusterCannotRunHere(std::string* why) {
  if (geteuid() != 0) {
    *why = "the test cluster needs root (scripts/start-slurm)";
    return true;
  }
  for (const char* daemon : {"slurmctld", "slurmd", "munged"}) {
    if (!launch::slurm_internal::OnPath(daemon) &&
        !std::filesystem::exists(std::string("/usr/sbin/") + daemon)) {
      *why = std::string(daemon) +
             " is not installed (scripts/setup installs slurmctld, slurmd, "
             "slurm-client and munge)";
      return true;
    }
  }
  return false;
}

std::vector<std::string> QueuedJobs(const std::string& name,
                                    const std::string& format) {
  auto out = launch::RunCapturingOutput(
      {"squeue", "-h", "--name=" + name, "-o", format});
  std::vector<std::string> lines;
  if (!out.ok()) return lines;
  std::stringstream in(out->out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace hptune::testing_slurm

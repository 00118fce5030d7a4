#include "tests/launch/slurm/slurm_cluster.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "src/launch/capture_output.h"
#include "src/launch/slurm/slurm_commands.h"
#include "tests/testing/expected.h"
#include "tests/testing/run_process.h"

namespace hptune::testing_slurm {

std::string ClusterConfig() {
  const char* dir = std::getenv("HPTUNE_SLURM_DIR");
  return std::string(dir != nullptr ? dir : HPTUNE_SLURM_TEST_DIR) +
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
  auto ping = launch::RunCapturingOutput(DefaultEnv(), {"scontrol", "ping"});
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

namespace {

std::vector<std::string> SqueueLines(const std::string& name,
                                     const std::string& format,
                                     const std::string& states) {
  std::vector<std::string> argv = {"squeue", "-h", "--name=" + name, "-o",
                                   format};
  if (!states.empty()) argv.push_back("--states=" + states);
  auto out = launch::RunCapturingOutput(DefaultEnv(), argv);
  std::vector<std::string> lines;
  if (!out.ok()) return lines;
  std::stringstream in(out->out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace

std::vector<std::string> QueuedJobs(const std::string& name,
                                    const std::string& format) {
  return SqueueLines(name, format, "");
}

bool StartHeldJobs(const std::string& name, std::string* error) {
  // Pending ones only: scontrol refuses a start time for a job that runs or
  // is completing.
  const std::vector<std::string> jobs = SqueueLines(name, "%A", "PENDING");
  if (jobs.empty()) {
    *error = "no pending job named " + name + " in squeue";
    return false;
  }
  for (const std::string& id : jobs) {
    auto out = launch::RunCapturingOutput(
        DefaultEnv(), {"scontrol", "update", "JobId=" + id, "StartTime=now"});
    if (!out.ok() || out->signal != 0 || out->exit_code != 0) {
      *error = "scontrol update JobId=" + id + " StartTime=now: " +
               (out.ok() ? out->err : std::string(out.status().message()));
      return false;
    }
  }
  return true;
}

void ClusterTest::SetUp() {
  std::string why_not;
  if (ClusterUsable(&why_not)) return;
  if (ClusterCannotRunHere(&why_not)) {
    // Fails instead where HPTUNE_EXPECT names slurm (.ci/run).
    HPTUNE_SKIP_UNLESS_AVAILABLE(false, "slurm",
                                 "no Slurm test cluster: " + why_not);
  }
  FAIL() << "the Slurm test cluster is not up: " << why_not;
}

UnreachableController::UnreachableController(const std::string& dir)
    : config_(dir + "/slurm.conf") {
  std::ofstream(config_) << "ClusterName=nowhere\n"
                            "SlurmctldHost=localhost(127.0.0.1)\n"
                            "SlurmctldPort=9\nAuthType=auth/none\n"
                            "MessageTimeout=1\n";
  if (const char* conf = std::getenv("SLURM_CONF")) saved_ = conf;
  setenv("SLURM_CONF", config_.c_str(), 1);
}

UnreachableController::~UnreachableController() {
  if (saved_.has_value()) {
    setenv("SLURM_CONF", saved_->c_str(), 1);
  } else {
    unsetenv("SLURM_CONF");
  }
}

void ExpectUnreachableControllerExits69(const std::string& dir,
                                        const std::vector<std::string>& argv,
                                        const std::string& command) {
  std::string conf;
  testing::ProcessResult result;
  {
    UnreachableController controller(dir);
    conf = controller.config();
    result = testing::RunProcess(argv);
  }
  EXPECT_EQ(result.exit_code, 69) << result.err;
  EXPECT_THAT(
      result.err,
      ::testing::HasSubstr(command + ": the Slurm controller is unreachable: "
                                     "`scontrol ping` says: "));
  EXPECT_THAT(result.err, ::testing::HasSubstr("SLURM_CONF=" + conf));
}

void WriteReattachJob(const std::string& path, const std::string& trainer) {
  std::ofstream(path) << "backend: slurm\n"
                         "trainingInput:\n"
                         "  command: [python3, "
                      << trainer << "]\n"
                      << "  scaleTier: CUSTOM\n"
                         "  masterType: n1-standard-4\n"
                         "  workerType: n1-standard-4\n"
                         "  workerCount: 1\n"
                         "  hyperparameters:\n"
                         "    goal: MAXIMIZE\n"
                         "    hyperparameterMetricTag: accuracy\n"
                         "    maxTrials: 1\n"
                         "    params:\n"
                         "    - {parameterName: lr, type: DOUBLE, minValue: "
                         "0.01, maxValue: 0.1}\n";
}

DumpTrainerEnvironment::DumpTrainerEnvironment(const std::string& dir,
                                               const std::string& master_sleep,
                                               const std::string& metric) {
  setenv("DUMP_DIR", dir.c_str(), 1);
  setenv("DUMP_SLEEP_MASTER", master_sleep.c_str(), 1);
  setenv("DUMP_METRIC", metric.c_str(), 1);
}

DumpTrainerEnvironment::~DumpTrainerEnvironment() {
  unsetenv("DUMP_DIR");
  unsetenv("DUMP_SLEEP_MASTER");
  unsetenv("DUMP_METRIC");
}

}  // namespace hptune::testing_slurm

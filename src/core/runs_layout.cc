#include "hptune/core/runs_layout.h"

namespace hptune {
namespace {

constexpr std::string_view kLog = ".log";
constexpr size_t kMaxReplicaName = 64;

}  // namespace

std::filesystem::path RunsLayout::JobDir(std::string_view job_id) const {
  return root_ / job_id;
}

std::filesystem::path RunsLayout::TrialDir(std::string_view job_id,
                                           int64_t trial) const {
  return JobDir(job_id) / std::to_string(trial);
}

std::filesystem::path RunsLayout::ReplicaLog(std::string_view job_id,
                                             int64_t trial,
                                             std::string_view replica) const {
  return ReplicaLogIn(TrialDir(job_id, trial), replica);
}

std::filesystem::path ReplicaLogIn(const std::filesystem::path& trial_dir,
                                   std::string_view replica) {
  return trial_dir / (std::string(replica) + std::string(kLog));
}

std::filesystem::path ReplicaMetricsIn(const std::filesystem::path& trial_dir,
                                       std::string_view replica) {
  return trial_dir / (std::string(replica) + ".metrics");
}

std::filesystem::path DrainedAttemptIn(const std::filesystem::path& trial_dir) {
  return trial_dir / "attempt.drained";
}

bool IsReplicaName(std::string_view name) {
  const size_t dash = name.rfind('-');
  if (name.size() > kMaxReplicaName || dash == std::string_view::npos ||
      dash + 1 == name.size()) {
    return false;
  }
  const std::string_view task = name.substr(0, dash);
  if (task != "master" && task != "chief" && task != "worker" && task != "ps" &&
      task != "evaluator") {
    return false;
  }
  for (char c : name.substr(dash + 1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string ReplicaOfLog(std::string_view file_name) {
  if (!file_name.ends_with(kLog)) return "";
  const std::string_view replica =
      file_name.substr(0, file_name.size() - kLog.size());
  return IsReplicaName(replica) ? std::string(replica) : "";
}

}  // namespace hptune

// Where hptune keeps the files of a job's trials under a runs directory
// (`hptune serve --state-dir`, `hptune run --runs-dir`; docs/operations.md,
// "What lives where"). The one place that knows the layout:
//   <runs>/<job>/                   the job's directory
//   <runs>/<job>/<N>/               trial N, its replicas' working directory
//   <runs>/<job>/<N>/<replica>.log      a replica's stdout and stderr
//   <runs>/<job>/<N>/<replica>.metrics  its hypertune metric file
//   <runs>/<job>/<N>/attempt.drained    an attempt a draining server stopped
// where <replica> is "<task>-<index>" ("master-0", "worker-1"; the task as
// TF_CONFIG names it, launch::ReplicaName). Used by the job runner,
// take-over, JobService and the dashboard. Pure; thread-safe.
#ifndef HPTUNE_CORE_RUNS_LAYOUT_H_
#define HPTUNE_CORE_RUNS_LAYOUT_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

namespace hptune {

class RunsLayout {
 public:
  explicit RunsLayout(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path JobDir(std::string_view job_id) const;
  std::filesystem::path TrialDir(std::string_view job_id, int64_t trial) const;
  std::filesystem::path ReplicaLog(std::string_view job_id, int64_t trial,
                                   std::string_view replica) const;

 private:
  std::filesystem::path root_;
};

// The files of replica `replica` in a trial directory.
std::filesystem::path ReplicaLogIn(const std::filesystem::path& trial_dir,
                                   std::string_view replica);
std::filesystem::path ReplicaMetricsIn(const std::filesystem::path& trial_dir,
                                       std::string_view replica);
// Written by a draining server into the trial directory of each attempt it
// stops: the runner that resumes the trial then does not count that attempt
// against the trial's retries, as it counts one its dead runner lost.
std::filesystem::path DrainedAttemptIn(const std::filesystem::path& trial_dir);

// Whether `name` is a replica's name: master-0, chief-0, worker-N, ps-N or
// evaluator-N, at most 64 characters. Only such names reach a path, so no
// request can leave its trial's directory.
bool IsReplicaName(std::string_view name);
// The replica whose log `file_name` is ("master-0.log" -> "master-0"), or
// "" for any other file.
std::string ReplicaOfLog(std::string_view file_name);

}  // namespace hptune

#endif  // HPTUNE_CORE_RUNS_LAYOUT_H_

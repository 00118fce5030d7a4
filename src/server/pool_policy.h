// PoolPolicy: what a job's pools may bring into their replicas on a server
// with --allow-command rules, beyond the trainer that CommandPolicy judges:
// environment variables (PYTHONPATH, LD_PRELOAD, BASH_ENV, NODE_OPTIONS ...
// choose the code an allowed program runs) and OCI images (an image runs
// its own code). A variable passes when it is on a short list of ones that
// choose no code (thread counts, log levels, locale) or named by
// `--allow-env NAME`; an image when named by `--allow-image IMAGE`, and then
// with its own entrypoint: no containerCommand, pythonModule or
// packageUris, which would choose what runs in it.
// Owned by CommandPolicy; created at server start-up, const after Parse,
// thread-safe.
#ifndef HPTUNE_SRC_SERVER_POOL_POLICY_H_
#define HPTUNE_SRC_SERVER_POOL_POLICY_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"

namespace hptune::server {

class PoolPolicy {
 public:
  // InvalidArgument naming an --allow-env value that is not a variable's
  // name, or an --allow-image that is empty.
  static absl::StatusOr<PoolPolicy> Parse(
      const std::vector<std::string>& allowed_env,
      const std::vector<std::string>& allowed_images);

  // The variables allowed without --allow-env.
  static const std::set<std::string_view>& HarmlessEnv();

  // OK when every pool that runs replicas passes; PERMISSION_DENIED naming
  // the field (as the job's dialect spells it) and the value otherwise.
  [[nodiscard]] absl::Status Check(const JobSpec& job) const;

 private:
  absl::Status CheckEnv(const JobSpec& job, TaskType type) const;
  absl::Status CheckImage(const JobSpec& job, TaskType type) const;

  std::set<std::string> extra_env_;
  std::set<std::string> images_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_POOL_POLICY_H_

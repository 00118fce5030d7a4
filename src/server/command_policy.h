// CommandPolicy: which programs the jobs submitted to a shared server may
// run, from `hptune serve --allow-command RULE` (repeatable). Without rules
// every command is allowed: whoever holds the token is trusted (see
// docs/operations.md, "Who may submit jobs"). With rules, SubmitJob refuses
// a job whose trainer matches none with PERMISSION_DENIED naming the field,
// the program, what it resolved to, the rules and why the closest rule did
// not match; the server checks the jobs it resumes at start-up the same way.
// A rule is one of
//   DIR/          any program under DIR;
//   PROGRAM       that program, with any arguments;
//   PROGRAM:DIR/  that program (an interpreter) only when what it runs is
//                 a script under DIR (after harmless Python options such as
//                 -u), or `-m MODULE` / a `pythonModule` job whose package
//                 is under DIR and holds the module.
// Everything else that decides what code runs is inside the rules too:
// each pool's env variables and images (PoolPolicy, --allow-env and
// --allow-image);
// packagePath goes on PYTHONPATH, so it must lie under the matching rule's
// DIR (a PROGRAM rule names none, so it takes no packagePath); sbatch
// options are limited to resource and accounting ones (an --export or
// --chdir would choose the code). A job has no working directory of its
// own: replicas start in their trial's directory, which hptune owns.
// Paths are absolute; programs and scripts are compared after resolving
// PATH (the server's), symbolic links and "..", so a link out of DIR does
// not pass. An interpreter named alone runs whatever it is given
// (`python3 -c ...`): name its scripts' directory instead.
// Created at server start-up; thread-safe (const after Parse).
#ifndef HPTUNE_SRC_SERVER_COMMAND_POLICY_H_
#define HPTUNE_SRC_SERVER_COMMAND_POLICY_H_

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/env/env.h"
#include "src/server/pool_policy.h"

namespace hptune::server {

class CommandPolicy {
 public:
  // InvalidArgument naming a rule that is not absolute or names nothing
  // that exists, a bad --allow-env or --allow-image, or either of those
  // without rules (they widen rules, and there are none to widen).
  // Paths are resolved through `env`, which must outlive the policy.
  static absl::StatusOr<CommandPolicy> Parse(
      Env& env, const std::vector<std::string>& rules,
      const std::vector<std::string>& allowed_env = {},
      const std::vector<std::string>& allowed_images = {});

  bool allows_everything() const { return rules_.empty(); }
  // OK when `job`'s trainer matches a rule (or there are none).
  [[nodiscard]] absl::Status Check(const JobSpec& job) const;

 private:
  struct Trainer;  // What decides the code a job runs, resolved.
  struct Rule {
    std::string text;                              // As given, for messages.
    std::optional<std::filesystem::path> dir;      // DIR/: programs under it.
    std::filesystem::path program;                 // PROGRAM[:DIR/].
    std::optional<std::filesystem::path> scripts;  // PROGRAM:DIR/.
  };

  // "" when `rule` allows `trainer`, else why not.
  std::string Refusal(const Rule& rule, const Trainer& trainer) const;

  // The trainer's program: OK, or PERMISSION_DENIED saying why not.
  absl::Status CheckTrainer(const JobSpec& job) const;

  Env* env_ = nullptr;  // Set by Parse; unused without rules.
  std::vector<Rule> rules_;
  PoolPolicy pools_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_COMMAND_POLICY_H_

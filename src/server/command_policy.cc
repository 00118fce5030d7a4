#include "src/server/command_policy.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"

namespace hptune::server {
namespace {

using Path = std::filesystem::path;

// `path` made absolute with links, "." and ".." resolved; nullopt when it
// does not exist.
std::optional<Path> Resolve(Env& env, const Path& path) {
  absl::StatusOr<Path> resolved = env.RealPath(path);
  if (!resolved.ok()) return std::nullopt;
  return *std::move(resolved);
}

// Whether `path` is `dir` or lies under it (both resolved).
bool Under(const Path& path, const Path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

// What exec would run for `program`, resolved: an absolute path, or a bare
// name on this process's PATH as a replica's launch finds it (not the
// working directory: a policy names no relative place).
std::optional<Path> ResolveProgram(Env& env, const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (!Path(program).is_absolute()) return std::nullopt;
    return Resolve(env, program);
  }
  absl::StatusOr<std::string> found =
      FindOnPath(program, /*search_working_dir=*/false);
  if (!found.ok()) return std::nullopt;
  return Resolve(env, *found);
}

absl::StatusOr<Path> ResolveRuleDir(Env& env, const std::string& rule,
                                    const std::string& dir) {
  std::optional<Path> resolved = Resolve(env, dir);
  if (!resolved || env.TypeOf(*resolved).value_or(FileType::kOther) !=
                       FileType::kDirectory) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--allow-command \"", rule, "\": no directory \"", dir, "\""));
  }
  return *resolved;
}

// Python options that change no code path: not -c or -m (judged apart),
// not -W (a warning category imports its module), not -X or -i.
bool IsHarmlessPythonOption(std::string_view option) {
  static constexpr std::string_view kHarmless[] = {
      "-u", "-B", "-O", "-OO", "-I", "-E", "-s", "-S", "-b", "-bb", "-q"};
  return std::find(std::begin(kHarmless), std::end(kHarmless), option) !=
         std::end(kHarmless);
}

// A Python module name: identifiers joined by dots (no path, no "..").
bool IsDottedName(std::string_view name) {
  bool start = true;
  for (char c : name) {
    const bool letter =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    if (c == '.' && !start) {
      start = true;
    } else if (letter || (!start && c >= '0' && c <= '9')) {
      start = false;
    } else {
      return false;
    }
  }
  return !start;
}

// sbatch options that size, place or account for a job and cannot choose
// its code (unlike --export, --chdir, --wrap, --get-user-env, ...).
bool IsResourceSbatchOption(std::string_view option) {
  static constexpr std::string_view kResource[] = {
      "--qos",           "--mem",        "--mem-per-cpu", "--mem-per-gpu",
      "--cpus-per-task", "--gres",       "--gpus",        "--gpus-per-node",
      "--gpus-per-task", "--constraint", "--nodelist",    "--exclude",
      "--exclusive",     "--nice",       "--comment",     "--reservation",
      "--time-min",      "--licenses",   "--mail-type",   "--mail-user"};
  const std::string_view name = option.substr(0, option.find('='));
  return std::find(std::begin(kResource), std::end(kResource), name) !=
         std::end(kResource);
}

absl::Status CheckSlurmOptions(const SlurmJobOptions& slurm) {
  for (size_t i = 0; i < slurm.options.size(); ++i) {
    if (IsResourceSbatchOption(slurm.options[i])) continue;
    return absl::PermissionDeniedError(absl::StrCat(
        "slurm.options[", i, "]: \"", slurm.options[i],
        "\" is not allowed on a server with --allow-command rules: only "
        "resource and accounting options (--qos, --mem, --gres, ...) are, "
        "since others (--export, --chdir, ...) choose what runs"));
  }
  return absl::OkStatus();
}

}  // namespace

struct CommandPolicy::Trainer {
  std::string field;         // "command" or "pythonModule".
  std::string program_text;  // As given.
  std::optional<Path> program;
  std::vector<std::string> argv;  // After the program: command, then args.
  std::string module;             // A pythonModule job's module.
  std::string package_text;       // packagePath as given; "" when none.
  std::optional<Path> package;

  Trainer(Env& env, const JobSpec& job) {
    const bool module_job = job.command.empty();
    field = module_job ? "pythonModule" : "command";
    program_text = TrainerProgram(job);
    program = ResolveProgram(env, program_text);
    argv.assign(job.command.begin() + (module_job ? 0 : 1), job.command.end());
    argv.insert(argv.end(), job.args.begin(), job.args.end());
    if (module_job) module = job.module_name;
    package_text = job.package_path;
    if (!package_text.empty()) package = Resolve(env, package_text);
  }
  bool python() const {
    return program && program->filename().string().starts_with("python");
  }
  // Where packagePath puts code on PYTHONPATH: its parent.
  bool PackageUnder(const Path& dir) const {
    return package_text.empty() ||
           (package && Under(package->parent_path(), dir));
  }
  // What the interpreter is asked to run: after harmless options, a script
  // or `-m MODULE` (then also in `*module_out`); "" when neither.
  std::string Target(std::string* module_out) const {
    if (!module.empty()) {
      *module_out = module;
      return module;
    }
    if (!python()) return argv.empty() ? "" : argv.front();
    size_t i = 0;
    while (i < argv.size() && IsHarmlessPythonOption(argv[i])) ++i;
    if (i + 1 < argv.size() && argv[i] == "-m") {
      *module_out = argv[i + 1];
      return argv[i + 1];
    }
    return i < argv.size() ? argv[i] : "";
  }
};

std::string CommandPolicy::Refusal(const Rule& rule,
                                   const Trainer& trainer) const {
  const std::string package =
      absl::StrCat("packagePath \"", trainer.package_text, "\" is not under ");
  if (rule.dir) {
    return trainer.PackageUnder(*rule.dir)
               ? ""
               : absl::StrCat(package, rule.dir->string(), "/");
  }
  if (!rule.scripts) {
    return trainer.package_text.empty()
               ? ""
               : absl::StrCat("packagePath \"", trainer.package_text,
                              "\" is set, and a PROGRAM rule names no "
                              "directory for packages (use PROGRAM:DIR/)");
  }
  const std::string dir = rule.scripts->string() + "/";
  if (!trainer.PackageUnder(*rule.scripts)) return package + dir;
  std::string module;
  const std::string target = trainer.Target(&module);
  if (!module.empty()) {
    const std::string top = module.substr(0, module.find('.'));
    if (IsDottedName(module) && trainer.package &&
        trainer.package->filename() == top) {
      return "";
    }
    return absl::StrCat("module \"", module,
                        "\" is not in packagePath's package");
  }
  if (target.empty()) return "no script to run";
  if (target[0] == '-') {
    return absl::StrCat("interpreter option \"", target,
                        "\" instead of a script");
  }
  std::optional<Path> script;
  if (Path(target).is_absolute()) script = Resolve(*env_, target);
  if (script && Under(*script, *rule.scripts)) return "";
  return absl::StrCat("script \"", target, "\" is not under ", dir);
}

absl::Status CommandPolicy::Check(const JobSpec& job) const {
  if (rules_.empty()) return absl::OkStatus();
  HPTUNE_RETURN_IF_ERROR(CheckSlurmOptions(job.slurm));
  HPTUNE_RETURN_IF_ERROR(pools_.Check(job));
  // A job whose pools all run allowed images runs no trainer of its own.
  if (!job.RunsHostTrainer()) return absl::OkStatus();
  return CheckTrainer(job);
}

absl::Status CommandPolicy::CheckTrainer(const JobSpec& job) const {
  const Trainer trainer(*env_, job);
  std::string why = "no rule names this program";
  if (trainer.program) {
    for (const Rule& rule : rules_) {
      const bool matches = rule.dir ? Under(*trainer.program, *rule.dir)
                                    : *trainer.program == rule.program;
      if (!matches) continue;
      std::string refusal = Refusal(rule, trainer);
      if (refusal.empty()) return absl::OkStatus();
      why = absl::StrCat("by \"", rule.text, "\", ", refusal);
    }
  }
  std::vector<std::string> texts;
  for (const Rule& rule : rules_) texts.push_back(rule.text);
  std::string what = absl::StrCat("\"", trainer.program_text, "\"");
  if (trainer.program && trainer.program->string() != trainer.program_text) {
    absl::StrAppend(&what, " (", trainer.program->string(), ")");
  } else if (!trainer.program) {
    absl::StrAppend(&what,
                    " (not an absolute path or a program on the "
                    "server's PATH)");
  }
  if (!trainer.module.empty()) {
    absl::StrAppend(&what, " with module \"", trainer.module,
                    "\" of package \"", job.package_path, "\"");
  } else if (!trainer.argv.empty()) {
    absl::StrAppend(&what, " with \"", trainer.argv.front(), "\" first");
  }
  return absl::PermissionDeniedError(absl::StrCat(
      trainer.field, ": ", what, " is not allowed by this server's ",
      "--allow-command rules (", absl::StrJoin(texts, ", "), "): ", why,
      "; ask its administrator, or run it yourself with `hptune run`"));
}

absl::StatusOr<CommandPolicy> CommandPolicy::Parse(
    Env& env, const std::vector<std::string>& rules,
    const std::vector<std::string>& allowed_env,
    const std::vector<std::string>& allowed_images) {
  if (rules.empty() && !(allowed_env.empty() && allowed_images.empty())) {
    return absl::InvalidArgumentError(
        "--allow-env and --allow-image widen --allow-command rules: without "
        "a rule every command, variable and image is allowed already");
  }
  CommandPolicy policy;
  policy.env_ = &env;
  HPTUNE_ASSIGN_OR_RETURN(policy.pools_,
                          PoolPolicy::Parse(allowed_env, allowed_images));
  for (const std::string& text : rules) {
    if (text.empty() || text[0] != '/') {
      return absl::InvalidArgumentError(absl::StrCat(
          "--allow-command \"", text, "\": expected an absolute path: DIR/, ",
          "PROGRAM or PROGRAM:DIR/"));
    }
    Rule rule{.text = text};
    const size_t colon = text.find(':');
    const std::string program = text.substr(0, colon);
    if (colon == std::string::npos && text.back() == '/') {
      auto dir = ResolveRuleDir(env, text, text);
      if (!dir.ok()) return dir.status();
      rule.dir = *dir;
    } else {
      std::optional<Path> resolved = ResolveProgram(env, program);
      if (!resolved) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--allow-command \"", text, "\": no program \"", program, "\""));
      }
      rule.program = *resolved;
      if (colon != std::string::npos) {
        const std::string scripts = text.substr(colon + 1);
        if (scripts.empty() || scripts[0] != '/' || scripts.back() != '/') {
          return absl::InvalidArgumentError(absl::StrCat(
              "--allow-command \"", text,
              "\": after the program's colon, expected an absolute DIR/"));
        }
        auto dir = ResolveRuleDir(env, text, scripts);
        if (!dir.ok()) return dir.status();
        rule.scripts = *dir;
      }
    }
    policy.rules_.push_back(std::move(rule));
  }
  return policy;
}

}  // namespace hptune::server

#include "src/server/command_policy.h"

#include <algorithm>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/env/env.h"

namespace hptune::server {
namespace {

namespace fs = std::filesystem;

// `path` with links, "." and ".." resolved; nullopt when it does not exist.
std::optional<fs::path> Resolve(const fs::path& path) {
  std::error_code ec;
  fs::path resolved = fs::canonical(path, ec);
  if (ec) return std::nullopt;
  return resolved;
}

// Whether `path` is `dir` or lies under it (both resolved).
bool Under(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

// What exec would run for `program`, resolved: an absolute path, or a bare
// name on this process's PATH as a replica's launch finds it (not the
// working directory: a policy names no relative place).
std::optional<fs::path> ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) {
    if (!fs::path(program).is_absolute()) return std::nullopt;
    return Resolve(program);
  }
  absl::StatusOr<std::string> found =
      FindOnPath(program, /*search_working_dir=*/false);
  if (!found.ok()) return std::nullopt;
  return Resolve(*found);
}

absl::StatusOr<fs::path> ResolveRuleDir(const std::string& rule,
                                        const std::string& dir) {
  std::optional<fs::path> resolved = Resolve(dir);
  if (!resolved || !fs::is_directory(*resolved)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--allow-command \"", rule, "\": no directory \"", dir, "\""));
  }
  return *resolved;
}

}  // namespace

absl::StatusOr<CommandPolicy> CommandPolicy::Parse(
    const std::vector<std::string>& rules) {
  CommandPolicy policy;
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
      auto dir = ResolveRuleDir(text, text);
      if (!dir.ok()) return dir.status();
      rule.dir = *dir;
    } else {
      std::optional<fs::path> resolved = ResolveProgram(program);
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
        auto dir = ResolveRuleDir(text, scripts);
        if (!dir.ok()) return dir.status();
        rule.scripts = *dir;
      }
    }
    policy.rules_.push_back(std::move(rule));
  }
  return policy;
}

absl::Status CommandPolicy::Check(const JobSpec& job) const {
  if (rules_.empty()) return absl::OkStatus();
  const bool module_job = job.command.empty();
  const std::string program = module_job ? "python3" : job.command.front();
  const std::string field = module_job ? "pythonModule" : "command";
  std::optional<fs::path> resolved = ResolveProgram(program);
  // What an interpreter is given: the script (the first argument, unless
  // an option comes first) or the package.
  std::optional<fs::path> script;
  std::vector<std::string> argv(job.command.begin() + (module_job ? 0 : 1),
                                job.command.end());
  argv.insert(argv.end(), job.args.begin(), job.args.end());
  if (module_job) {
    const std::string top =
        job.module_name.substr(0, job.module_name.find('.'));
    std::optional<fs::path> package = Resolve(job.package_path);
    if (package && package->filename() == top) script = package;
  } else if (!argv.empty() && !argv.front().empty() && argv.front()[0] != '-' &&
             fs::path(argv.front()).is_absolute()) {
    script = Resolve(argv.front());
  }
  if (resolved) {
    for (const Rule& rule : rules_) {
      if (rule.dir && Under(*resolved, *rule.dir)) return absl::OkStatus();
      if (rule.dir || *resolved != rule.program) continue;
      if (!rule.scripts || (script && Under(*script, *rule.scripts))) {
        return absl::OkStatus();
      }
    }
  }
  std::vector<std::string> texts;
  for (const Rule& rule : rules_) texts.push_back(rule.text);
  std::string what = absl::StrCat("\"", program, "\"");
  if (resolved && resolved->string() != program) {
    absl::StrAppend(&what, " (", resolved->string(), ")");
  } else if (!resolved) {
    absl::StrAppend(&what,
                    " (not an absolute path or a program on the "
                    "server's PATH)");
  }
  if (module_job) {
    absl::StrAppend(&what, " with module \"", job.module_name,
                    "\" of package \"", job.package_path, "\"");
  } else if (!argv.empty()) {
    absl::StrAppend(&what, " with \"", argv.front(), "\" first");
  }
  return absl::PermissionDeniedError(absl::StrCat(
      field, ": ", what, " is not allowed by this server's --allow-command ",
      "rules (", absl::StrJoin(texts, ", "),
      "); ask its administrator, or run it yourself with `hptune run`"));
}

}  // namespace hptune::server

#include "src/runner/failure_cause.h"

#include <memory>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hptune::runner::internal {
namespace {

constexpr uint64_t kTailBytes = 16 * 1024;
constexpr size_t kLineChars = 300;

// "ModuleNotFoundError: ...", also qualified ("foo.bar.ImportError: ...").
bool IsPythonStartupError(std::string_view line) {
  static constexpr std::string_view kErrors[] = {
      "SyntaxError", "IndentationError", "TabError", "ImportError",
      "ModuleNotFoundError"};
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view name = line.substr(0, colon);
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos) {
    name = name.substr(dot + 1);
  }
  for (std::string_view error : kErrors) {
    if (name == error) return true;
  }
  return false;
}

// What the interpreter itself says before running anything:
// "/usr/bin/python3: No module named trainer", "...: Error while finding
// module specification for 'trainer.task' (...)", "python3: can't open file
// '/x/task.py': [Errno 2] No such file or directory".
bool IsNothingToRun(std::string_view line) {
  return line.find(": No module named ") != std::string_view::npos ||
         line.find(": Error while finding module specification") !=
             std::string_view::npos ||
         line.find(": can't open file ") != std::string_view::npos;
}

}  // namespace

std::vector<std::string> LogTail(Env& env, const std::filesystem::path& log,
                                 int max_lines) {
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
      env.OpenForReading(log, "log");
  if (!file.ok()) return {};
  const uint64_t size = (*file)->size();
  const uint64_t start = size > kTailBytes ? size - kTailBytes : 0;
  std::string text(static_cast<size_t>(size - start), '\0');
  absl::StatusOr<size_t> read =
      (*file)->ReadAt(start, text.data(), text.size());
  if (!read.ok()) return {};
  text.resize(*read);
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  // A read from the middle of the file starts inside a line.
  if (start > 0 && !lines.empty()) lines.erase(lines.begin());
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() > static_cast<size_t>(max_lines)) {
    lines.erase(lines.begin(), lines.end() - max_lines);
  }
  for (std::string& line : lines) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() > kLineChars) line = line.substr(0, kLineChars) + "...";
  }
  return lines;
}

std::string LastLogLine(const std::vector<std::string>& tail) {
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
    absl::string_view line = absl::StripAsciiWhitespace(*it);
    if (!line.empty()) return std::string(line);
  }
  return "";
}

std::optional<std::string> PermanentCause(const launch::ReplicaExit& exit,
                                          const std::vector<std::string>& tail,
                                          bool reported) {
  if (exit.signal != 0 || exit.exit_code == 0) return std::nullopt;
  if (exit.exit_code == 126) {
    return "exit code 126: the command was found but could not be executed";
  }
  if (exit.exit_code == 127) return "exit code 127: the command was not found";
  // A trainer that has reported was running: what ends it may pass.
  if (reported) return std::nullopt;
  const std::string last = LastLogLine(tail);
  if (IsPythonStartupError(last) || IsNothingToRun(last)) return last;
  if (exit.exit_code == 2) {
    // argparse: "usage: task.py [-h] ..." then "task.py: error: ...".
    bool usage = false;
    for (const std::string& line : tail) {
      if (absl::StartsWith(line, "usage: ")) usage = true;
      if (usage && absl::StrContains(line, ": error: ")) return line;
    }
  }
  return std::nullopt;
}

}  // namespace hptune::runner::internal

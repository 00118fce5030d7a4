#include "src/launch/process_table.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

namespace hptune::launch {
namespace {

// More than any stat line holds (a COMM is at most 64 bytes, the numbers
// after it a few hundred).
constexpr int64_t kStatBytes = 4096;

// Fields after the command name: the state is field 3 of stat(5), so the
// start time (field 22) is the 20th after the ')'.
constexpr size_t kStartTimeField = 19;

// The fields of `text` that spaces or newlines separate.
std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  while (!text.empty()) {
    const size_t begin = text.find_first_not_of(" \n");
    if (begin == std::string_view::npos) break;
    text.remove_prefix(begin);
    const size_t end = std::min(text.find_first_of(" \n"), text.size());
    fields.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return fields;
}

// The whole of `text` as a number.
template <typename Number>
bool ParseNumber(std::string_view text, Number* number) {
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, *number);
  return error == std::errc() && stop == end;
}

}  // namespace

std::optional<ProcessStat> ParseProcessStat(std::string_view text) {
  const size_t close_paren = text.rfind(')');
  if (close_paren == std::string_view::npos) return std::nullopt;
  const std::vector<std::string_view> fields =
      Fields(text.substr(close_paren + 1));
  ProcessStat stat;
  if (fields.size() < 3 || fields[0].size() != 1 ||
      !ParseNumber(fields[1], &stat.parent) ||
      !ParseNumber(fields[2], &stat.group)) {
    return std::nullopt;
  }
  stat.state = fields[0][0];
  if (fields.size() > kStartTimeField &&
      !ParseNumber(fields[kStartTimeField], &stat.start_time)) {
    stat.start_time = 0;
  }
  return stat;
}

bool EnvironmentHolds(std::string_view environ_text, std::string_view entry,
                      EntryMatch match) {
  while (!environ_text.empty()) {
    const size_t end = std::min(environ_text.find('\0'), environ_text.size());
    const std::string_view held = environ_text.substr(0, end);
    if (match == EntryMatch::kWhole ? held == entry : held.starts_with(entry)) {
      return true;
    }
    environ_text.remove_prefix(std::min(end + 1, environ_text.size()));
  }
  return false;
}

ProcessTable::ProcessTable(Env& env, std::filesystem::path root)
    : env_(env), root_(std::move(root)) {}

std::filesystem::path ProcessTable::FileOf(pid_t pid, const char* name) const {
  return root_ / std::to_string(pid) / name;
}

absl::StatusOr<std::vector<pid_t>> ProcessTable::Pids() const {
  absl::StatusOr<std::vector<DirectoryEntry>> entries =
      env_.ListDirectory(root_);
  if (!entries.ok()) return entries.status();
  std::vector<pid_t> pids;
  for (const DirectoryEntry& entry : *entries) {
    pid_t pid = 0;
    // The rest of /proc: self, sys, meminfo, ...
    if (entry.name[0] < '1' || entry.name[0] > '9') continue;
    if (ParseNumber(entry.name, &pid)) pids.push_back(pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::optional<ProcessStat> ProcessTable::StatOf(pid_t pid) const {
  absl::StatusOr<std::string> text =
      env_.ReadFileHead(FileOf(pid, "stat"), kStatBytes);
  if (!text.ok()) return std::nullopt;
  return ParseProcessStat(*text);
}

bool ProcessTable::EnvironmentHas(pid_t pid, std::string_view entry,
                                  EntryMatch match) const {
  // A process that ends while it is read fails the read (ESRCH).
  absl::StatusOr<std::string> text = env_.ReadFile(FileOf(pid, "environ"));
  return text.ok() && EnvironmentHolds(*text, entry, match);
}

bool ProcessTable::GroupHasLiveProcess(pid_t group) const {
  absl::StatusOr<std::vector<pid_t>> pids = Pids();
  if (!pids.ok()) return true;
  return std::any_of(pids->begin(), pids->end(), [&](pid_t pid) {
    const std::optional<ProcessStat> stat = StatOf(pid);
    return stat && stat->group == group && !stat->Ended();
  });
}

std::vector<pid_t> ProcessTable::LiveProcessesWith(std::string_view entry,
                                                   EntryMatch match,
                                                   pid_t except) const {
  std::vector<pid_t> found;
  for (pid_t pid : Pids().value_or(std::vector<pid_t>())) {
    if (pid == except) continue;
    const std::optional<ProcessStat> stat = StatOf(pid);
    if (!stat || stat->Ended()) continue;
    if (EnvironmentHas(pid, entry, match)) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> ProcessTable::ZombieChildrenOf(pid_t parent) const {
  std::vector<pid_t> zombies;
  for (pid_t pid : Pids().value_or(std::vector<pid_t>())) {
    const std::optional<ProcessStat> stat = StatOf(pid);
    if (stat && stat->state == 'Z' && stat->parent == parent) {
      zombies.push_back(pid);
    }
  }
  return zombies;
}

}  // namespace hptune::launch

#include "src/launch/local/trial_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/spawn_in_cgroup.h"

namespace hptune::launch {
namespace {

namespace fs = std::filesystem;

// Writes the record whole (a temporary file renamed over it) but without
// fsync: it names a cgroup, which no reboot outlives, so only a killed
// hptune must find it complete, and the page cache survives that. An fsync
// here cost a millisecond or more per trial start.
absl::Status WriteRecord(const fs::path& record, const std::string& cgroup) {
  fs::path temporary = record;
  temporary += absl::StrCat(".tmp.", getpid());
  // Made afresh (O_EXCL): the trial directory may be its job owner's, who
  // could have planted a link or a hard link under that name.
  unlink(temporary.c_str());
  const int fd =
      open(temporary.c_str(),
           O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create ", temporary.string(), ": ", strerror(errno)));
  }
  const bool written = write(fd, cgroup.data(), cgroup.size()) ==
                       static_cast<ssize_t>(cgroup.size());
  const int write_errno = errno;
  close(fd);
  if (!written || rename(temporary.c_str(), record.c_str()) != 0) {
    const int error = written ? errno : write_errno;
    unlink(temporary.c_str());
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", record.string(), ": ", strerror(error)));
  }
  return absl::OkStatus();
}
using Clock = std::chrono::steady_clock;

// A cgroup file's text; empty when it cannot be read (a cgroup being
// removed fails reads with ENODEV).
std::string ReadSmallFile(const fs::path& path) {
  return DefaultEnv().ReadFile(path).value_or("");
}

// The record's text when this process's user wrote it; empty otherwise.
// The trial directory may be its job owner's (a root server's job of
// another user), who must not name a cgroup for this process to kill.
// A FIFO or a link planted in its place is refused without blocking.
std::string ReadOwnRecord(const fs::path& record) {
  const absl::StatusOr<int> fd =
      OpenRegularFile(record, O_RDONLY, "cgroup record");
  if (!fd.ok()) return "";
  struct stat info;
  char text[4096];
  ssize_t n = -1;
  if (fstat(*fd, &info) == 0 && info.st_uid == geteuid()) {
    n = read(*fd, text, sizeof(text));
  }
  close(*fd);
  return n > 0 ? std::string(text, static_cast<size_t>(n)) : "";
}

bool WriteControl(const fs::path& file, const char* value) {
  int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const ssize_t n = write(fd, value, strlen(value));
  close(fd);
  return n == static_cast<ssize_t>(strlen(value));
}

bool Populated(const fs::path& dir) {
  // cgroup.events: "populated 1\nfrozen 0\n". Unreadable: the cgroup is gone.
  const std::string events = ReadSmallFile(dir / "cgroup.events");
  return events.find("populated 1") != std::string::npos;
}

// The processes in `dir` and its descendants.
int CountProcesses(const fs::path& dir) {
  int count = 0;
  auto count_in = [&count](const fs::path& cgroup) {
    for (absl::string_view line :
         absl::StrSplit(ReadSmallFile(cgroup / "cgroup.procs"), '\n')) {
      if (!line.empty()) ++count;
    }
  };
  count_in(dir);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_directory(ec)) count_in(it->path());
  }
  return count;
}

// cgroup.kill reaches the cgroup and every descendant. Then waits, with a
// short back-off, for the kernel to empty it.
bool KillAndWait(const fs::path& dir, Clock::time_point deadline) {
  WriteControl(dir / "cgroup.kill", "1");
  auto pause = std::chrono::milliseconds(1);
  while (Populated(dir)) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return true;
}

// Removes `dir` and its child cgroups (cgroups are removed with rmdir, leaves
// first; the interface files go with them).
void RemoveCgroupTree(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> children;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) children.push_back(entry.path());
  }
  for (const fs::path& child : children) RemoveCgroupTree(child);
  rmdir(dir.c_str());
}

// The cgroup v2 directory of this process: the "0::<path>" line of
// /proc/self/cgroup under the cgroup2 mount of /proc/self/mountinfo.
absl::StatusOr<fs::path> OwnCgroupDir() {
  std::string relative;
  bool found = false;
  for (absl::string_view line :
       absl::StrSplit(ReadSmallFile("/proc/self/cgroup"), '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) {
      relative = std::string(line);
      found = true;
    }
  }
  if (!found) return absl::NotFoundError("this process is in no cgroup v2");
  // mountinfo: "36 25 0:31 <root> <mount point> <options> ... - cgroup2 ...".
  for (absl::string_view line :
       absl::StrSplit(ReadSmallFile("/proc/self/mountinfo"), '\n')) {
    const size_t dash = line.find(" - cgroup2 ");
    if (dash == absl::string_view::npos) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line.substr(0, dash), ' ');
    if (fields.size() < 5) continue;
    absl::string_view root = fields[3];
    absl::string_view path = relative;
    if (root != "/" && !absl::ConsumePrefix(&path, root)) continue;
    return fs::path(std::string(fields[4])) /
           fs::path(std::string(path)).relative_path();
  }
  return absl::NotFoundError("no cgroup2 file system is mounted");
}

// Creates a probe cgroup under `parent` and starts a process in it.
absl::Status Probe(const fs::path& parent) {
  const fs::path probe = parent / absl::StrCat("hptune-probe-", getpid());
  if (mkdir(probe.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create a cgroup under ", parent.string(), ": ",
                     strerror(errno)));
  }
  absl::Status status;
  if (!fs::exists(probe / "cgroup.kill")) {
    status = absl::FailedPreconditionError(
        "the kernel has no cgroup.kill (Linux 5.14 or later has)");
  } else {
    int fd = open(probe.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    pid_t pid = -1;
    {
      ChildStart start;
      pid = fd < 0 ? -1 : CloneIntoCgroup(fd);
      if (pid == 0) _exit(0);
      start.Own(pid);
    }
    if (pid < 0) {
      status = absl::PermissionDeniedError(
          absl::StrCat("cannot start a process in a cgroup under ",
                       parent.string(), ": ", strerror(errno)));
    } else {
      while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      Disown(pid);
    }
    if (fd >= 0) close(fd);
  }
  // The reaped child leaves the cgroup a moment later (EBUSY until then).
  const auto deadline = Clock::now() + std::chrono::seconds(1);
  while (rmdir(probe.c_str()) != 0 && errno == EBUSY &&
         Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return status;
}

// Removes the empty trial cgroups under `parent` whose hptune process
// ("hptune-<pid>-<n>", or its probe "hptune-probe-<pid>") has ended: a killed
// runner leaves its cgroups behind, and the one that takes its jobs over
// removes only those of those jobs. Populated ones stay for that take-over
// (KillRecordedCgroup).
void RemoveAbandonedCgroups(const fs::path& parent) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(parent, ec)) {
    const std::string filename = entry.path().filename().string();
    absl::string_view name = filename;
    if (!absl::ConsumePrefix(&name, "hptune-")) continue;
    absl::ConsumePrefix(&name, "probe-");  // A probe a killed hptune left.
    int pid = 0;
    if (!absl::SimpleAtoi(name.substr(0, name.find('-')), &pid) || pid <= 0 ||
        kill(pid, 0) == 0 || errno != ESRCH || Populated(entry.path())) {
      continue;
    }
    RemoveCgroupTree(entry.path());
  }
}

CgroupSupport Detect() {
  absl::StatusOr<fs::path> parent = OwnCgroupDir();
  absl::Status usable = parent.status();
  if (usable.ok()) usable = Probe(*parent);
  if (!usable.ok()) {
    return {
        .usable = false,
        .description = absl::StrCat("process groups (", usable.message(), ")")};
  }
  RemoveAbandonedCgroups(*parent);
  return {.usable = true,
          .parent = *parent,
          .description = absl::StrCat("cgroup v2 (", parent->string(), ")")};
}

}  // namespace

const CgroupSupport& DetectCgroupSupport() {
  static const CgroupSupport* support = new CgroupSupport(Detect());
  return *support;
}

absl::StatusOr<std::unique_ptr<TrialCgroup>> TrialCgroup::Create(
    const fs::path& trial_dir, const std::vector<std::string>& replicas) {
  const CgroupSupport& support = DetectCgroupSupport();
  if (!support.usable) return std::unique_ptr<TrialCgroup>();
  // What an earlier, killed hptune left for this trial goes first.
  KillRecordedCgroup(trial_dir, std::chrono::seconds(30));
  // A killed hptune whose pid this process has now may have left its
  // cgroups behind: a name in use is skipped, not an error.
  static std::atomic<int> next{0};
  fs::path dir;
  int made;
  do {
    dir = support.parent / absl::StrCat("hptune-", getpid(), "-", next++);
    made = mkdir(dir.c_str(), 0700);
  } while (made != 0 && errno == EEXIST);
  if (made != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create cgroup ", dir.string(), ": ", strerror(errno)));
  }
  std::unique_ptr<TrialCgroup> cgroup(
      new TrialCgroup(dir, trial_dir / kCgroupRecordFile));
  HPTUNE_RETURN_IF_ERROR(CreatePrivateDirectories(trial_dir));
  HPTUNE_RETURN_IF_ERROR(WriteRecord(cgroup->record_, dir.string()));
  for (const std::string& name : replicas) {
    cgroup->replicas_.push_back({.name = name});
  }
  return cgroup;
}

absl::StatusOr<int> TrialCgroup::NextReplicaCgroup(int replica) {
  Replica& r = replicas_[replica];
  // A replica run by podman leaves sub-cgroups (conmon's, the
  // container's): removed with it.
  std::erase_if(r.dirs, [](const fs::path& dir) {
    RemoveCgroupTree(dir);
    std::error_code ec;
    return !fs::exists(dir, ec);  // Busy: kept.
  });
  if (r.fd >= 0) close(r.fd);
  r.fd = -1;
  const fs::path dir = dir_ / absl::StrCat(r.name, ".", next_start_++);
  if (mkdir(dir.c_str(), 0700) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot create cgroup ", dir.string(), ": ", strerror(errno)));
  }
  r.dirs.push_back(dir);
  r.fd = open(dir.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
  if (r.fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open cgroup ", dir.string(), ": ", strerror(errno)));
  }
  return r.fd;
}

TrialCgroup::~TrialCgroup() {
  for (const Replica& replica : replicas_) {
    if (replica.fd >= 0) close(replica.fd);
  }
  KillAndWait(dir_, Clock::now() + std::chrono::seconds(30));
  RemoveCgroupTree(dir_);
  std::error_code ec;
  fs::remove(record_, ec);
}

void TrialCgroup::KillReplica(int replica) const {
  for (const fs::path& dir : replicas_[replica].dirs) {
    WriteControl(dir / "cgroup.kill", "1");
  }
}

void TrialCgroup::KillAll() const { WriteControl(dir_ / "cgroup.kill", "1"); }

bool TrialCgroup::ReplicaPopulated(int replica) const {
  for (const fs::path& dir : replicas_[replica].dirs) {
    if (Populated(dir)) return true;
  }
  return false;
}

int KillRecordedCgroup(const fs::path& trial_dir,
                       std::chrono::milliseconds wait) {
  const fs::path record = trial_dir / kCgroupRecordFile;
  std::string recorded = ReadOwnRecord(record);
  if (recorded.empty()) return 0;
  const fs::path dir(recorded);
  // Only a trial cgroup is ever killed: a record that names anything else
  // was not written by hptune.
  const std::string name = dir.filename().string();
  int killed = 0;
  if (dir.is_absolute() && name.rfind("hptune-", 0) == 0 &&
      fs::exists(dir / "cgroup.kill")) {
    killed = CountProcesses(dir);
    KillAndWait(dir, Clock::now() + wait);
    RemoveCgroupTree(dir);
  }
  std::error_code ec;
  fs::remove(record, ec);
  return killed;
}

}  // namespace hptune::launch

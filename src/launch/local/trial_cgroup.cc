#include "src/launch/local/trial_cgroup.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/core/status.h"
#include "src/launch/child_processes.h"
#include "src/launch/local/spawn_in_cgroup.h"
#include "src/launch/local/v1_replica_cgroups.h"

namespace hptune::launch {
namespace {

using Path = std::filesystem::path;

// Enough for any cgroup file hptune reads (cgroup.procs of a trial).
constexpr int64_t kMaxControlBytes = 1 << 20;

// The system's reason that ends an Env error ("cannot create directory
// /x: Permission denied"), for a message that names the cgroup itself.
absl::string_view Reason(const absl::Status& status) {
  absl::string_view message = status.message();
  const size_t colon = message.rfind(": ");
  return colon == absl::string_view::npos ? message : message.substr(colon + 2);
}

// A cgroup file's text; empty when it cannot be read (a cgroup being
// removed fails reads with ENODEV).
std::string ReadControl(DirectoryHandle& cgroup, std::string_view name) {
  absl::StatusOr<FileContents> read = cgroup.ReadAt(name, kMaxControlBytes);
  return read.ok() ? std::move(read->text) : "";
}

bool Populated(DirectoryHandle& cgroup) {
  // cgroup.events: "populated 1\nfrozen 0\n". Unreadable: the cgroup is gone.
  return ReadControl(cgroup, "cgroup.events").find("populated 1") !=
         std::string::npos;
}

// Whether `dir` has cgroup.kill (Linux 5.14 or later): a cgroup v2 that
// hptune can empty. cgroup.kill is write-only, so it is looked for.
bool HasKill(DirectoryHandle& dir) {
  absl::StatusOr<std::vector<DirectoryEntry>> entries = dir.List();
  if (!entries.ok()) return false;
  for (const DirectoryEntry& entry : *entries) {
    if (entry.name == "cgroup.kill") return true;
  }
  return false;
}

// The processes in `cgroup` and its descendants.
int CountProcesses(DirectoryHandle& cgroup) {
  int count = 0;
  for (absl::string_view line :
       absl::StrSplit(ReadControl(cgroup, "cgroup.procs"), '\n')) {
    if (!line.empty()) ++count;
  }
  for (const DirectoryEntry& entry :
       cgroup.List().value_or(std::vector<DirectoryEntry>())) {
    if (entry.type != FileType::kDirectory) continue;
    absl::StatusOr<std::unique_ptr<DirectoryHandle>> child =
        cgroup.OpenSubdirectory(entry.name);
    if (child.ok()) count += CountProcesses(**child);
  }
  return count;
}

// cgroup.kill reaches the cgroup and every descendant. Then waits, with a
// short back-off, for the kernel to empty it.
bool KillAndWait(Env& env, DirectoryHandle& cgroup, MonotonicTime deadline) {
  cgroup.WriteAt("cgroup.kill", "1").IgnoreError();  // Gone: nothing to kill.
  auto pause = std::chrono::milliseconds(1);
  while (Populated(cgroup)) {
    if (env.MonotonicNow() >= deadline) return false;
    env.SleepFor(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
  return true;
}

// Removes the cgroup `name` in `parent` and its child cgroups (cgroups are
// removed with rmdir, leaves first; the interface files go with them).
// Whether it is gone: a busy one stays.
bool RemoveCgroupTree(DirectoryHandle& parent, const std::string& name) {
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> dir =
      parent.OpenSubdirectory(name);
  if (!dir.ok()) return absl::IsNotFound(dir.status());
  for (const DirectoryEntry& entry :
       (*dir)->List().value_or(std::vector<DirectoryEntry>())) {
    if (entry.type == FileType::kDirectory) {
      RemoveCgroupTree(**dir, entry.name);
    }
  }
  const absl::Status removed = parent.RemoveSubdirectory(name);
  return removed.ok() || absl::IsNotFound(removed);
}

// The cgroup v2 directory of this process: the "0::<path>" line of
// /proc/self/cgroup under the cgroup2 mount of /proc/self/mountinfo.
absl::StatusOr<Path> OwnCgroupDir(Env& env) {
  std::string relative;
  bool found = false;
  for (absl::string_view line :
       absl::StrSplit(env.ReadFile("/proc/self/cgroup").value_or(""), '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) {
      relative = std::string(line);
      found = true;
    }
  }
  if (!found) return absl::NotFoundError("this process is in no cgroup v2");
  // mountinfo: "36 25 0:31 <root> <mount point> <options> ... - cgroup2 ...".
  for (absl::string_view line : absl::StrSplit(
           env.ReadFile("/proc/self/mountinfo").value_or(""), '\n')) {
    const size_t dash = line.find(" - cgroup2 ");
    if (dash == absl::string_view::npos) continue;
    std::vector<absl::string_view> fields =
        absl::StrSplit(line.substr(0, dash), ' ');
    if (fields.size() < 5) continue;
    absl::string_view root = fields[3];
    absl::string_view path = relative;
    if (root != "/" && !absl::ConsumePrefix(&path, root)) continue;
    return Path(std::string(fields[4])) /
           Path(std::string(path)).relative_path();
  }
  return absl::NotFoundError("no cgroup2 file system is mounted");
}

// Starts a process in `probe` and reaps it.
absl::Status StartProbeProcess(DirectoryHandle& probe, const Path& parent) {
  pid_t pid = -1;
  {
    ChildStart start;
    pid = CloneIntoCgroup(probe.descriptor());
    if (pid == 0) _exit(0);
    start.Own(pid);
  }
  if (pid < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot start a process in a cgroup under ",
                     parent.string(), ": ", strerror(errno)));
  }
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  Disown(pid);
  return absl::OkStatus();
}

// Creates a probe cgroup in `parent` and starts a process in it.
absl::Status Probe(Env& env, DirectoryHandle& parent) {
  const std::string name = absl::StrCat("hptune-probe-", env.ProcessId());
  const absl::Status made = parent.CreateSubdirectory(name);
  if (!made.ok() && !absl::IsAlreadyExists(made)) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create a cgroup under ", parent.path().string(),
                     ": ", Reason(made)));
  }
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> probe =
      parent.OpenSubdirectory(name);
  absl::Status status = probe.status();
  if (status.ok() && !HasKill(**probe)) {
    status = absl::FailedPreconditionError(
        "the kernel has no cgroup.kill (Linux 5.14 or later has)");
  } else if (status.ok()) {
    status = StartProbeProcess(**probe, parent.path());
  }
  probe = nullptr;
  // The reaped child leaves the cgroup a moment later (EBUSY until then).
  const MonotonicTime deadline = env.MonotonicNow() + std::chrono::seconds(1);
  while (absl::IsUnavailable(parent.RemoveSubdirectory(name)) &&
         env.MonotonicNow() < deadline) {
    env.SleepFor(std::chrono::milliseconds(1));
  }
  return status;
}

// Removes the empty trial cgroups in `parent` whose hptune process
// ("hptune-<pid>-<n>", or its probe "hptune-probe-<pid>") has ended: a killed
// runner leaves its cgroups behind, and the one that takes its jobs over
// removes only those of those jobs. Populated ones stay for that take-over
// (KillRecordedCgroup).
void RemoveAbandonedCgroups(DirectoryHandle& parent) {
  for (const DirectoryEntry& entry :
       parent.List().value_or(std::vector<DirectoryEntry>())) {
    absl::string_view name = entry.name;
    if (entry.type != FileType::kDirectory ||
        !absl::ConsumePrefix(&name, "hptune-")) {
      continue;
    }
    absl::ConsumePrefix(&name, "probe-");  // A probe a killed hptune left.
    int pid = 0;
    if (!absl::SimpleAtoi(name.substr(0, name.find('-')), &pid) || pid <= 0 ||
        kill(pid, 0) == 0 || errno != ESRCH) {
      continue;
    }
    absl::StatusOr<std::unique_ptr<DirectoryHandle>> cgroup =
        parent.OpenSubdirectory(entry.name);
    if (cgroup.ok() && !Populated(**cgroup)) {
      RemoveCgroupTree(parent, entry.name);
    }
  }
}

CgroupSupport Detect(Env& env) {
  absl::StatusOr<Path> parent = OwnCgroupDir(env);
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> opened =
      parent.ok() ? env.OpenDirectory(*parent) : parent.status();
  absl::Status usable = opened.status();
  if (usable.ok()) usable = Probe(env, **opened);
  if (!usable.ok()) {
    return {
        .usable = false,
        .description = absl::StrCat("process groups (", usable.message(), ")")};
  }
  RemoveAbandonedCgroups(**opened);
  return {.usable = true,
          .parent = *parent,
          .description = absl::StrCat("cgroup v2 (", parent->string(), ")"),
          .v1_replica_procs = OpenV1ReplicaCgroups(env)};
}

// The record's text when this process's user wrote it; empty otherwise.
// The trial directory may be its job owner's (a root server's job of
// another user), who must not name a cgroup for this process to kill: the
// owner is the opened file's, and a FIFO or a link planted in its place is
// refused without blocking.
std::string ReadOwnRecord(Env& env, const Path& trial_dir) {
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> dir =
      env.OpenDirectory(trial_dir);
  if (!dir.ok()) return "";
  absl::StatusOr<FileContents> record = (*dir)->ReadAt(kCgroupRecordFile, 4096);
  if (!record.ok() || record->info.owner != env.EffectiveUserId()) return "";
  return record->text;
}

}  // namespace

const CgroupSupport& DetectCgroupSupport() {
  // Once per process, on the real machine: what the kernel lets this
  // process do does not change, and no test can play it.
  static const CgroupSupport* support = new CgroupSupport(Detect(DefaultEnv()));
  return *support;
}

absl::StatusOr<std::unique_ptr<TrialCgroup>> TrialCgroup::Create(
    Env& env, const Path& trial_dir, const std::vector<std::string>& replicas) {
  return Create(env, DetectCgroupSupport(), trial_dir, replicas);
}

absl::StatusOr<std::unique_ptr<TrialCgroup>> TrialCgroup::Create(
    Env& env, const CgroupSupport& support, const Path& trial_dir,
    const std::vector<std::string>& replicas) {
  if (!support.usable) return std::unique_ptr<TrialCgroup>();
  // What an earlier, killed hptune left for this trial goes first.
  KillRecordedCgroup(env, trial_dir, std::chrono::seconds(30));
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<DirectoryHandle> parent,
                          env.OpenDirectory(support.parent));
  // A killed hptune whose pid this process has now may have left its
  // cgroups behind: a name in use is skipped, not an error.
  static std::atomic<int> next{0};
  std::string name;
  absl::Status made;
  do {
    name = absl::StrCat("hptune-", env.ProcessId(), "-", next++);
    made = parent->CreateSubdirectory(name);
  } while (absl::IsAlreadyExists(made));
  if (!made.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create cgroup ", (support.parent / name).string(),
                     ": ", Reason(made)));
  }
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> dir =
      parent->OpenSubdirectory(name);
  if (!dir.ok()) {
    RemoveCgroupTree(*parent, name);
    return dir.status();
  }
  std::unique_ptr<TrialCgroup> cgroup(new TrialCgroup(
      env, std::move(parent), std::move(*dir), trial_dir / kCgroupRecordFile));
  HPTUNE_RETURN_IF_ERROR(env.CreatePrivateDirectories(trial_dir));
  HPTUNE_RETURN_IF_ERROR(cgroup->WriteRecord());
  for (const std::string& replica : replicas) {
    cgroup->replicas_.push_back({.name = replica});
  }
  return cgroup;
}

// Written whole (a temporary file renamed over it) but without fsync: it
// names a cgroup, which no reboot outlives, so only a killed hptune must
// find it complete, and the page cache survives that. An fsync here cost a
// millisecond or more per trial start.
absl::Status TrialCgroup::WriteRecord() {
  const absl::Status written = env_.WriteFileAtomically(
      record_, dir_->path().string(), 0600, Durability::kUnsynced);
  if (written.ok()) return written;
  return absl::FailedPreconditionError(
      absl::StrCat("cannot write ", record_.string(), ": ", written.message()));
}

absl::StatusOr<int> TrialCgroup::NextReplicaCgroup(int replica) {
  Replica& r = replicas_[replica];
  // A replica run by podman leaves sub-cgroups (conmon's, the
  // container's): removed with it. Busy ones are kept.
  std::erase_if(r.cgroups, [this](const ReplicaCgroup& cgroup) {
    return RemoveCgroupTree(*dir_, cgroup.name);
  });
  const std::string name = absl::StrCat(r.name, ".", next_start_++);
  const absl::Status made = dir_->CreateSubdirectory(name);
  if (!made.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create cgroup ", (dir_->path() / name).string(),
                     ": ", Reason(made)));
  }
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> opened =
      dir_->OpenSubdirectory(name);
  if (!opened.ok()) {
    RemoveCgroupTree(*dir_, name);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open cgroup ", (dir_->path() / name).string(),
                     ": ", Reason(opened.status())));
  }
  r.cgroups.push_back({.name = name, .dir = std::move(*opened)});
  return r.cgroups.back().dir->descriptor();
}

TrialCgroup::~TrialCgroup() {
  for (Replica& replica : replicas_) replica.cgroups.clear();
  KillAndWait(env_, *dir_, env_.MonotonicNow() + std::chrono::seconds(30));
  const std::string name = dir_->path().filename().string();
  dir_ = nullptr;
  RemoveCgroupTree(*parent_, name);
  env_.Remove(record_).IgnoreError();
}

void TrialCgroup::KillReplica(int replica) const {
  for (const ReplicaCgroup& cgroup : replicas_[replica].cgroups) {
    cgroup.dir->WriteAt("cgroup.kill", "1").IgnoreError();
  }
}

void TrialCgroup::KillAll() const {
  dir_->WriteAt("cgroup.kill", "1").IgnoreError();
}

bool TrialCgroup::ReplicaPopulated(int replica) const {
  for (const ReplicaCgroup& cgroup : replicas_[replica].cgroups) {
    if (Populated(*cgroup.dir)) return true;
  }
  return false;
}

int KillRecordedCgroup(Env& env, const Path& trial_dir,
                       std::chrono::milliseconds wait) {
  const std::string recorded = ReadOwnRecord(env, trial_dir);
  if (recorded.empty()) return 0;
  const Path dir(recorded);
  // Only a trial cgroup of this process's user is ever killed: a record
  // that names anything else was not written by hptune.
  const std::string name = dir.filename().string();
  int killed = 0;
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> parent =
      dir.is_absolute() && name.rfind("hptune-", 0) == 0
          ? env.OpenDirectory(dir.parent_path())
          : absl::NotFoundError("no trial cgroup");
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> cgroup =
      parent.ok() ? (*parent)->OpenSubdirectory(name) : parent.status();
  absl::StatusOr<FileInfo> info =
      cgroup.ok() ? (*cgroup)->Info() : cgroup.status();
  if (info.ok() && info->owner == env.EffectiveUserId() && HasKill(**cgroup)) {
    killed = CountProcesses(**cgroup);
    KillAndWait(env, **cgroup, env.MonotonicNow() + wait);
    *cgroup = nullptr;
    RemoveCgroupTree(**parent, name);
  }
  env.Remove(trial_dir / kCgroupRecordFile).IgnoreError();
  return killed;
}

}  // namespace hptune::launch

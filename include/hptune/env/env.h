// Env: the operating system as hptune sees it, behind one interface, after
// leveldb's Env, grouped by what it is:
//   time      the wall clock (clock(), Now()) for what is recorded and
//             shown, and a monotonic clock (MonotonicNow()) for every
//             deadline and timeout, which a set wall clock must not move;
//   waiting   SleepFor, and WaitForReadable on descriptors (a replica's
//             pidfd becomes readable when it exits); the I/O on the
//             sockets, pipes and eventfd hptune made itself (PollReadable,
//             ReadSome, Write: the identity sockets', a helper program's
//             output);
//   files     reading, appending (OpenForAppending: serve's --log-file),
//             atomic writes, rename, remove, type and owner,
//             listing, private directories, permissions, the working
//             directory relative paths are taken from, and directory
//             handles (hptune/env/directory_handle.h) that check and use
//             the same opened directory;
//   identity  the user and group the process acts as, and its process id;
//   entropy   seeds nobody chose (RandomSeed: a study's without spec.seed);
//   locks     file locks (LockFile: the runner lease beside a database),
//             waits on a condition with a monotonic deadline (WaitUntil),
//             and paths with their links resolved (RealPath).
//
// The engine, the job runner, take-over, the server, the dashboard and the
// Slurm launcher reach files and time only through an Env (a layering rule
// holds them to it, tests/env_door_test.sh counts what is left outside);
// DefaultEnv() is the real one. Processes are the Launcher's
// (hptune/launch/launcher.h): a trial's replicas are started and watched
// through it, and a TrialRun hands the runner the descriptors that become
// readable when a replica exits (TrialRun::ExitFds), which is what the
// runner waits on. Tests use FakeEnv (tests/testing/fake_env.h): both its
// clocks move only when the code under test waits or sleeps, its files live
// in memory and its seeds are a fixed sequence; EnvWrapper
// (hptune/env/env_wrapper.h) injects a fault into one call.
//
// Thread-safety: DefaultEnv() is thread-safe; an Env implementation must be
// safe to call from the threads of every runner that shares it. A
// RandomAccessFile is used by one thread at a time.
#ifndef HPTUNE_ENV_ENV_H_
#define HPTUNE_ENV_ENV_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/mutex.h"
#include "hptune/core/time.h"
#include "hptune/env/clock.h"
#include "hptune/env/directory_handle.h"

namespace hptune {

// A file opened for reading, read by offset: what a metric reader polls
// while a trainer appends to it.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // The size when it was opened.
  virtual uint64_t size() const = 0;
  // Reads up to `length` bytes at `offset` into `buffer`; fewer at the end
  // of the file, 0 past it.
  virtual absl::StatusOr<size_t> ReadAt(uint64_t offset, char* buffer,
                                        size_t length) = 0;
  // The data at or after `offset` as [begin, end): past a hole that
  // Env::CapLog punched, up to the next hole or the size. A file without
  // holes, or a file system that cannot tell: [offset, size()).
  virtual std::pair<uint64_t, uint64_t> DataAt(uint64_t offset) {
    return {offset, size()};
  }
};

// A file opened to append to (Env::OpenForAppending): the server's
// --log-file, which another server may append to as well.
class AppendFile {
 public:
  virtual ~AppendFile() = default;
  // Appends `data` with one write(2), so that what two processes append to
  // one file never interleaves within a call. The system's reason, naming
  // the path, when not all of it was written.
  [[nodiscard]] virtual absl::Status Append(std::string_view data) = 0;
};

// Whether Env::InfoOf describes a link or what it points at.
enum class Links { kFollow, kNotFollowed };

// Up to `max_bytes` of a file from an offset, and the whole file's size.
struct FileChunk {
  std::string data;
  int64_t size = 0;
  // Where `data` begins: the offset asked for, or past a hole of a capped
  // log (Env::CapLog) that it fell in.
  int64_t offset = 0;
};

// What Env::CapLog did to a log. Its first `head` bytes stay, the last
// kLogCutLineBytes of them a line saying how many bytes were removed after
// it; a cut removed `length` bytes at `offset` (>= head).
inline constexpr int64_t kLogCutLineBytes = 128;
struct LogCut {
  int64_t head = 0;
  int64_t offset = 0;
  int64_t length = 0;          // 0: the log was under its cap.
  int64_t removed_in_all = 0;  // What the line says: every cut's, so far.
  // true: the range is gone and what followed moved up by `length`
  // (FALLOC_FL_COLLAPSE_RANGE); false: it reads as zeros, its disk space
  // freed, and the size stays (FALLOC_FL_PUNCH_HOLE, where the file
  // system cannot collapse: tmpfs).
  bool collapsed = true;
};

// What a completed WriteFileAtomically promises beyond atomicity.
enum class Durability {
  kSynced,    // On disk (fsync before the rename): survives a power loss.
  kUnsynced,  // Survives a crash of any process, not a power loss.
};

// A reading of Env::MonotonicNow(): comparable only with another of the same
// Env, never stored or shown.
using MonotonicTime = std::chrono::steady_clock::time_point;

// A lock Env::LockFile took, held until the object is destroyed.
class FileLock {
 public:
  FileLock() = default;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  virtual ~FileLock() = default;
};

// How Env::LockFile holds a file.
enum class LockMode {
  kExclusive,  // One holder.
  kShared,     // Any number of kShared holders, and no kExclusive one.
};

// What a lock file holds, and what becomes of it on release.
enum class LockFileUse {
  // Nothing; it stays for the next holder (a database's serve-lock).
  kKept,
  // The holder's process id while held (for the message of whoever is
  // refused: read it with ReadFileHead); removed on release, before the
  // lock drops, and a locker that got the removed file locks the new one.
  kHolderPid,
};

class Env {
 public:
  virtual ~Env() = default;

  // The wall clock the runner reads: job and trial times, which are stored
  // and shown, and scheduling limits kept across restarts.
  virtual Clock& clock() = 0;
  Timestamp Now() { return clock().Now(); }
  // A clock that only moves forward, at a steady rate (CLOCK_MONOTONIC):
  // what every deadline and timeout within a process is measured on, since
  // the wall clock may be set back or forth under it.
  virtual MonotonicTime MonotonicNow() = 0;

  // Blocks for `duration`.
  virtual void SleepFor(std::chrono::microseconds duration) = 0;
  // Blocks until one of `fds` is readable (a pidfd: its process ended) or
  // `timeout` passed, whichever is first. Spurious early returns are
  // allowed: the caller looks at what changed.
  virtual void WaitForReadable(std::span<const int> fds,
                               std::chrono::microseconds timeout) = 0;

  // Opens a regular file of its own for reading. `what` names it in errors
  // ("metrics file", "log"). The file is opened without following a link
  // and refused when it has other hard links, since its directory may
  // belong to a trainer's user, who could point the name at a file only
  // this process may read. NotFound when absent; FailedPrecondition when
  // not a file to read; the system's reason otherwise. Messages name the
  // path.
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenForReading(
      const std::filesystem::path& path, std::string_view what = "file") = 0;
  // The whole file (a link is followed: for the files hptune itself keeps,
  // such as a token or users file); NotFound when it does not exist.
  virtual absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) = 0;
  // The file's first `max_bytes` bytes at most: for a file a user names,
  // which may be a pipe or a device with no size to check first (a token
  // file given as /dev/zero must not be read forever).
  virtual absl::StatusOr<std::string> ReadFileHead(
      const std::filesystem::path& path, int64_t max_bytes) {
    absl::StatusOr<std::string> whole = ReadFile(path);
    if (whole.ok() && static_cast<int64_t>(whole->size()) > max_bytes) {
      whole->resize(static_cast<size_t>(max_bytes));
    }
    return whole;
  }
  // Writes `contents` to `path` so that a reader sees the old file or the
  // new one, never a mix: a temporary file in the same directory, made
  // afresh (a planted name is not written through), then a rename. The
  // file gets `mode`.
  [[nodiscard]] virtual absl::Status WriteFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600, Durability durability = Durability::kSynced) = 0;
  // As WriteFileAtomically (synced), but only where nothing is at `path`:
  // the new file is linked into place (link(2)), so of writers racing to
  // create it the first wins and the others get AlreadyExists. Nothing is
  // left behind on failure; the error names the path and the reason.
  [[nodiscard]] virtual absl::Status CreateFileAtomically(
      const std::filesystem::path& path, std::string_view contents,
      int mode = 0600) = 0;
  // Renames `from` to `to`, replacing a file there.
  [[nodiscard]] virtual absl::Status Rename(
      const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // Removes the file (or empty directory) at `path`: true when it was
  // there, false when there was nothing.
  virtual absl::StatusOr<bool> Remove(const std::filesystem::path& path) = 0;
  // What is at `path` (stat(2)): a link is followed unless `links` says
  // not, when it is described itself. NotFound when nothing is there.
  virtual absl::StatusOr<FileInfo> InfoOf(const std::filesystem::path& path,
                                          Links links) = 0;
  // What is at `path`, without following a link; NotFound when nothing.
  absl::StatusOr<FileType> TypeOf(const std::filesystem::path& path);
  // The entries of `dir`, sorted by name, without "." and "..".
  virtual absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) = 0;
  // As the free CreatePrivateDirectories below.
  [[nodiscard]] virtual absl::Status CreatePrivateDirectories(
      const std::filesystem::path& dir) = 0;
  // The directory relative paths are taken from (getcwd(3)); the system's
  // reason when it is gone.
  virtual absl::StatusOr<std::filesystem::path> WorkingDirectory() = 0;
  // `path` made absolute against WorkingDirectory(), as
  // std::filesystem::absolute does: neither normalised nor resolved.
  absl::StatusOr<std::filesystem::path> Absolute(
      const std::filesystem::path& path);
  // Sets the permission bits of `path` (chmod(2): a link is followed). The
  // system's reason, naming the path, on failure.
  [[nodiscard]] virtual absl::Status SetPermissions(
      const std::filesystem::path& path, int mode) = 0;
  // The user this process acts as (its effective uid): 0 for a root
  // server, which runs other users' jobs as them.
  virtual uint32_t EffectiveUserId() = 0;
  // Its effective gid: the group of what the server's own token acts as.
  virtual uint32_t EffectiveGroupId() = 0;

  // 64 bits no one can predict (the system's entropy source): the seed of
  // a study created without one.
  virtual uint64_t RandomSeed() = 0;
  // Keeps the log at `path`, which a replica appends to, near `max_bytes`
  // (docs/operations.md, "What lives where"): past it, removes a middle
  // range so that the first quarter of the cap and the last half remain,
  // and writes a line at the cut. Opened as OpenForReading opens a file.
  // An Env whose files cannot be cut (FakeEnv) removes nothing.
  virtual absl::StatusOr<LogCut> CapLog(const std::filesystem::path& path,
                                        int64_t max_bytes) {
    (void)path;
    (void)max_bytes;
    return LogCut{};
  }

  // Up to `max_bytes` of the file at `path` from `offset` (less at its end),
  // and its size, as OpenForReading opens it: a replica's log read while
  // the replica writes it. A hole CapLog punched is skipped: the data
  // begins at the chunk's `offset` and stops before the next hole.
  absl::StatusOr<FileChunk> ReadFileChunk(const std::filesystem::path& path,
                                          int64_t offset, int64_t max_bytes,
                                          std::string_view what = "file");
  // Whether anything is at `path` (a link counts, unfollowed).
  bool Exists(const std::filesystem::path& path) { return TypeOf(path).ok(); }

  // Opens `path` to append to (O_APPEND), creating it with `mode`; a link
  // is not followed, and the descriptor is close-on-exec. The error names
  // the path and the system's reason:
  //   cannot open "/var/log/hptune.log": Permission denied
  virtual absl::StatusOr<std::unique_ptr<AppendFile>> OpenForAppending(
      const std::filesystem::path& path, int mode = 0600) = 0;

  // --- Descriptors hptune made itself: sockets, pipes, an eventfd ---

  // Waits until one of `fds` is readable -- data, or its other end closed,
  // or an error, so that a read does not block -- or `timeout` passed (no
  // limit when absent), and returns those that are, in the order given:
  // none when the timeout passed. A signal that interrupts the wait does
  // not end it. The system's reason when poll(2) fails otherwise.
  virtual absl::StatusOr<std::vector<int>> PollReadable(
      std::span<const int> fds,
      std::optional<std::chrono::microseconds> timeout) = 0;
  // Reads what `fd` has, up to buffer.size() bytes (one read(2), again
  // after a signal): 0 at its end (the other end closed). The system's
  // reason otherwise.
  virtual absl::StatusOr<size_t> ReadSome(int fd, std::span<char> buffer) = 0;
  // Writes `data` to `fd` with one write(2), again after a signal: an
  // error, with the system's reason, when less was written.
  [[nodiscard]] virtual absl::Status Write(int fd, std::string_view data) = 0;

  // --- Locks, waits on a condition, resolved paths ---

  // Locks the file at `path` without waiting, creating it (mode 0600, a
  // link not followed) when missing: an flock(2), which the kernel drops
  // when its holder dies, however it dies. Held until the FileLock is
  // destroyed; two locks of one process conflict as two processes' do.
  // Unavailable, naming the path, when another holder's lock conflicts;
  // FailedPrecondition when the file cannot be opened:
  //   cannot create lock file "/srv/h.db.serve-lock": Permission denied
  virtual absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::filesystem::path& path, LockMode mode, LockFileUse use) = 0;
  // Waits on `cv`, `mu` held (released while waiting, held again on
  // return), until it is signalled or MonotonicNow() reaches `deadline`:
  // CondVar::WaitUntil on this Env's monotonic clock. False when the
  // deadline has passed, true when woken before it (perhaps spuriously:
  // wait in a loop on the guarded state).
  virtual bool WaitUntil(CondVar* cv, Mutex* mu, MonotonicTime deadline)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) = 0;
  // `path` made absolute with every link and "." or ".." resolved
  // (realpath(3)); NotFound when part of it is missing.
  virtual absl::StatusOr<std::filesystem::path> RealPath(
      const std::filesystem::path& path) = 0;
  // --- Directory handles and the process id: the local launcher's cgroup
  // tree and trial records (hptune/env/directory_handle.h). ---

  // Opens the directory at `path` (O_DIRECTORY; the last component is not
  // followed when a link: FailedPrecondition). NotFound when absent.
  virtual absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenDirectory(
      const std::filesystem::path& path) = 0;
  // This process's id (getpid(2)): what names the files and cgroups it
  // makes afresh, so that another hptune process never takes them.
  virtual int ProcessId() = 0;
};

// The real machine: the system clock, poll(2), POSIX files.
Env& DefaultEnv();

// Creates `dir` and its missing parents, each new one with mode 0700, so
// that what hptune keeps there (logs, metric files, token, state) is
// private to the user who runs it; directories that exist keep their mode.
// An error names the directory and the reason.
[[nodiscard]] absl::Status CreatePrivateDirectories(
    const std::filesystem::path& dir);

// What a path given to CheckPrivatePath names.
enum class PathKind { kDirectory, kFile };

// The one rule for every path an administrator gives `hptune serve` or
// `hptune run` (the state directory, the database and the files beside it,
// the log file), since hptune trusts what is there: no other user may
// choose or change it. `path`, when it exists, is no symbolic link, is a
// directory or a regular file as `kind` says, and is owned by this
// process's user or root and writable by neither group nor others; every
// directory above it, as written and as resolved, is owned by that user or
// root and writable by no one else unless sticky (/tmp), and a link on the
// way is that user's or root's. A missing `path` passes: whoever creates
// it makes it private. FailedPrecondition naming the path, the owner and
// mode, and the fix, e.g.
//   file /srv/h.db is owned by uid 65534 with mode 0644: another user ...
//   file /srv/h.db is a symbolic link to /root/x, owned by uid 65534: ...
//   directory runs lies in /srv/shared, which is owned by uid 0 with mode
//   0777: ...
[[nodiscard]] absl::Status CheckPrivatePath(const std::filesystem::path& path,
                                            PathKind kind);

// CheckPrivatePath for a directory, which is then created as
// CreatePrivateDirectories does when missing: what hptune keeps there
// (logs it appends to, metric files, cgroup records) is trusted.
[[nodiscard]] absl::Status CheckPrivateDirectory(
    const std::filesystem::path& dir);

// Opens a file in a directory a trainer's user may change (a trial's: its
// logs, metric files, cgroup record) as Env::OpenForReading does, for any
// `flags` of open(2): O_RDONLY, or O_WRONLY | O_CREAT | O_APPEND to append
// to a log made with `mode`. No link is followed, the open never waits (a
// FIFO or a device planted under the name would block it: O_NONBLOCK, cleared
// once the file is known to be regular), and the file is refused unless it
// is regular with no other hard links. The descriptor is close-on-exec; the
// caller closes it and reads a bounded amount. NotFound when absent;
// FailedPrecondition for a link or what is not a regular file; the system's
// reason otherwise. Messages name `what` and the path:
//   log file "/runs/j/1/master-0.log" is not a regular file
absl::StatusOr<int> OpenRegularFile(const std::filesystem::path& path,
                                    int flags, std::string_view what = "file",
                                    int mode = 0600);

// The file exec would run for `program`, searched as execvp does: a name
// with a slash is returned as it is; otherwise the first executable regular
// file of that name in a directory of this process's PATH ("/bin:/usr/bin"
// when unset), an empty entry being the working directory unless
// `search_working_dir` is false. NotFound, or PermissionDenied when only
// files that are not executable have the name.
absl::StatusOr<std::string> FindOnPath(const std::string& program,
                                       bool search_working_dir = true);

// Whether exec could run `program` (searched as FindOnPath does) with the
// working directory `working_dir` (this process's when empty), checked
// before anything starts: OK, or an error that says what to fix.
// NotFound: no such program, or its #! interpreter is missing ("the
// interpreter \"/usr/bin/python9\" of its #! line does not exist");
// PermissionDenied: not a regular file, not executable (with the chmod to
// run), or neither a binary nor a script with a #! line.
[[nodiscard]] absl::Status CheckExecutable(
    const std::string& program, const std::filesystem::path& working_dir = {});

}  // namespace hptune

#endif  // HPTUNE_ENV_ENV_H_

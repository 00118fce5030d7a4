// DefaultEnv(): the real clock, poll(2) and POSIX files.
#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"
#include "src/env/log_cap.h"
#include "src/env/posix_files.h"

namespace hptune {
namespace {

using internal::ErrnoError;

class PosixEnv : public Env {
 public:
  Clock& clock() override { return SystemClock(); }
  MonotonicTime MonotonicNow() override {
    return std::chrono::steady_clock::now();
  }

  void SleepFor(std::chrono::microseconds duration) override {
    std::this_thread::sleep_for(duration);
  }

  void WaitForReadable(std::span<const int> fds,
                       std::chrono::microseconds timeout) override {
    std::vector<pollfd> polled;
    polled.reserve(fds.size());
    for (int fd : fds) polled.push_back({.fd = fd, .events = POLLIN});
    // poll(2) counts milliseconds; round up so a short wait still waits.
    const int ms = static_cast<int>((timeout.count() + 999) / 1000);
    ::poll(polled.data(), polled.size(), ms);  // EINTR: an early return.
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenForReading(
      const std::filesystem::path& path, std::string_view what) override {
    return internal::OpenPosixFile(path, what);
  }
  absl::StatusOr<std::string> ReadFile(
      const std::filesystem::path& path) override {
    return internal::ReadPosixFile(path);
  }
  absl::StatusOr<std::string> ReadFileHead(const std::filesystem::path& path,
                                           int64_t max_bytes) override {
    return internal::ReadPosixFile(path, max_bytes);
  }
  absl::Status WriteFileAtomically(const std::filesystem::path& path,
                                   std::string_view contents, int mode,
                                   Durability durability) override {
    return internal::WritePosixFileAtomically(path, contents, mode, durability);
  }
  absl::Status CreateFileAtomically(const std::filesystem::path& path,
                                    std::string_view contents,
                                    int mode) override {
    return internal::CreatePosixFileAtomically(path, contents, mode);
  }
  absl::Status Rename(const std::filesystem::path& from,
                      const std::filesystem::path& to) override {
    return internal::RenamePosix(from, to);
  }
  absl::StatusOr<bool> Remove(const std::filesystem::path& path) override {
    return internal::RemovePosix(path);
  }
  absl::StatusOr<FileInfo> InfoOf(const std::filesystem::path& path,
                                  Links links) override {
    return internal::PosixInfoOf(path, links);
  }
  absl::StatusOr<std::vector<DirectoryEntry>> ListDirectory(
      const std::filesystem::path& dir) override {
    return internal::ListPosixDirectory(dir);
  }
  absl::Status CreatePrivateDirectories(
      const std::filesystem::path& dir) override {
    return hptune::CreatePrivateDirectories(dir);
  }
  absl::StatusOr<std::filesystem::path> WorkingDirectory() override {
    std::error_code error;
    std::filesystem::path dir = std::filesystem::current_path(error);
    if (error) {
      return internal::ErrnoError("cannot tell the working directory", ".",
                                  error.value());
    }
    return dir;
  }
  absl::Status SetPermissions(const std::filesystem::path& path,
                              int mode) override {
    if (::chmod(path.c_str(), static_cast<mode_t>(mode)) != 0) {
      return ErrnoError("cannot change the mode of", path, errno);
    }
    return absl::OkStatus();
  }
  uint32_t EffectiveUserId() override { return ::geteuid(); }
  uint32_t EffectiveGroupId() override { return ::getegid(); }
  uint64_t RandomSeed() override {
    uint64_t seed = 0;
    auto* bytes = reinterpret_cast<unsigned char*>(&seed);
    size_t got = 0;
    while (got < sizeof(seed)) {
      // Blocks only before the kernel's pool is first initialised.
      const ssize_t n = ::getrandom(bytes + got, sizeof(seed) - got, 0);
      if (n > 0) got += static_cast<size_t>(n);
      if (n < 0 && errno != EINTR) break;  // No getrandom: a kernel < 3.17.
    }
    if (got < sizeof(seed)) {
      std::random_device device;
      seed ^= (static_cast<uint64_t>(device()) << 32) | device();
    }
    return seed;
  }
  absl::StatusOr<LogCut> CapLog(const std::filesystem::path& path,
                                int64_t max_bytes) override {
    return internal::CapPosixLog(path, max_bytes);
  }
  absl::StatusOr<std::unique_ptr<AppendFile>> OpenForAppending(
      const std::filesystem::path& path, int mode) override {
    return internal::OpenPosixForAppending(path, mode);
  }

  // Descriptors.
  absl::StatusOr<std::vector<int>> PollReadable(
      std::span<const int> fds,
      std::optional<std::chrono::microseconds> timeout) override {
    return internal::PollPosixReadable(fds, timeout);
  }
  absl::StatusOr<size_t> ReadSome(int fd, std::span<char> buffer) override {
    return internal::ReadPosixSome(fd, buffer);
  }
  absl::Status Write(int fd, std::string_view data) override {
    return internal::WritePosix(fd, data);
  }

  // Locks, waits on a condition, resolved paths.
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(
      const std::filesystem::path& path, LockMode mode,
      LockFileUse use) override {
    return internal::LockPosixFile(path, mode, use);
  }
  bool WaitUntil(CondVar* cv, Mutex* mu, MonotonicTime deadline) override
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    return cv->WaitUntil(mu, deadline);
  }
  absl::StatusOr<std::filesystem::path> RealPath(
      const std::filesystem::path& path) override {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) {
      return ErrnoError("cannot resolve", path, errno);
    }
    return std::filesystem::path(resolved);
  }
  // Directory handles and the process id.
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenDirectory(
      const std::filesystem::path& path) override {
    return internal::OpenPosixDirectory(path);
  }
  int ProcessId() override { return ::getpid(); }
};

}  // namespace

Env& DefaultEnv() {
  static PosixEnv* env = new PosixEnv();  // Never destroyed: used at exit.
  return *env;
}

absl::Status CreatePrivateDirectories(const std::filesystem::path& dir) {
  std::filesystem::path built;
  for (const std::filesystem::path& part : dir) {
    built /= part;
    if (::mkdir(built.c_str(), 0700) != 0 && errno != EEXIST) {
      return ErrnoError("cannot create directory", built, errno);
    }
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return ErrnoError("cannot create directory", dir, ENOTDIR);
  }
  return absl::OkStatus();
}

namespace {

// Why the object at `at` (unfollowed) lets a user other than `uid` or root
// choose what it holds or names, or "" when it does not (or is missing).
// `self`: `at` is the path asked for; otherwise a directory or link above
// it, where a sticky directory (/tmp) is fine.
std::string OthersCanChange(const std::filesystem::path& at, uid_t uid,
                            bool self) {
  struct stat info;
  if (::lstat(at.c_str(), &info) != 0) {
    return errno == ENOENT ? "" : std::strerror(errno);
  }
  const bool owner_ok = info.st_uid == uid || info.st_uid == 0;
  if (S_ISLNK(info.st_mode)) {
    // Whoever owns a link chose where it points; replacing it is a matter
    // of its directory, checked as an ancestor.
    if (owner_ok && !self) return "";
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(at, ec);
    return absl::StrFormat("a symbolic link to %s, owned by uid %d",
                           target.string(), info.st_uid);
  }
  const bool sticky = !self && (info.st_mode & S_ISVTX) != 0;
  const bool shared = (info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky;
  if (owner_ok && !shared) return "";
  return absl::StrFormat("owned by uid %d with mode %04o", info.st_uid,
                         info.st_mode & 07777);
}

// `path` itself: no link, of its kind, and this user's or root's alone.
absl::Status CheckPathItself(const std::filesystem::path& written,
                             const std::string& what, PathKind kind,
                             const std::string& risk) {
  const uid_t uid = ::geteuid();
  const std::string why = OthersCanChange(written, uid, /*self=*/true);
  if (!why.empty()) {
    const bool link = why.starts_with("a symbolic link");
    return absl::FailedPreconditionError(absl::StrCat(
        what, " is ", why, risk,
        link ? "give the path of what it names, if that is yours, or "
               "choose another"
             : absl::StrCat("chown it to uid ", uid, " and chmod ",
                            kind == PathKind::kDirectory ? "700" : "600",
                            " it, or choose another")));
  }
  struct stat info;
  if (::lstat(written.c_str(), &info) != 0) return absl::OkStatus();
  if (kind == PathKind::kDirectory && !S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " is not a directory"));
  }
  if (kind == PathKind::kFile && !S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " is not a regular file"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckPrivatePath(const std::filesystem::path& path,
                              PathKind kind) {
  std::filesystem::path written =
      std::filesystem::absolute(path).lexically_normal();
  if (!written.has_filename()) written = written.parent_path();  // "dir/"
  const std::string what = absl::StrCat(
      kind == PathKind::kDirectory ? "directory " : "file ", path.string());
  const uid_t uid = ::geteuid();
  const std::string risk = absl::StrCat(
      ": another user could plant links or files there that this process "
      "(uid ",
      uid, ") would trust; ");
  HPTUNE_RETURN_IF_ERROR(CheckPathItself(written, what, kind, risk));
  // The directories above it as written (a link on the way is one more
  // thing another user could change) and as they resolve.
  std::error_code ec;
  const std::filesystem::path resolved =
      std::filesystem::weakly_canonical(written.parent_path(), ec);
  if (ec) return ErrnoError("cannot resolve", path, ec.value());
  for (const std::filesystem::path& chain : {written.parent_path(), resolved}) {
    for (std::filesystem::path at = chain;; at = at.parent_path()) {
      const std::string why = OthersCanChange(at, uid, /*self=*/false);
      if (!why.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            what, " lies in ", at.string(), ", which is ", why, risk,
            "choose a path whose parents only root or you can write"));
      }
      if (at == at.root_path() || at.empty()) break;
    }
  }
  return absl::OkStatus();
}

absl::Status CheckPrivateDirectory(const std::filesystem::path& dir) {
  // Checked before it is made, so nothing is made where it may not be,
  // and after: a directory that existed keeps its mode.
  HPTUNE_RETURN_IF_ERROR(CheckPrivatePath(dir, PathKind::kDirectory));
  HPTUNE_RETURN_IF_ERROR(CreatePrivateDirectories(dir));
  return CheckPrivatePath(dir, PathKind::kDirectory);
}

namespace {

// Whether this thread may execute `file`: judged by its file identity
// (AT_EACCESS), so a root server acting as a user (ScopedFileIdentity)
// asks with that user's rights; plain access() would ask as root.
bool MayExecute(const std::string& file) {
  return ::faccessat(AT_FDCWD, file.c_str(), X_OK, AT_EACCESS) == 0;
}

}  // namespace

absl::StatusOr<std::string> FindOnPath(const std::string& program,
                                       bool search_working_dir) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = getenv("PATH");
  bool not_executable = false;
  for (absl::string_view dir :
       absl::StrSplit(path != nullptr ? path : "/bin:/usr/bin", ':')) {
    if (dir.empty() && !search_working_dir) continue;
    const std::string candidate =
        absl::StrCat(dir.empty() ? "." : dir, "/", program);
    struct stat info;
    if (::stat(candidate.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      continue;
    }
    if (MayExecute(candidate)) return candidate;
    not_executable = true;
  }
  const std::string where = absl::StrCat("\"", program, "\" on PATH");
  if (not_executable) {
    return absl::PermissionDeniedError(
        absl::StrCat(where, " is not executable"));
  }
  return absl::NotFoundError(absl::StrCat("no ", where));
}

namespace {

// The interpreter a "#!" line names, and for "#!/usr/bin/env NAME" the NAME
// env looks up; nullopt for a file that is no script.
struct Shebang {
  std::string interpreter;
  std::string env_program;
};
std::optional<Shebang> ReadShebang(const std::filesystem::path& file,
                                   bool* is_binary) {
  char head[256];
  // O_NONBLOCK: a FIFO put in the file's place meanwhile reads as empty.
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return std::nullopt;
  const ssize_t n = read(fd, head, sizeof(head));
  close(fd);
  if (n < 0) return std::nullopt;
  std::string_view text(head, static_cast<size_t>(n));
  *is_binary = text.substr(0, 4) ==
               "\x7f"
               "ELF";
  if (text.substr(0, 2) != "#!") return std::nullopt;
  text.remove_prefix(2);
  text = text.substr(0, text.find('\n'));
  std::vector<std::string> words = absl::StrSplit(
      std::string(text), absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
  if (words.empty()) return Shebang{};
  Shebang shebang{.interpreter = words[0]};
  if (std::filesystem::path(words[0]).filename() == "env") {
    for (size_t i = 1; i < words.size(); ++i) {
      if (words[i].empty() || words[i][0] == '-') continue;   // env -S, -i.
      if (words[i].find('=') != std::string::npos) continue;  // NAME=VALUE.
      shebang.env_program = words[i];
      break;
    }
  }
  return shebang;
}

}  // namespace

absl::Status CheckExecutable(const std::string& program,
                             const std::filesystem::path& working_dir) {
  HPTUNE_ASSIGN_OR_RETURN(std::string found, FindOnPath(program));
  std::filesystem::path file(found);
  if (file.is_relative() && !working_dir.empty()) file = working_dir / file;
  const std::string quoted = absl::StrCat("\"", file.string(), "\"");
  struct stat info;
  if (::stat(file.c_str(), &info) != 0) {
    return absl::NotFoundError(absl::StrCat(quoted, " does not exist"));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::PermissionDeniedError(
        absl::StrCat(quoted, " is not a regular file"));
  }
  if (!MayExecute(file.string())) {
    return absl::PermissionDeniedError(absl::StrCat(
        quoted, " is not executable: make it so (chmod +x ", file.string(),
        ") or run it through its interpreter (command: [python3, ...])"));
  }
  bool is_binary = false;
  std::optional<Shebang> shebang = ReadShebang(file, &is_binary);
  if (!shebang.has_value()) {
    if (is_binary) return absl::OkStatus();
    return absl::PermissionDeniedError(absl::StrCat(
        quoted,
        " is neither a program nor a script with a #! line: start it with "
        "one, such as #!/usr/bin/env python3"));
  }
  if (shebang->interpreter.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat(quoted, " has a #! line that names no interpreter"));
  }
  const std::string where = absl::StrCat(" of the #! line of ", quoted);
  if (!MayExecute(shebang->interpreter)) {
    return absl::NotFoundError(absl::StrCat(
        "the interpreter \"", shebang->interpreter, "\"", where,
        errno == ENOENT ? " does not exist" : " cannot be executed"));
  }
  if (!shebang->env_program.empty()) {
    absl::StatusOr<std::string> on_path =
        FindOnPath(shebang->env_program, /*search_working_dir=*/false);
    if (!on_path.ok()) {
      return absl::Status(on_path.status().code(),
                          absl::StrCat(on_path.status().message(),
                                       " (the program", where, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace hptune

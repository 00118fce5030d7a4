#include "hptune/env/users.h"

#include <grp.h>
#include <pwd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "hptune/env/user_environment.h"

namespace hptune {
namespace {

struct PasswdEntry {
  std::string name;  // "" when the user database does not know the uid.
  std::string home;
};

PasswdEntry LookUpPasswd(uid_t uid) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  struct passwd entry;
  struct passwd* found = nullptr;
  if (getpwuid_r(uid, &entry, buffer.data(), buffer.size(), &found) != 0 ||
      found == nullptr) {
    return {};
  }
  return {.name = found->pw_name, .home = found->pw_dir};
}

// The uid's name in the user database, or "" when it has none.
std::string UserNameOf(uid_t uid) { return LookUpPasswd(uid).name; }

}  // namespace

UserCredentials LookUpUser(uid_t uid, gid_t gid) {
  UserCredentials user{.uid = uid, .gid = gid, .groups = {gid}};
  const std::string name = UserNameOf(uid);
  if (name.empty()) return user;
  int count = 64;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (getgrouplist(name.c_str(), gid, groups.data(), &count) < 0) {
    if (count > 65536) return user;
    groups.resize(static_cast<size_t>(count));
  }
  groups.resize(static_cast<size_t>(count));
  user.groups = std::move(groups);
  return user;
}

std::string DescribeUser(uid_t uid) {
  const std::string name = UserNameOf(uid);
  if (name.empty()) return absl::StrCat("uid ", uid);
  return absl::StrCat(name, " (uid ", uid, ")");
}

absl::Status GiveToUser(const std::filesystem::path& dir,
                        const UserCredentials& user) {
  if (::lchown(dir.c_str(), user.uid, user.gid) != 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot give directory ", dir.string(), " to ",
                            DescribeUser(user.uid)));
  }
  return absl::OkStatus();
}

// Raw system calls: each changes the calling thread's credentials only.
ScopedFileIdentity::ScopedFileIdentity(const UserCredentials& user) {
  if (::geteuid() != 0 || user.uid == 0) return;
  const int count = ::getgroups(0, nullptr);
  saved_groups_.resize(static_cast<size_t>(count > 0 ? count : 0));
  if (count > 0) ::getgroups(count, saved_groups_.data());
  saved_uid_ = ::geteuid();
  saved_gid_ = ::getegid();
  ::syscall(SYS_setgroups, user.groups.size(), user.groups.data());
  ::syscall(SYS_setfsgid, user.gid);
  ::syscall(SYS_setfsuid, user.uid);
  changed_ = true;
}

ScopedFileIdentity::~ScopedFileIdentity() {
  if (!changed_) return;
  // The caller may still read errno from what it did as the user.
  const int saved_errno = errno;
  // fsuid back to 0 first: that gives back the capabilities that setting
  // the groups needs.
  ::syscall(SYS_setfsuid, saved_uid_);
  ::syscall(SYS_setfsgid, saved_gid_);
  ::syscall(SYS_setgroups, saved_groups_.size(), saved_groups_.data());
  errno = saved_errno;
}

std::map<std::string, std::string> UserEnvironment(
    uid_t uid, const std::filesystem::path& fallback_home) {
  PasswdEntry entry = LookUpPasswd(uid);
  if (entry.name.empty()) entry.name = std::to_string(uid);
  if (entry.home.empty()) entry.home = fallback_home.string();
  return {{"HOME", entry.home}, {"USER", entry.name}, {"LOGNAME", entry.name}};
}

bool IsServerUsersPlace(std::string_view name) {
  return name.starts_with("XDG_") || name == "MAIL";
}

}  // namespace hptune

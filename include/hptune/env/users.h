// The users a root `hptune serve` runs jobs for: who a uid is, the groups
// its processes get, and a thread's file access as that user.
//
// A root server runs each job's replicas as the user who submitted it
// (docs/operations.md, "Several users on one server"): the launcher starts
// them with these credentials, and the job runner makes the directories the
// user's trainer writes while acting as that user, so that a path the user
// controls never makes root create or follow something on the user's
// behalf. Used by src/engine, src/launch and src/server.
// Thread-safety: the functions are thread-safe; a ScopedFileIdentity changes
// its own thread's credentials only.
#ifndef HPTUNE_ENV_USERS_H_
#define HPTUNE_ENV_USERS_H_

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace hptune {

// Whom a process runs as: a uid, its primary group and supplementary groups
// (GPU devices are often opened through a group such as `video`).
struct UserCredentials {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;

  bool operator==(const UserCredentials&) const = default;
};

// `uid` with primary group `gid`, and the supplementary groups the user
// database gives the uid's name (getgrouplist); just `gid` for a uid the
// database does not know.
UserCredentials LookUpUser(uid_t uid, gid_t gid);

// "alice (uid 1000)", or "uid 1000" for a uid the user database does not know.
std::string DescribeUser(uid_t uid);

// Gives `dir` to `user` (owner and group), without following a link.
// PermissionDenied naming the directory unless this process is root.
[[nodiscard]] absl::Status GiveToUser(const std::filesystem::path& dir,
                                      const UserCredentials& user);

// While alive, this thread opens, creates and checks files as `user` would
// (setfsuid, setfsgid and setgroups on this thread alone: the kernel keeps
// credentials per thread; glibc's wrappers would change every thread), so
// root creates a user's directories with the user's rights and as the
// user's. Needs root; does nothing for root's own uid. Not nestable.
class ScopedFileIdentity {
 public:
  explicit ScopedFileIdentity(const UserCredentials& user);
  ~ScopedFileIdentity();
  ScopedFileIdentity(const ScopedFileIdentity&) = delete;
  ScopedFileIdentity& operator=(const ScopedFileIdentity&) = delete;

 private:
  bool changed_ = false;
  std::vector<gid_t> saved_groups_;
  uid_t saved_uid_ = 0;
  gid_t saved_gid_ = 0;
};

}  // namespace hptune

#endif  // HPTUNE_ENV_USERS_H_

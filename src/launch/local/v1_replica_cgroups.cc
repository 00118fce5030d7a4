#include "src/launch/local/v1_replica_cgroups.h"

#include <fcntl.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hptune::launch {
namespace {

// The cgroup.procs of `hptune-replicas` under `dir`, made when missing; -1
// when it cannot be made or opened.
int OpenReplicaCgroup(Env& env, const std::string& dir) {
  absl::StatusOr<std::unique_ptr<DirectoryHandle>> parent =
      env.OpenDirectory(dir);
  if (!parent.ok()) return -1;
  const absl::Status made =
      (*parent)->CreateSubdirectory(kV1ReplicaCgroup, 0755);
  if (!made.ok() && !absl::IsAlreadyExists(made)) return -1;
  absl::StatusOr<int> procs =
      OpenRegularFile(absl::StrCat(dir, "/", kV1ReplicaCgroup, "/cgroup.procs"),
                      O_WRONLY, "cgroup file");
  return procs.ok() ? *procs : -1;
}

}  // namespace

std::vector<std::string> V1CgroupDirs(const std::string& proc_self_cgroup) {
  std::vector<std::string> dirs;
  for (absl::string_view line : absl::StrSplit(proc_self_cgroup, '\n')) {
    std::vector<absl::string_view> fields = absl::StrSplit(line, ':');
    if (fields.size() != 3 || fields[0] == "0" || fields[1].empty() ||
        fields[2] == "/" || fields[2].empty()) {
      continue;
    }
    absl::string_view controllers = fields[1];
    absl::ConsumePrefix(&controllers, "name=");
    dirs.push_back(absl::StrCat("/sys/fs/cgroup/", controllers, fields[2]));
  }
  return dirs;
}

std::vector<int> OpenV1ReplicaCgroups(Env& env) {
  std::vector<int> opened;
  for (const std::string& dir :
       V1CgroupDirs(env.ReadFile("/proc/self/cgroup").value_or(""))) {
    const int fd = OpenReplicaCgroup(env, dir);
    if (fd >= 0) opened.push_back(fd);
  }
  return opened;
}

}  // namespace hptune::launch

// Where the cgroup v1 hierarchies that podman's split mode would move this
// process in are: /proc/self/cgroup's lines read as podman reads them.
#include "src/launch/local/v1_replica_cgroups.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(V1CgroupDirsTest, HierarchiesBelowTheirRootAreFound) {
  EXPECT_THAT(V1CgroupDirs("9:name=systemd:/system.slice/hptune.service\n"
                           "8:pids:/\n"
                           "4:memory:/system.slice/hptune.service\n"
                           "2:cpu,cpuacct:/user.slice\n"
                           "0::/system.slice/hptune.service\n"),
              ElementsAre("/sys/fs/cgroup/systemd/system.slice/hptune.service",
                          "/sys/fs/cgroup/memory/system.slice/hptune.service",
                          "/sys/fs/cgroup/cpu,cpuacct/user.slice"));
}

TEST(V1CgroupDirsTest, AUnifiedHostHasNone) {
  EXPECT_THAT(V1CgroupDirs("0::/system.slice/hptune.service\n"), IsEmpty());
  EXPECT_THAT(V1CgroupDirs(""), IsEmpty());
  EXPECT_THAT(V1CgroupDirs("garbage\n3:memory\n"), IsEmpty());
}

}  // namespace
}  // namespace hptune::launch

// A host trainer with built packages: the shell line that installs them
// offline into the replica's own directory, then runs the module.
#include "src/launch/trainer_packages.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune::launch {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TrainerPackagesTest, InstallsEachPackageThenRunsTheModuleWithTheArgs) {
  JobSpec job;
  job.module_name = "trainer.task";
  job.package_uris = {"/g/bkt/j/t-0.0.0.tar.gz", "/srv/it's.whl"};
  const std::vector<std::string> argv =
      PackageTrainerArgv(job, "/usr/bin/python3");
  ASSERT_EQ(argv.size(), 4u);
  EXPECT_EQ(argv[0], "/bin/sh");
  EXPECT_EQ(argv[1], "-c");
  EXPECT_EQ(argv[3], "trainer.task");  // $0: the arguments follow as $@.
  EXPECT_EQ(argv[2],
            "d=\"$PWD/packages-$$\"; py='/usr/bin/python3'; \"$py\" -m pip "
            "install --quiet --no-index --no-deps --no-build-isolation "
            "--disable-pip-version-check --target \"$d\" "
            "'/g/bkt/j/t-0.0.0.tar.gz' '/srv/it'\\''s.whl' || exit 125; "
            "export PYTHONPATH=\"$d${PYTHONPATH:+:$PYTHONPATH}\"; exec "
            "\"$py\" -m \"$0\" \"$@\"");
}

}  // namespace
}  // namespace hptune::launch

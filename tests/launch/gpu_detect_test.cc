// Tests of GPU detection with stand-ins for nvidia-smi: scripts that print
// what nvidia-smi prints, fail as it fails without a driver, or are absent.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "hptune/launch/gpu_inventory.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune_testing::StatusHasCode;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// An executable shell script standing in for nvidia-smi; it checks that it
// is asked the query the parser expects.
std::string FakeNvidiaSmi(const std::string& body) {
  std::string path = hptune::testing::MakeTempDir() + "/nvidia-smi";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "[ \"$1 $2\" = \"--query-gpu=index,name "
                         "--format=csv,noheader\" ] || exit 64\n"
                      << body;
  chmod(path.c_str(), 0755);
  return path;
}

TEST(GpuDetectTest, ReadsNvidiaSmi) {
  absl::StatusOr<GpuInventory> inventory = GpuInventory::Detect(
      DefaultEnv(),
      FakeNvidiaSmi("echo '0, Tesla T4'\necho '1, NVIDIA H100 80GB HBM3'\n"));
  ASSERT_OK(inventory);
  EXPECT_THAT(inventory->gpus(), ElementsAre(Gpu{0, "NVIDIA_TESLA_T4"},
                                             Gpu{1, "NVIDIA_H100_80GB"}));
}

TEST(GpuDetectTest, NoNvidiaSmiMeansNoGpus) {
  absl::StatusOr<GpuInventory> inventory =
      GpuInventory::Detect(DefaultEnv(), "/no/such/nvidia-smi");
  ASSERT_OK(inventory);
  EXPECT_THAT(inventory->gpus(), IsEmpty());
}

TEST(GpuDetectTest, FailingNvidiaSmiIsAnErrorWithItsOutput) {
  std::string path = FakeNvidiaSmi(
      "echo 'NVIDIA-SMI has failed because it could not communicate with "
      "the NVIDIA driver.'\nexit 9\n");
  absl::StatusOr<GpuInventory> inventory =
      GpuInventory::Detect(DefaultEnv(), path);
  ASSERT_THAT(inventory, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(inventory.status().message(),
            "cannot list GPUs: \"" + path +
                " --query-gpu=index,name --format=csv,noheader\" exited with "
                "9: NVIDIA-SMI has failed because it could not communicate "
                "with the NVIDIA driver.");
}

TEST(GpuDetectTest, OddOutputIsAParseError) {
  absl::StatusOr<GpuInventory> inventory =
      GpuInventory::Detect(DefaultEnv(), FakeNvidiaSmi("echo 'index, name'\n"));
  ASSERT_THAT(inventory, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(inventory.status().message(),
            "nvidia-smi output line 1: the index is not a number, got "
            "\"index, name\"");
}

}  // namespace
}  // namespace hptune::launch

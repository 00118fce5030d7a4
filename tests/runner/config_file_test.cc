// Tests for runner::LoadConfigFile and runner::ResolveConfigPaths: a config
// file read through Env, on the real machine's files and on FakeEnv's.
#include "hptune/runner/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/env/env.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune::runner {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string SourcePath(std::string_view relative) {
  return std::string(HPTUNE_SOURCE_DIR) + "/" + std::string(relative);
}

TEST(LoadConfigFileTest, ReadsYamlAndJsonByExtension) {
  absl::StatusOr<LoadedConfig> yaml = LoadConfigFile(
      DefaultEnv(), SourcePath("examples/configs/mnist_custom.yaml"), "m_1");
  ASSERT_OK(yaml);
  EXPECT_EQ(yaml->job.job_id, "m_1");
  absl::StatusOr<LoadedConfig> json = LoadConfigFile(
      DefaultEnv(), SourcePath("examples/configs/basic_grid.json"));
  ASSERT_OK(json);
  EXPECT_EQ(json->job.study->algorithm, Algorithm::kGridSearch);
}

TEST(LoadConfigFileTest, AFileThatCannotBeReadIsNotFoundWithTheReason) {
  EXPECT_THAT(LoadConfigFile(DefaultEnv(), "/nonexistent/config.yaml"),
              StatusIs(absl::StatusCode::kNotFound,
                       "cannot read config file \"/nonexistent/config.yaml\": "
                       "No such file or directory"));
  EXPECT_EQ(
      LoadConfigFile(DefaultEnv(), SourcePath("examples")).status(),
      absl::NotFoundError("cannot read config file \"" +
                          SourcePath("examples") + "\": it is a directory"));
}

TEST(LoadConfigFileTest, AnInvalidFileListsEveryErrorOnePerLine) {
  absl::StatusOr<LoadedConfig> loaded = LoadConfigFile(
      DefaultEnv(), SourcePath("tests/core/testdata/broken_machines.yaml"));
  EXPECT_THAT(loaded, StatusHasCode(absl::StatusCode::kInvalidArgument));
  std::ifstream in(SourcePath("tests/core/testdata/broken_machines.errors"));
  std::ostringstream expected;
  expected << in.rdbuf();
  std::string text = expected.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  EXPECT_EQ(loaded.status().message(), text);
}

TEST(LoadConfigFileTest, AFileOverTheLimitIsRefusedWithoutReadingItAll) {
  const std::string path = testing::MakeTempDir() + "/huge.yaml";
  std::ofstream(path) << "trainingInput: {}\n# "
                      << std::string(kMaxConfigTextBytes, 'x') << "\n";
  EXPECT_THAT(LoadConfigFile(DefaultEnv(), path),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must be at most 4 MiB, got 4194305 bytes")));
}

// The file is read through the Env it is handed: FakeEnv's file, which is
// nowhere on disk.
TEST(LoadConfigFileTest, ReadsThroughTheEnvItIsHanded) {
  testing::FakeEnv env;
  ASSERT_OK(env.CreatePrivateDirectories("/cfg"));
  ASSERT_OK(env.WriteFileAtomically(
      "/cfg/job.YAML",
      "trainingInput:\n  hyperparameters:\n    maxTrials: 3\n    params:\n"
      "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"));
  absl::StatusOr<LoadedConfig> loaded = LoadConfigFile(env, "/cfg/job.YAML");
  ASSERT_OK(loaded);
  EXPECT_EQ(loaded->job.study->max_trials, 3);
}

TEST(ResolveConfigPathsTest, ACommandElementIsAFileOnlyWhenTheEnvHasOne) {
  testing::FakeEnv env;
  ASSERT_OK(env.CreatePrivateDirectories("/cfg"));
  ASSERT_OK(env.WriteFileAtomically("/cfg/train.py", "print(1)\n"));
  JobSpec job;
  job.command = {"python3", "train.py", "other.py", "--lr"};
  ResolveConfigPaths(env, "/cfg", job);
  EXPECT_THAT(job.command,
              ElementsAre("python3", "/cfg/train.py", "other.py", "--lr"));
}

}  // namespace
}  // namespace hptune::runner

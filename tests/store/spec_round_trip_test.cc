// A study spec from a config, through a real SQLite file and back to a
// config: config -> store -> spec -> config, over the config parser's fuzz
// corpus (its seed configs), with what the store keeps beside the spec
// (the custom algorithm, the resumed trials).
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/env/clock.h"
#include "src/store/sqlite_store.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::hptune::store::test::TempDir;

// The parser fuzzer's seed configs (tests/fuzz/CMakeLists.txt).
std::vector<std::filesystem::path> CorpusConfigs() {
  const std::filesystem::path source = HPTUNE_SOURCE_DIR;
  std::vector<std::filesystem::path> files = {
      source / "examples/stdlib_trainer/config.yaml",
      source / "examples/pytorch_ddp/config.yaml"};
  for (const char* dir : {"examples/configs", "tests/core/testdata",
                          "tests/fuzz/corpus/config_parser_fuzzer"}) {
    for (const auto& entry :
         std::filesystem::directory_iterator(source / dir)) {
      files.push_back(entry.path());
    }
  }
  return files;
}

TEST(SpecRoundTripTest, EveryCorpusStudyComesBackFromTheFileAsItsConfig) {
  TempDir dir;
  FakeClock clock;
  int studies = 0;
  for (const std::filesystem::path& file : CorpusConfigs()) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    ConfigParseResult parsed = ParseJobConfig(
        text.str(),
        file.extension() == ".json" ? ConfigFormat::kJson : ConfigFormat::kYaml,
        "job");
    const std::optional<JobSpec>& job = parsed.job;
    // Broken on purpose, or no study.
    if (!parsed.errors.empty() || !job || !job->study) continue;
    const std::string name = "study_" + std::to_string(++studies);
    const StudyRecord written{.name = name,
                              .spec = *job->study,
                              .seed = 7,
                              .create_time = clock.Now(),
                              .resumed_trials = studies};
    {
      auto store = SqliteStore::Open(dir.File("hptune.db"), clock);
      ASSERT_OK(store.status());
      ASSERT_OK((*store)->CreateStudy(written));
    }
    // A new connection reads what the file holds.
    auto store = SqliteStore::Open(dir.File("hptune.db"), clock);
    ASSERT_OK(store.status());
    ASSERT_OK_AND_ASSIGN(StudyRecord read, (*store)->GetStudy(name));
    EXPECT_EQ(read, written);
    JobSpec back = *job;
    back.study = read.spec;
    EXPECT_EQ(TrainingInputToJson(back), TrainingInputToJson(*job));
  }
  // The examples, the conditional config and the corpus's own: not vacuous.
  EXPECT_GE(studies, 6);
}

TEST(SpecRoundTripTest, TheCustomAlgorithmIsKeptBesideTheConfigsFields) {
  TempDir dir;
  FakeClock clock;
  StudyRecord written = test::MakeStudy("custom");
  written.spec.custom_algorithm = "my_designer";
  written.create_time = clock.Now();  // The store's stamp.
  auto store = SqliteStore::Open(dir.File("hptune.db"), clock);
  ASSERT_OK(store.status());
  ASSERT_OK((*store)->CreateStudy(written));
  EXPECT_THAT((*store)->GetStudy("custom"),
              hptune_testing::IsOkAndHolds(written));
  // Not in the canonical config JSON, which no config can name it in.
  EXPECT_EQ(StudySpecToJson(written.spec).find("my_designer"),
            std::string::npos);
}

}  // namespace
}  // namespace hptune::store

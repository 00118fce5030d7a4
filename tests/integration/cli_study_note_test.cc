// `hptune studies describe` shows the study's note (Store::SetNote, written
// from the dashboard), through the real binary on a real SQLite file, with
// the note's control characters made harmless for a terminal.
#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/store/open_store.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::RunProcess;

class CliStudyNoteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::MakeTempDir();
    auto store = store::OpenSqliteStore(Db(), hptune::SystemClock());
    ASSERT_TRUE(store.ok()) << store.status();
    StudyRecord study;
    study.name = "noted";
    study.spec.SetSingleMetric("loss", Goal::kMinimize);
    study.spec.search_space = SearchSpace({{.name = "x",
                                            .type = ParameterType::kDouble,
                                            .min_value = 0,
                                            .max_value = 1,
                                            .scale = ScaleType::kLinear}});
    ASSERT_TRUE((*store)->CreateStudy(study).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Db() const { return dir_ + "/h.db"; }
  std::string dir_;
};

TEST_F(CliStudyNoteTest, DescribeShowsTheNoteWithoutItsControlCharacters) {
  auto none =
      RunProcess({HPTUNE_BINARY, "studies", "describe", "noted", "--db", Db()});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_THAT(none.out, Not(HasSubstr("note:")));
  {
    auto store = store::OpenSqliteStore(Db(), hptune::SystemClock());
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)
                    ->SetNote("noted", 0, "# Plan\nwiden lr\x1b[2J <b>kept</b>",
                              {.peer = "test", .client = "test"})
                    .ok());
  }
  auto r =
      RunProcess({HPTUNE_BINARY, "studies", "describe", "noted", "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("note:\n  # Plan\n  widen lr?[2J <b>kept</b>\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("\x1b")));
}

}  // namespace
}  // namespace hptune

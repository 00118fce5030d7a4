#include "benchmarks/quality/regret_table.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::quality {
namespace {

RegretRow Row(std::string designer, std::string function, int budget,
              std::string mode, std::vector<double> regrets) {
  RegretRow row{.designer = std::move(designer),
                .function = std::move(function),
                .mode = std::move(mode),
                .budget = budget};
  SummarizeRegrets(std::move(regrets), row);
  return row;
}

TEST(RegretTableTest, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(Median({5, 1, 3}), 3);
  EXPECT_EQ(Median({7}), 7);
}

TEST(RegretTableTest, SummaryHasMedianMinMaxAndTheSeedCount) {
  RegretRow row = Row("random", "branin", 50, "sequential", {0.3, 0.1, 0.9});
  EXPECT_EQ(row.median, 0.3);
  EXPECT_EQ(row.min, 0.1);
  EXPECT_EQ(row.max, 0.9);
  EXPECT_EQ(row.seeds, 3);
}

TEST(RegretTableTest, CsvHasTheSharedColumns) {
  EXPECT_EQ(FormatCsv({Row("gp", "branin", 50, "parallel4", {0.25, 1e-7}),
                       Row("random", "mixed", 100, "sequential", {2})}),
            "library,designer,function,mode,budget,seeds,median_regret,"
            "min_regret,max_regret\n"
            "hptune,gp,branin,parallel4,50,2,0.125,1e-07,0.25\n"
            "hptune,random,mixed,sequential,100,1,2,2,2\n");
}

TEST(RegretTableTest, RunsCsvHasOneLinePerRunWithEveryDigit) {
  EXPECT_EQ(FormatRunsCsv({{.designer = "gp",
                            .function = "levy4",
                            .mode = "parallel4",
                            .budget = 100,
                            .seed = 7,
                            .regret = 0.1},
                           {.designer = "random",
                            .function = "branin",
                            .mode = "sequential",
                            .budget = 50,
                            .seed = 1,
                            .regret = 2}}),
            "library,designer,function,mode,budget,seed,regret\n"
            "hptune,gp,levy4,parallel4,100,7,0.10000000000000001\n"
            "hptune,random,branin,sequential,50,1,2\n");
}

TEST(RegretTableTest, TableHasOneColumnPerDesignerAndOneLinePerCell) {
  const std::string table =
      FormatTable({Row("gp", "branin", 50, "sequential", {0.5, 1.5}),
                   Row("random", "branin", 50, "sequential", {12.25}),
                   Row("gp", "levy4", 100, "parallel4", {0.001})});
  EXPECT_EQ(
      table,
      "function  budget  mode                          gp             random\n"
      "branin    50      sequential          1 [0.5, 1.5]  12.2 [12.2, 12.2]\n"
      "levy4     100     parallel4   0.001 [0.001, 0.001]                  "
      "-\n");
}

}  // namespace
}  // namespace hptune::quality

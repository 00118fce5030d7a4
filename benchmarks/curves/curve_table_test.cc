#include "benchmarks/curves/curve_table.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "zlib.h"

namespace hptune::curves {
namespace {

using ::testing::HasSubstr;

ParameterSpec Double(std::string name, double lo, double hi, ScaleType s) {
  ParameterSpec p;
  p.name = std::move(name);
  p.type = ParameterType::kDouble;
  p.min_value = lo;
  p.max_value = hi;
  p.scale = s;
  return p;
}

// lr in [1e-4, 1] on a log scale, width in 1..9, opt one of sgd/adam.
CurveTable SmallTable() {
  ParameterSpec width;
  width.name = "width";
  width.type = ParameterType::kInteger;
  width.min_value = 1;
  width.max_value = 9;
  width.scale = ScaleType::kLinear;
  ParameterSpec opt;
  opt.name = "opt";
  opt.type = ParameterType::kCategorical;
  opt.categorical_values = {"sgd", "adam"};
  CurveTable t;
  t.space = SearchSpace({Double("lr", 1e-4, 1, ScaleType::kLog), width, opt});
  auto config = [](double lr, int64_t w, std::string o) {
    return ParameterAssignment{{"lr", ParameterValue::Double(lr)},
                               {"width", ParameterValue::Integer(w)},
                               {"opt", ParameterValue::Categorical(o)}};
  };
  t.configs = {config(1e-4, 5, "sgd"), config(1e-2, 5, "sgd"),
               config(1, 5, "sgd"), config(1e-2, 5, "adam"),
               config(1e-2, 5, "adam")};
  return t;
}

ParameterAssignment Point(double lr, int64_t w, std::string o) {
  return {{"lr", ParameterValue::Double(lr)},
          {"width", ParameterValue::Integer(w)},
          {"opt", ParameterValue::Categorical(o)}};
}

TEST(NearestConfigurationTest, MeasuresDistanceInTheScaledSpace) {
  const CurveTable t = SmallTable();
  // 0.2 is nearer to 1e-2 than to 1 in value, but nearer to 1 on the log
  // scale (log10: -0.7 against -2 and 0).
  EXPECT_EQ(*NearestConfiguration(t, Point(0.2, 5, "sgd")), 2);
  EXPECT_EQ(*NearestConfiguration(t, Point(3e-4, 5, "sgd")), 0);
  EXPECT_EQ(*NearestConfiguration(t, Point(1e-2, 9, "sgd")), 1);
}

TEST(NearestConfigurationTest, ACategoryOutweighsTheNumbersAndTiesGoLow) {
  const CurveTable t = SmallTable();
  // Every sgd configuration is further than the adam ones' lr differs.
  EXPECT_EQ(*NearestConfiguration(t, Point(1, 1, "adam")), 3);
  EXPECT_EQ(*NearestConfiguration(t, Point(1e-2, 5, "adam")), 3);
}

TEST(NearestConfigurationTest, APointWithoutAParameterOrOutsideIsRefused) {
  const CurveTable t = SmallTable();
  ParameterAssignment p = Point(1e-2, 5, "sgd");
  p.erase("width");
  EXPECT_THAT(NearestConfiguration(t, p).status().message(),
              HasSubstr("width"));
  EXPECT_THAT(NearestConfiguration(t, Point(5, 5, "sgd")).status().message(),
              HasSubstr("lr"));
}

TEST(LoadCurveTableTest, ReadsATableAndNamesTheLineOfABadOne) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("curve_table_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.manifest.json")
      << R"({"task": "t", "metric": "loss", "steps": 2, "parameters": [
           {"name": "lr", "type": "double", "low": 0.001, "high": 1,
            "scale": "log"},
           {"name": "opt", "type": "categorical", "values": ["a", "b"]}]})";
  std::ofstream(dir / "t.csv") << "id,lr,opt,m0,m1,c0,c1\n"
                                  "0,0.01,a,0.9,0.5,0.1,0.2\n"
                                  "1,0.1,b,0.8,0.3,0.1,0.1\n";
  auto t = LoadCurveTable(dir.string(), "t");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->configs.size(), 2u);
  EXPECT_EQ(t->metric[1][1], 0.3);
  EXPECT_EQ(t->cost[0][1], 0.2);
  EXPECT_EQ(t->BestValue(), 0.3);
  EXPECT_EQ(t->configs[1].at("opt"), ParameterValue::Categorical("b"));

  std::ofstream(dir / "t.csv") << "id,lr,opt,m0,m1,c0,c1\n"
                                  "0,0.01,a,0.9,nan,0.1,0.2\n";
  EXPECT_THAT(LoadCurveTable(dir.string(), "t").status().message(),
              HasSubstr("t.csv:2: column 5: not a finite number: \"nan\""));
  std::filesystem::remove_all(dir);
}

// A scratch directory holding t.manifest.json (lr, 2 steps) and, as gzip,
// t.csv.gz with `rows`.
std::filesystem::path GzipTable(const std::string& name,
                                const std::string& rows) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (name + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.manifest.json")
      << R"({"task": "t", "metric": "loss", "steps": 2, "parameters": [
           {"name": "lr", "type": "double", "low": 0.001, "high": 1,
            "scale": "log"}]})";
  gzFile out = gzopen((dir / "t.csv.gz").c_str(), "wb");
  const std::string text = "id,lr,m0,m1,c0,c1\n" + rows;
  gzwrite(out, text.data(), text.size());
  gzclose(out);
  return dir;
}

TEST(LoadCurveTableTest, ReadsAGzipTableBeforeAPlainOne) {
  const auto dir = GzipTable("curve_table_gz_",
                             "0,0.01,0.9,0.5,0.1,0.2\n"
                             "1,0.1,0.8,0.3,0.1,0.1\n"
                             "2,0.5,0.7,0.6,0.1,0.1\n");
  std::ofstream(dir / "t.csv") << "id,lr,m0,m1,c0,c1\n0,0.01,1,1,1,1\n";
  auto t = LoadCurveTable(dir.string(), "t");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->configs.size(), 3u);
  EXPECT_EQ(t->metric[1][1], 0.3);

  // The first two are the table of two: its best is theirs.
  ASSERT_TRUE(KeepFirstConfigurations(2, *t).ok());
  EXPECT_EQ(t->configs.size(), 2u);
  EXPECT_EQ(t->cost.size(), 2u);
  EXPECT_EQ(t->BestValue(), 0.3);
  EXPECT_THAT(KeepFirstConfigurations(3, *t).message(),
              HasSubstr("configurations: 3 is not in [1, 2]"));
  EXPECT_FALSE(KeepFirstConfigurations(0, *t).ok());
  std::filesystem::remove_all(dir);
}

TEST(LoadCurveTableTest, ACutGzipTableIsRefusedNamingTheFile) {
  const auto dir = GzipTable("curve_table_cut_", "0,0.01,0.9,0.5,0.1,0.2\n");
  const auto path = dir / "t.csv.gz";
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 12);
  const absl::Status status = LoadCurveTable(dir.string(), "t").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss) << status;
  EXPECT_THAT(status.message(), HasSubstr("t.csv.gz"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hptune::curves

// A conditional search space through `hptune run`, the binary, with a real
// trainer that exits 1 (saying why on stderr) if it receives a parameter
// its parent's value leaves inactive, misses an active one, or gets them
// out of the space's order; then `hptune trials list` leaves the inactive
// ones empty in CSV and absent in JSON.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using testing::RunProcess;

constexpr char kHptune[] = HPTUNE_BINARY;

// optimizer: sgd -> momentum; adam -> beta2, layers; layers 2|3 -> width.
// Then lr, a root after the tree. The trainer works out which parameters
// its values activate and wants exactly those, in this order.
constexpr char kTrainer[] = R"(import json, os, sys, time
ORDER = ["optimizer", "momentum", "beta2", "layers", "width", "lr"]
got = [a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--")]
names = [n for n, _ in got]
values = dict(got)
want = ["optimizer", "lr"]
if values.get("optimizer") == "sgd":
    want.append("momentum")
elif values.get("optimizer") == "adam":
    want += ["beta2", "layers"]
    if values.get("layers") in ("2", "3"):
        want.append("width")
want.sort(key=ORDER.index)
if names != want:
    sys.stderr.write("trainer: got parameters %s, expected %s\n" % (names, want))
    sys.exit(1)
loss = float(values["lr"]) + (0.5 if values["optimizer"] == "sgd" else 0)
with open(os.environ["CLOUD_ML_HP_METRIC_FILE"] + ".tmp", "w") as f:
    f.write(json.dumps({"global_step": "1", "loss": loss,
                        "timestamp": time.time()}) + "\n")
os.rename(os.environ["CLOUD_ML_HP_METRIC_FILE"] + ".tmp",
          os.environ["CLOUD_ML_HP_METRIC_FILE"])
)";

std::string Config(const std::string& dir, const std::string& algorithm) {
  std::string config =
      "trainingInput:\n"
      "  command: [python3, " +
      dir +
      "/train.py]\n"
      "  hyperparameters:\n"
      "    goal: MINIMIZE\n"
      "    hyperparameterMetricTag: loss\n"
      "    maxTrials: 12\n"
      "    maxParallelTrials: 2\n"
      "    seed: 7\n";
  if (!algorithm.empty()) config += "    algorithm: " + algorithm + "\n";
  config +=
      "    params:\n"
      "    - parameterName: optimizer\n"
      "      type: CATEGORICAL\n"
      "      categoricalValues: [sgd, adam]\n"
      "      conditionalParameterSpecs:\n"
      "      - parentCategoricalValues: {values: [sgd]}\n"
      "        parameterSpec: {parameterName: momentum, type: DOUBLE, "
      "minValue: 0, maxValue: 0.99}\n"
      "      - parentCategoricalValues: {values: [adam]}\n"
      "        parameterSpec: {parameterName: beta2, type: DOUBLE, minValue: "
      "0.9, maxValue: 0.9999, scaleType: UNIT_REVERSE_LOG_SCALE}\n"
      "      - parentCategoricalValues: {values: [adam]}\n"
      "        parameterSpec:\n"
      "          parameterName: layers\n"
      "          type: INTEGER\n"
      "          minValue: 1\n"
      "          maxValue: 3\n"
      "          conditionalParameterSpecs:\n"
      "          - parentIntValues: {values: [2, 3]}\n"
      "            parameterSpec: {parameterName: width, type: INTEGER, "
      "minValue: 8, maxValue: 64}\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: "
      "0.1, scaleType: UNIT_LOG_SCALE}\n";
  return config;
}

class ConditionalRunTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConditionalRunTest, TheTrainerGetsExactlyTheActiveParameters) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/train.py") << kTrainer;
  std::ofstream(dir + "/config.yaml") << Config(dir, GetParam());
  testing::ProcessResult result = RunProcess(
      {kHptune, "run", dir + "/config.yaml", "--job-id", "tree", "--db",
       dir + "/h.db", "--runs-dir", dir + "/runs", "--quiet"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;

  auto store = store::SqliteStore::Open(dir + "/h.db", hptune::SystemClock());
  ASSERT_OK(store);
  auto trials = (*store)->ListTrials("tree");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 12u);
  std::set<std::string> optimizers;
  int deep = 0;
  for (const Trial& t : *trials) {
    // A failed trial's reason has the trainer's stderr in its replica log.
    EXPECT_EQ(t.state, TrialState::kSucceeded)
        << "trial " << t.number << ": " << t.reason;
    optimizers.insert(t.parameters.at("optimizer").AsString());
    deep += t.parameters.contains("width");
  }
  EXPECT_EQ(optimizers, (std::set<std::string>{"adam", "sgd"}));
  EXPECT_GT(deep, 0) << "no trial reached the depth-2 parameter width";

  // CSV: one column per parameter of the tree, inactive ones empty.
  auto csv = RunProcess({kHptune, "trials", "list", "--study", "tree", "--db",
                         dir + "/h.db", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> lines =
      absl::StrSplit(csv.out, "\r\n", absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 13u) << csv.out;
  const std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  ASSERT_GE(header.size(), 8u);
  EXPECT_EQ(std::vector<std::string>(header.begin() + 2, header.begin() + 8),
            (std::vector<std::string>{"optimizer", "momentum", "beta2",
                                      "layers", "width", "lr"}));
  for (size_t row = 1; row < lines.size(); ++row) {
    const std::vector<std::string> cells = absl::StrSplit(lines[row], ',');
    ASSERT_GE(cells.size(), 8u) << lines[row];
    const bool sgd = cells[2] == "sgd";
    EXPECT_EQ(cells[3].empty(), !sgd) << lines[row];  // momentum
    EXPECT_EQ(cells[4].empty(), sgd) << lines[row];   // beta2
    EXPECT_EQ(cells[5].empty(), sgd) << lines[row];   // layers
    EXPECT_EQ(cells[6].empty(), sgd || cells[5] == "1") << lines[row];
    EXPECT_FALSE(cells[7].empty()) << lines[row];  // lr
  }

  // JSON: an inactive parameter is absent from the trial's hyperparameters.
  auto json = RunProcess({kHptune, "trials", "list", "--study", "tree", "--db",
                          dir + "/h.db", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  ASSERT_EQ(parsed.size(), 12u);
  for (const auto& trial : parsed) {
    const auto& h = trial["hyperparameters"];
    const bool sgd = h["optimizer"] == "sgd";
    EXPECT_EQ(h.contains("momentum"), sgd) << h.dump();
    EXPECT_EQ(h.contains("beta2"), !sgd) << h.dump();
    EXPECT_EQ(h.contains("layers"), !sgd) << h.dump();
    EXPECT_EQ(h.contains("width"),
              !sgd && h.contains("layers") && h["layers"] != "1")
        << h.dump();
  }
}

// `hptune validate` prints the tree: a child indented under its parent,
// with the parent values that activate it.
TEST(ConditionalValidateTest, PrintsTheTreeWithTheActivatingValues) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/train.py") << kTrainer;
  std::ofstream(dir + "/config.yaml") << Config(dir, "RANDOM_SEARCH");
  testing::ProcessResult result =
      RunProcess({kHptune, "validate", dir + "/config.yaml"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::vector<std::string> rows;
  for (absl::string_view line : absl::StrSplit(result.out, '\n')) {
    for (const char* name :
         {"optimizer ", "momentum ", "beta2 ", "layers ", "width ", "lr "}) {
      if (absl::StrContains(line, name)) {
        rows.push_back(std::string(line));
        break;
      }
    }
  }
  ASSERT_EQ(rows.size(), 6u) << result.out;
  const auto indent = [](const std::string& row) {
    return row.find_first_not_of(' ');
  };
  // The rows of the table share its own indent; children add 2 per level.
  const size_t base = indent(rows[0]);
  EXPECT_EQ(indent(rows[1]), base + 2) << rows[1];
  EXPECT_EQ(indent(rows[2]), base + 2) << rows[2];
  EXPECT_EQ(indent(rows[3]), base + 2) << rows[3];
  EXPECT_EQ(indent(rows[4]), base + 4) << rows[4];
  EXPECT_EQ(indent(rows[5]), base) << rows[5];
  EXPECT_THAT(rows[1], ::testing::EndsWith("optimizer = sgd"));
  EXPECT_THAT(rows[2], ::testing::EndsWith("optimizer = adam"));
  EXPECT_THAT(rows[4], ::testing::EndsWith("layers in {2, 3}"));
  EXPECT_THAT(rows[5], ::testing::EndsWith(" -"));
}

// RANDOM_SEARCH, and the default (the GP), which imputes inactive
// parameters.
INSTANTIATE_TEST_SUITE_P(Algorithms, ConditionalRunTest,
                         ::testing::Values("RANDOM_SEARCH", ""),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.empty() ? std::string("Default")
                                                     : info.param;
                         });

}  // namespace
}  // namespace hptune

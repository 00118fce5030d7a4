#include "tests/store/store_test_util.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <vector>

namespace hptune::store::test {

TempDir::TempDir() {
  std::string base = ::testing::TempDir();
  if (!base.empty() && base.back() == '/') base.pop_back();
  std::string pattern = base + "/hptune_store_XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << pattern;
  }
  path_ = buffer.data();
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::File(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

RawDb::RawDb(const std::string& path) {
  EXPECT_EQ(sqlite3_open(path.c_str(), &db_), SQLITE_OK) << path;
}

RawDb::~RawDb() { sqlite3_close(db_); }

void RawDb::Exec(const std::string& sql) {
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << sql << ": " << (error ? error : "");
  sqlite3_free(error);
}

std::vector<std::string> RawDb::Query(const std::string& sql) {
  std::vector<std::string> rows;
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
      << sql << ": " << sqlite3_errmsg(db_);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt, 0);
    rows.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
  }
  sqlite3_finalize(stmt);
  return rows;
}

void ExpectWorkloadHistory(Store& store, const std::string& study, int clients,
                           int trials_per_client, int measurements) {
  const int total = clients * trials_per_client;
  absl::StatusOr<std::vector<Trial>> trials = store.ListTrials(study);
  ASSERT_EQ(trials.status(), absl::OkStatus());
  ASSERT_EQ(trials->size(), static_cast<size_t>(total));
  std::map<std::string, int> per_client;
  for (int i = 0; i < total; ++i) {
    const Trial& trial = (*trials)[i];
    EXPECT_EQ(trial.number, i + 1);
    EXPECT_EQ(trial.state, TrialState::kSucceeded) << "trial " << i + 1;
    EXPECT_EQ(trial.measurements.size(), static_cast<size_t>(measurements))
        << "trial " << i + 1;
    ++per_client[trial.client_id];
  }
  EXPECT_EQ(per_client.size(), static_cast<size_t>(clients));
  for (const auto& [client, count] : per_client) {
    EXPECT_EQ(count, trials_per_client) << client;
  }
  // Per trial: trial_created, two trial_state, one event per measurement.
  std::map<std::string, int> kinds;
  absl::StatusOr<std::vector<Event>> events = store.ListEvents(0, 1 << 30);
  ASSERT_EQ(events.status(), absl::OkStatus());
  for (const Event& event : *events) {
    if (event.study == study) ++kinds[event.kind];
  }
  EXPECT_EQ(kinds["trial_created"], total);
  EXPECT_EQ(kinds["trial_state"], 2 * total);
  EXPECT_EQ(kinds["measurement"], measurements * total);
}

StudyRecord MakeStudy(std::string name) {
  StudyRecord study;
  study.name = std::move(name);
  ParameterSpec lr;
  lr.name = "lr";
  lr.type = ParameterType::kDouble;
  lr.min_value = 1e-5;
  lr.max_value = 1e-1;
  lr.scale = ScaleType::kLog;
  ParameterSpec layers;
  layers.name = "layers";
  layers.type = ParameterType::kInteger;
  layers.min_value = 1;
  layers.max_value = 8;
  layers.scale = ScaleType::kLinear;
  ParameterSpec width;
  width.name = "width";
  width.type = ParameterType::kDiscrete;
  width.discrete_values = {32, 64, 128};
  ParameterSpec cell;
  cell.name = "cell";
  cell.type = ParameterType::kCategorical;
  cell.categorical_values = {"GRU", "LSTM"};
  study.spec.search_space = SearchSpace({lr, layers, width, cell});
  study.spec.SetSingleMetric("accuracy", Goal::kMaximize);
  study.spec.max_trials = 20;
  study.spec.max_parallel_trials = 2;
  study.spec.algorithm = Algorithm::kRandomSearch;
  study.seed = 42;
  return study;
}

Trial MakeTrial(double lr) {
  Trial trial;
  trial.parameters = {{"lr", ParameterValue::Double(lr)},
                      {"layers", ParameterValue::Integer(3)},
                      {"width", ParameterValue::Double(64)},
                      {"cell", ParameterValue::Categorical("GRU")}};
  trial.origin = "random";
  return trial;
}

Measurement MakeMeasurement(int64_t step, double accuracy) {
  Measurement m;
  m.step = step;
  m.time = FromUnixMicros(1'700'000'000'000'000 + step);
  m.metrics = {{"accuracy", accuracy}, {"loss", 1 - accuracy}};
  return m;
}

}  // namespace hptune::store::test

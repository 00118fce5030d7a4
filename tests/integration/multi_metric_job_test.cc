// A study of two objectives and a constraint end to end: a job run by
// `hptune run` with a trainer that reports all three metrics on one line,
// then served by `hptune serve`: ListOptimalTrials over gRPC returns exactly
// the non-dominated feasible trials, and `jobs describe --format json`
// marks them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

constexpr double kMemoryLimit = 200;

std::string WriteConfig(const std::string& dir) {
  const std::string path = dir + "/two_metrics.yaml";
  std::ofstream(path) << "trainingInput:\n"
                         "  command: [python3, "
                      << testing::SourceDir()
                      << "/tests/integration/testdata/two_metric_trainer.py]\n"
                         "  hyperparameters:\n"
                         "    metrics:\n"
                         "    - {metricId: accuracy, goal: MAXIMIZE}\n"
                         "    - {metricId: latency_ms, goal: MINIMIZE}\n"
                         "    - {metricId: memory_mb, goal: MINIMIZE, "
                         "safetyThreshold: 200}\n"
                         "    maxTrials: 14\n"
                         "    maxParallelTrials: 2\n"
                         "    seed: 5\n"
                         "    params:\n"
                         "    - {parameterName: x, type: DOUBLE, minValue: 0, "
                         "maxValue: 1}\n"
                         "    - {parameterName: y, type: DOUBLE, minValue: 0, "
                         "maxValue: 1}\n";
  return path;
}

// The optimal trials by the definition, computed here from the trials'
// final metrics: feasible (memory within the limit), and no other feasible
// trial at least as good in both objectives and better in one.
std::set<int64_t> ExpectedFront(const std::vector<v1::Trial>& trials) {
  struct Point {
    int64_t number;
    double accuracy, latency;
  };
  std::vector<Point> feasible;
  for (const v1::Trial& t : trials) {
    if (t.state() != v1::Trial::SUCCEEDED) continue;
    const auto& m = t.final_measurement().metrics();
    if (m.at("memory_mb") > kMemoryLimit) continue;
    feasible.push_back({t.id(), m.at("accuracy"), m.at("latency_ms")});
  }
  std::set<int64_t> front;
  for (const Point& p : feasible) {
    bool dominated = false;
    for (const Point& q : feasible) {
      dominated =
          dominated || (q.accuracy >= p.accuracy && q.latency <= p.latency &&
                        (q.accuracy > p.accuracy || q.latency < p.latency));
    }
    if (!dominated) front.insert(p.number);
  }
  return front;
}

TEST(MultiMetricJobTest, OptimalTrialsAreTheFeasibleParetoFront) {
  for (const char* name :
       {"HPTUNE_SERVER", "HPTUNE_TOKEN", "HPTUNE_TLS_CA", "HPTUNE_DB"}) {
    unsetenv(name);
  }
  const std::string dir = testing::MakeTempDir();
  const testing::ProcessResult run = testing::RunProcess(
      {testing::HptuneBinary(), "run", WriteConfig(dir), "--job-id", "mo_1",
       "--db", dir + "/hptune.db", "--runs-dir", dir + "/runs", "--quiet"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  ServeProcess server(dir);
  std::string error;
  ASSERT_TRUE(server.Start(&error)) << error;

  v1::ListTrialsRequest list_request;
  list_request.set_study("mo_1");
  v1::ListTrialsResponse listed;
  ASSERT_TRUE(server.StudyStub()
                  ->ListTrials(Context().get(), list_request, &listed)
                  .ok());
  std::vector<v1::Trial> trials(listed.trials().begin(), listed.trials().end());
  ASSERT_EQ(trials.size(), 14u);
  int infeasible = 0;
  for (const v1::Trial& t : trials) {
    ASSERT_EQ(t.state(), v1::Trial::SUCCEEDED) << t.id();
    const auto& m = t.final_measurement().metrics();
    for (const char* metric : {"accuracy", "latency_ms", "memory_mb"}) {
      ASSERT_TRUE(m.contains(metric)) << metric << ": all from one line";
    }
    if (m.at("memory_mb") > kMemoryLimit) ++infeasible;
  }
  const std::set<int64_t> expected = ExpectedFront(trials);
  ASSERT_FALSE(expected.empty());

  v1::ListOptimalTrialsRequest request;
  request.set_study("mo_1");
  v1::ListOptimalTrialsResponse optimal;
  ASSERT_TRUE(server.StudyStub()
                  ->ListOptimalTrials(Context().get(), request, &optimal)
                  .ok());
  std::set<int64_t> got;
  for (const v1::Trial& t : optimal.optimal_trials()) got.insert(t.id());
  EXPECT_EQ(got, expected) << infeasible << " infeasible trials";

  const testing::ProcessResult describe =
      testing::RunProcess({testing::HptuneBinary(), "jobs", "describe", "mo_1",
                           "--format", "json", "--server", server.address()});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  const nlohmann::json job = nlohmann::json::parse(describe.out);
  const nlohmann::json& output = job.at("trainingOutput");
  std::set<int64_t> ids, marked;
  for (const auto& id : output.at("optimalTrialIds")) {
    ids.insert(std::stoll(id.get<std::string>()));
  }
  for (const auto& t : output.at("trials")) {
    EXPECT_TRUE(t.at("finalMetrics").contains("memory_mb"));
    if (t.value("isOptimal", false)) {
      marked.insert(std::stoll(t.at("trialId").get<std::string>()));
    }
  }
  EXPECT_EQ(ids, expected);
  EXPECT_EQ(marked, expected);
  const auto& metrics =
      job.at("trainingInput").at("hyperparameters").at("metrics");
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[2].at("safetyThreshold"), 200);

  const testing::ProcessResult human =
      testing::RunProcess({testing::HptuneBinary(), "jobs", "describe", "mo_1",
                           "--server", server.address()});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out,
              HasSubstr("metrics:    MAXIMIZE accuracy, MINIMIZE latency_ms, "
                        "MINIMIZE memory_mb (constraint: <= 200)\n"));
  EXPECT_THAT(human.out,
              HasSubstr("optimal trials (the feasible Pareto front): "));
}

}  // namespace
}  // namespace hptune

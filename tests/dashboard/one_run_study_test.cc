// The dashboard on the study of a job without one (a CustomJob, run once:
// RunStudyOf), as the runner stores it: no parameters, one trial without a
// final measurement. Every study page's answer is 200 and JSON (CSV for the
// export), never an error or a crash: a real SQLite file and DashboardServer
// on 127.0.0.1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "nlohmann/json.hpp"
#include "src/dashboard/dashboard_server.h"
#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

using Json = nlohmann::json;

constexpr char kToken[] = "test-token";

TEST(OneRunStudyTest, EveryStudyPageAnswersForAJobWithoutAStudy) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("one_run_study_test_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "runs" / "once" / "1");
  auto store = store::OpenSqliteStore((dir / "h.db").string(), SystemClock());
  ASSERT_OK(store.status());
  JobSpec job;
  job.job_id = "once";
  job.command = {"python3", "train.py"};
  ASSERT_OK((*store)->CreateStudy(
      {.name = "once", .spec = RunStudyOf(job), .create_time = Timestamp{}}));
  // As the runner ends it: ACTIVE, then completed by the engine.
  Trial ran{.state = TrialState::kActive,
            .measurements = {Measurement{.step = 1, .metrics = {{"m", 0.5}}}},
            .origin = "one run"};
  ASSERT_OK((*store)->AddTrials("once", {ran}, std::nullopt).status());
  engine::TuningEngine engine(**store, SystemClock());
  ASSERT_OK(engine.CompleteTrial("once", 1, std::nullopt).status());
  ASSERT_OK(
      (*store)->CreateJob({.job_id = "once",
                           .training_input_json = TrainingInputToJson(job),
                           .study_name = "once",
                           .state = JobState::kSucceeded}));

  DashboardOptions options;
  options.env = &DefaultEnv();
  options.address = "127.0.0.1:0";
  options.token = kToken;
  options.state_dir = dir / "runs";
  auto server = DashboardServer::Start(**store, std::move(options));
  ASSERT_OK(server.status());
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_read_timeout(30, 0);
  const httplib::Headers auth = {
      {"Authorization", std::string("Bearer ") + kToken}};
  for (const std::string path :
       {"/api/studies", "/api/studies/once", "/api/studies/once/trials",
        "/api/studies/once/history", "/api/studies/once/points",
        "/api/studies/once/pareto", "/api/studies/once/curves",
        "/api/studies/once/importance", "/api/studies/once/timeline",
        "/api/studies/once/edf", "/api/studies/once/rank",
        "/api/studies/once/trials/1", "/api/studies/once/trials.json",
        "/api/compare?studies=once"}) {
    SCOPED_TRACE(path);
    auto answer = client.Get(path, auth);
    ASSERT_TRUE(answer);
    EXPECT_EQ(answer->status, 200) << answer->body;
    EXPECT_TRUE(Json::accept(answer->body)) << answer->body;
  }
  auto csv = client.Get("/api/studies/once/trials.csv", auth);
  ASSERT_TRUE(csv);
  EXPECT_EQ(csv->status, 200) << csv->body;
  (*server).reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hptune::dashboard

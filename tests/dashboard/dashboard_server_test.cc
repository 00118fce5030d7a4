// The dashboard's HTTP server for real: a SQLite file, a DashboardServer on
// 127.0.0.1 (and TLS on the any-address), requests over TCP with
// cpp-httplib's client.
#include "src/dashboard/dashboard_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "nlohmann/json.hpp"
#include "tests/testing/self_signed.h"
#include "tests/testing/status_matchers.h"

namespace hptune::dashboard {
namespace {

using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::HasSubstr;
using Json = nlohmann::json;

constexpr char kToken[] = "test-token";

StudyRecord Study() {
  StudyRecord study;
  study.name = "job1";
  study.spec.SetSingleMetric("acc", Goal::kMaximize);
  study.spec.max_trials = 10;
  study.spec.max_parallel_trials = 2;
  study.spec.search_space =
      SearchSpace({{.name = "lr",
                    .type = ParameterType::kDouble,
                    .min_value = 1e-4,
                    .max_value = 1,
                    .scale = ScaleType::kLog},
                   {.name = "opt",
                    .type = ParameterType::kCategorical,
                    .categorical_values = {"adam", "sgd"}}});
  return study;
}

Trial Finished(double lr, double acc) {
  Trial trial;
  trial.state = TrialState::kSucceeded;
  trial.parameters = {{"lr", ParameterValue::Double(lr)},
                      {"opt", ParameterValue::Categorical("adam")}};
  trial.final_measurement = Measurement{.step = 10, .metrics = {{"acc", acc}}};
  return trial;
}

class DashboardServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dashboard_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ / "runs" / "job1" / "1");
    auto store =
        store::OpenSqliteStore((dir_ / "h.db").string(), SystemClock());
    ASSERT_OK(store.status());
    store_ = *std::move(store);
    ASSERT_OK(store_->CreateStudy(Study()));
    ASSERT_OK(store_
                  ->AddTrials("job1",
                              {Finished(0.1, 0.5), Finished(0.01, 0.9),
                               Finished(0.001, 0.7)},
                              std::nullopt)
                  .status());
    JobRecord job;
    job.job_id = "job1";
    job.study_name = "job1";
    job.training_input_json = R"({"hyperparameters": {}})";
    ASSERT_OK(store_->CreateJob(job));
    std::ofstream(dir_ / "runs" / "job1" / "1" / "master-0.log")
        << "epoch 1\nepoch 2\n";
  }
  void TearDown() override {
    server_.reset();
    engine_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  DashboardOptions Options() {
    DashboardOptions options;
    options.env = &DefaultEnv();
    options.address = "127.0.0.1:0";
    options.token = kToken;
    options.state_dir = dir_ / "runs";
    options.actions.cancel_job =
        [this](std::string_view job) -> absl::StatusOr<JobRecord> {
      cancelled_.push_back(std::string(job));
      JobRecord record;
      record.job_id = std::string(job);
      record.state = JobState::kCancelling;
      return record;
    };
    // The engine's DeleteStudy, as `hptune serve` gives it.
    engine_ =
        std::make_unique<engine::TuningEngine>(*store_, hptune::SystemClock());
    options.actions.delete_study = [this](std::string_view study) {
      return engine_->DeleteStudy(study);
    };
    options.actions.complete_trial = [this](std::string_view study,
                                            int64_t trial, Measurement final) {
      return engine_->CompleteTrial(study, trial, std::move(final));
    };
    options.actions.mark_infeasible =
        [this](std::string_view study, int64_t trial, std::string_view reason) {
          return engine_->MarkTrialInfeasible(study, trial, reason);
        };
    options.actions.set_note = [this](std::string_view study, int64_t trial,
                                      std::string_view text,
                                      store::NoteEdit edit) {
      return store_->SetNote(study, trial, text, std::move(edit));
    };
    return options;
  }
  void Start(DashboardOptions options) {
    auto server = DashboardServer::Start(*store_, std::move(options));
    ASSERT_OK(server.status());
    server_ = *std::move(server);
  }
  httplib::Client Client() {
    httplib::Client client("127.0.0.1", server_->port());
    client.set_read_timeout(30, 0);
    return client;
  }
  // The session cookie a login with the token sets.
  std::string LogIn() {
    auto res = Client().Post("/login", "token=" + std::string(kToken),
                             "application/x-www-form-urlencoded");
    EXPECT_TRUE(res);
    if (!res) return "";
    EXPECT_EQ(res->status, 303);
    const std::string cookie = res->get_header_value("Set-Cookie");
    return cookie.substr(0, cookie.find(';'));
  }

  std::filesystem::path dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<engine::TuningEngine> engine_;
  std::unique_ptr<DashboardServer> server_;
  std::vector<std::string> cancelled_;
};

TEST_F(DashboardServerTest, EveryRequestWithoutTheTokenIsRefused) {
  Start(Options());
  auto api = Client().Get("/api/studies");
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 401);
  EXPECT_THAT(api->body, HasSubstr("log in at /login"));
  auto page = Client().Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 303);
  EXPECT_EQ(page->get_header_value("Location"), "/login");
  auto wrong = Client().Get("/api/studies", {{"Authorization", "Bearer nope"}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  auto login_page = Client().Get("/login");
  ASSERT_TRUE(login_page);
  EXPECT_EQ(login_page->status, 200);
  EXPECT_THAT(login_page->get_header_value("Content-Security-Policy"),
              HasSubstr("default-src 'self'"));
  EXPECT_EQ(login_page->get_header_value("X-Frame-Options"), "DENY");
}

TEST_F(DashboardServerTest, ALoginSetsASessionCookieThatIsNotTheToken) {
  Start(Options());
  auto failed = Client().Post("/login", "token=wrong",
                              "application/x-www-form-urlencoded");
  ASSERT_TRUE(failed);
  EXPECT_THAT(failed->get_header_value("Location"),
              ::testing::StartsWith("/login?failed=1&next="));
  EXPECT_FALSE(failed->has_header("Set-Cookie"));
  // A wrong token keeps where the user was going (escaped on the wire;
  // httplib's client decodes a Location header).
  auto deep = Client().Post("/login", "token=wrong&next=%2F%23%2Fstudy%2Fs1",
                            "application/x-www-form-urlencoded");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->get_header_value("Location"),
            "/login?failed=1&next=/#/study/s1");
  const std::string cookie = LogIn();
  EXPECT_THAT(cookie, HasSubstr("hptune_session="));
  EXPECT_THAT(cookie, ::testing::Not(HasSubstr(kToken)));
  auto studies = Client().Get("/api/studies", {{"Cookie", cookie}});
  ASSERT_TRUE(studies);
  ASSERT_EQ(studies->status, 200) << studies->body;
  Json body = Json::parse(studies->body);
  ASSERT_EQ(body["studies"].size(), 1u);
  EXPECT_EQ(body["studies"][0]["name"], "job1");
  EXPECT_EQ(body["studies"][0]["counts"]["SUCCEEDED"], 3);
  EXPECT_EQ(body["studies"][0]["best"]["trial"], 2);
  EXPECT_EQ(body["studies"][0]["job"]["id"], "job1");
  // An open redirect after login is not possible.
  auto away = Client().Post(
      "/login", "token=" + std::string(kToken) + "&next=//evil.example/",
      "application/x-www-form-urlencoded");
  ASSERT_TRUE(away);
  EXPECT_EQ(away->get_header_value("Location"), "/");
}

// After login the dashboard goes where `next` says, on its own origin
// only: a browser drops the tab or newline of "/%09/host" and reads a
// backslash as a slash, which made "//host", another site.
TEST_F(DashboardServerTest, LoginNeverRedirectsOffTheDashboard) {
  Start(Options());
  for (const std::string next :
       {"/%09/evil.example/", "/%0A/evil.example/", "/%0D%0A/evil.example/",
        "%09//evil.example/", "/%5Cevil.example/", "/%7F/evil.example/",
        "https://evil.example/", "%2F%2Fevil.example%2F"}) {
    auto away = Client().Post("/login",
                              "token=" + std::string(kToken) + "&next=" + next,
                              "application/x-www-form-urlencoded");
    ASSERT_TRUE(away);
    EXPECT_EQ(away->get_header_value("Location"), "/") << next;
  }
  auto deep = Client().Post(
      "/login", "token=" + std::string(kToken) + "&next=%2F%23%2Fstudy%2Fs1",
      "application/x-www-form-urlencoded");
  ASSERT_TRUE(deep);
  EXPECT_EQ(deep->get_header_value("Location"), "/#/study/s1");
}

TEST_F(DashboardServerTest, TheTrialsTablePagesSortsAndFilters) {
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto page = Client().Get(
      "/api/studies/job1/trials?sort=value&order=desc&limit=2", auth);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200) << page->body;
  Json body = Json::parse(page->body);
  EXPECT_EQ(body["total"], 3);
  ASSERT_EQ(body["trials"].size(), 2u);
  EXPECT_EQ(body["trials"][0]["number"], 2);
  EXPECT_EQ(body["trials"][1]["number"], 3);
  auto bad = Client().Get("/api/studies/job1/trials?limit=5000", auth);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_THAT(bad->body, HasSubstr("limit \\\"5000\\\""));
  auto csv = Client().Get("/api/studies/job1/trials.csv?sort=value", auth);
  ASSERT_TRUE(csv);
  EXPECT_THAT(csv->body, HasSubstr("trialId,state,lr,opt,objective,"));
  EXPECT_THAT(csv->body, HasSubstr("2,SUCCEEDED,0.01,adam,0.9,"));
  EXPECT_EQ(csv->get_header_value("Content-Disposition"),
            "attachment; filename=\"job1-trials.csv\"");
  auto history = Client().Get("/api/studies/job1/history", auth);
  ASSERT_TRUE(history);
  Json points = Json::parse(history->body)["points"];
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2]["best"], 0.9);
  auto missing = Client().Get("/api/studies/nope", auth);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(DashboardServerTest, AStudyWhoseJobFailedSaysSo) {
  ASSERT_OK(store_
                ->UpdateJob("job1",
                            [](JobRecord& job) {
                              job.error_message = "maxFailedTrials (3) reached";
                              return job.TransitionTo(JobState::kFailed,
                                                      Timestamp{});
                            })
                .status());
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto study = Client().Get("/api/studies/job1", auth);
  ASSERT_TRUE(study);
  ASSERT_EQ(study->status, 200) << study->body;
  const Json body = Json::parse(study->body);
  EXPECT_EQ(body["state"], "FAILED");
  EXPECT_EQ(body["state_reason"], "job FAILED: maxFailedTrials (3) reached");
}

// A trainer's extra metric is a column of the table and the CSV; a running
// trial shows its latest step and value, read again as it reports; an
// unspecified algorithm is named as what runs.
TEST_F(DashboardServerTest,
       TheTableShowsEveryMetricAndARunningTrialsLatestStep) {
  Trial extra = Finished(0.05, 0.8);
  extra.final_measurement->metrics["acc_std"] = 0.25;
  Trial running = Finished(0.2, 0.1);
  running.state = TrialState::kActive;
  running.final_measurement.reset();
  ASSERT_OK(store_->AddTrials("job1", {extra, running}, std::nullopt).status());
  ASSERT_OK(store_->AddMeasurement(
      "job1", 5, Measurement{.step = 3, .metrics = {{"acc", 0.4}}}));
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto detail = Client().Get("/api/studies/job1", auth);
  ASSERT_TRUE(detail);
  const Json study = Json::parse(detail->body);
  EXPECT_EQ(study["extra_metrics"], Json::parse(R"(["acc_std"])"));
  EXPECT_EQ(study["algorithm"], "Gaussian process BO");
  auto rows = [&](const std::string& query) {
    auto page = Client().Get("/api/studies/job1/trials?" + query, auth);
    EXPECT_TRUE(page && page->status == 200) << (page ? page->body : "");
    return page ? Json::parse(page->body)["trials"] : Json::array();
  };
  Json sorted = rows("sort=metric:acc_std&states=SUCCEEDED");
  ASSERT_EQ(sorted.size(), 4u);
  EXPECT_EQ(sorted[0]["number"], 4);  // The only one with acc_std: first.
  EXPECT_EQ(sorted[0]["metrics"]["acc_std"], 0.25);
  EXPECT_EQ(rows(R"(where={"metrics":{"acc_std":[0,1]}})").size(), 1u);
  Json active = rows("states=ACTIVE");
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0]["last_step"], 3);
  EXPECT_EQ(active[0]["last_value"], 0.4);
  auto csv = Client().Get("/api/studies/job1/trials.csv", auth);
  ASSERT_TRUE(csv);
  EXPECT_THAT(csv->body, HasSubstr("trialId,state,lr,opt,objective,acc_std,"));
  EXPECT_THAT(csv->body, HasSubstr("4,SUCCEEDED,0.05,adam,0.8,0.25,false,"));
  // A new measurement moves the latest step: each request reads the event
  // log before it answers.
  ASSERT_OK(store_->AddMeasurement(
      "job1", 5, Measurement{.step = 4, .metrics = {{"acc", 0.45}}}));
  const Json latest = rows("states=ACTIVE")[0];
  EXPECT_EQ(latest["last_step"], 4);
  EXPECT_EQ(latest["last_value"], 0.45);
}

// A conditional space: opt -> momentum (sgd); a trial carries only its
// active parameters, and every view leaves the inactive ones out.
TEST_F(DashboardServerTest, InactiveConditionalParametersAreLeftEmpty) {
  StudyRecord study = Study();
  study.name = "tree";
  std::vector<ParameterSpec> parameters = study.spec.search_space.parameters();
  parameters.push_back({.name = "momentum",
                        .type = ParameterType::kDouble,
                        .min_value = 0,
                        .max_value = 1,
                        .condition = ParentCondition{
                            .parent = "opt", .categorical_values = {"sgd"}}});
  study.spec.search_space = SearchSpace(parameters);
  ASSERT_OK(store_->CreateStudy(study));
  std::vector<Trial> trials;
  for (int i = 0; i < 6; ++i) {
    Trial trial = Finished(0.1 / (i + 1), (i + 1) / 8.0);
    if (i % 2 == 1) {
      trial.parameters["opt"] = ParameterValue::Categorical("sgd");
      trial.parameters["momentum"] = ParameterValue::Double(0.5);
    }
    trials.push_back(trial);
  }
  ASSERT_OK(store_->AddTrials("tree", trials, std::nullopt).status());
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};

  auto detail = Client().Get("/api/studies/tree", auth);
  ASSERT_TRUE(detail);
  ASSERT_EQ(detail->status, 200) << detail->body;
  Json params = Json::parse(detail->body)["params"];
  ASSERT_EQ(params.size(), 3u);
  EXPECT_FALSE(params[1].contains("parent"));
  EXPECT_EQ(params[2]["parent"], "opt");
  EXPECT_EQ(params[2]["parent_values"], Json({"sgd"}));

  auto page = Client().Get("/api/studies/tree/trials", auth);
  ASSERT_TRUE(page);
  Json rows = Json::parse(page->body)["trials"];
  ASSERT_EQ(rows.size(), 6u);
  EXPECT_FALSE(rows[0]["params"].contains("momentum"));
  EXPECT_EQ(rows[1]["params"]["momentum"], 0.5);

  auto points = Client().Get("/api/studies/tree/points", auth);
  ASSERT_TRUE(points);
  Json point_rows = Json::parse(points->body)["trials"];
  ASSERT_EQ(point_rows.size(), 6u);
  for (const Json& row : point_rows) {
    EXPECT_EQ(row["x"][2].is_null(), row["x"][1] == "adam") << row.dump();
  }

  auto csv = Client().Get("/api/studies/tree/trials.csv", auth);
  ASSERT_TRUE(csv);
  EXPECT_THAT(csv->body, HasSubstr("trialId,state,lr,opt,momentum,objective,"));
  EXPECT_THAT(csv->body, HasSubstr("1,SUCCEEDED,0.1,adam,,0.125,false,"));
  EXPECT_THAT(csv->body, HasSubstr("2,SUCCEEDED,0.05,sgd,0.5,0.25,false,"));

  auto importance = Client().Get("/api/studies/tree/importance", auth);
  ASSERT_TRUE(importance);
  ASSERT_EQ(importance->status, 200) << importance->body;
  Json body = Json::parse(importance->body);
  EXPECT_EQ(body["trials"], 6);
  // 6 trials are too few to rank: the answer says so, with both counts.
  EXPECT_EQ(body["trials_needed"], 30);
  EXPECT_THAT(body["note"].get<std::string>(),
              AllOf(HasSubstr(" 6 finished trial(s)"),
                    HasSubstr("at least 30 needed")));
  EXPECT_EQ(body["bootstrap_resamples"], 200);
  for (const Json& entry : body["importances"]) {
    EXPECT_LE(entry["lower"].get<double>(), entry["importance"].get<double>());
    EXPECT_GE(entry["upper"].get<double>(), entry["importance"].get<double>());
    EXPECT_EQ(entry.contains("active_trials"), entry["param"] == "momentum");
    if (entry["param"] == "momentum") {
      EXPECT_EQ(entry["active_trials"], 3);
    }
  }
}

// The importance is kept between requests for an unchanged study and
// computed again once the study changes: a new trial is counted.
TEST_F(DashboardServerTest, TheImportanceFollowsTheStudy) {
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto get = [&] {
    auto answer = Client().Get("/api/studies/job1/importance", auth);
    EXPECT_TRUE(answer && answer->status == 200);
    return answer ? Json::parse(answer->body) : Json();
  };
  const Json first = get();
  EXPECT_EQ(first, get());
  const int trials = first["trials"].get<int>();
  ASSERT_OK(
      store_->AddTrials("job1", {Finished(0.5, 0.02)}, std::nullopt).status());
  EXPECT_EQ(get()["trials"], trials + 1);
}

// A two-objective study with a constraint: /pareto marks the feasible
// front, and a study of one metric answers with one objective.
TEST_F(DashboardServerTest, TheParetoAnswerMarksTheFeasibleFront) {
  StudyRecord study = Study();
  study.name = "pareto";
  study.spec.SetMetrics(
      {{.id = "acc", .goal = Goal::kMaximize},
       {.id = "ms", .goal = Goal::kMinimize},
       {.id = "mb", .goal = Goal::kMinimize, .safety_threshold = 100}});
  ASSERT_OK(store_->CreateStudy(study));
  auto result = [](double acc, double ms, double mb) {
    Trial trial = Finished(0.1, acc);
    trial.final_measurement->metrics = {{"acc", acc}, {"ms", ms}, {"mb", mb}};
    return trial;
  };
  Trial unfinished = Finished(0.2, 0.1);
  unfinished.state = TrialState::kActive;
  unfinished.final_measurement.reset();
  // 1 and 2 trade off; 3 is dominated by 1; 4 dominates all but is
  // infeasible; 5 is 1's duplicate (both stay optimal).
  ASSERT_OK(store_
                ->AddTrials("pareto",
                            {result(0.9, 20, 50), result(0.7, 10, 50),
                             result(0.8, 30, 50), result(0.95, 5, 500),
                             result(0.9, 20, 60), unfinished},
                            std::nullopt)
                .status());
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto res = Client().Get("/api/studies/pareto/pareto", auth);
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const Json body = Json::parse(res->body);
  EXPECT_EQ(body["objectives"],
            Json::parse(R"([{"metric": "acc", "goal": "MAXIMIZE"},
                            {"metric": "ms", "goal": "MINIMIZE"}])"));
  EXPECT_EQ(body["constraints"][0]["threshold"], 100);
  EXPECT_EQ(body["total"], 5);
  std::vector<int64_t> optimal, infeasible;
  for (const Json& t : body["trials"]) {
    if (t["optimal"].get<bool>()) optimal.push_back(t["trial"]);
    if (!t["feasible"].get<bool>()) infeasible.push_back(t["trial"]);
  }
  EXPECT_THAT(optimal, ::testing::ElementsAre(1, 2, 5));
  EXPECT_THAT(infeasible, ::testing::ElementsAre(4));
  EXPECT_EQ(body["trials"][1]["values"], Json::parse("[0.7, 10]"));
  // max_points keeps every optimal trial first.
  auto thin = Client().Get("/api/studies/pareto/pareto?max_points=3", auth);
  ASSERT_TRUE(thin);
  const Json thinned = Json::parse(thin->body);
  EXPECT_EQ(thinned["downsampled"], true);
  EXPECT_EQ(thinned["optimal"], 3);
  auto detail = Client().Get("/api/studies/pareto", auth);
  ASSERT_TRUE(detail);
  EXPECT_EQ(Json::parse(detail->body)["metrics"].size(), 3u);
  // The trials table marks the same optimal trials.
  auto table = Client().Get("/api/studies/pareto/trials", auth);
  ASSERT_TRUE(table);
  std::vector<int64_t> optimal_rows;
  const Json table_body = Json::parse(table->body);
  for (const Json& row : table_body["trials"]) {
    if (row["optimal"].get<bool>()) optimal_rows.push_back(row["number"]);
  }
  EXPECT_THAT(optimal_rows, ::testing::ElementsAre(1, 2, 5));
  // ... and the trial that breaks the constraint; the unfinished one is
  // not judged.
  std::vector<int64_t> infeasible_rows;
  for (const Json& row : table_body["trials"]) {
    if (!row.value("feasible", true)) infeasible_rows.push_back(row["number"]);
  }
  EXPECT_THAT(infeasible_rows, ::testing::ElementsAre(4));
  EXPECT_FALSE(table_body["trials"][5].contains("feasible"));
  // The CSV has a column per metric, then feasible and optimal.
  auto csv = Client().Get("/api/studies/pareto/trials.csv", auth);
  ASSERT_TRUE(csv);
  EXPECT_THAT(csv->body,
              HasSubstr(",acc,ms,mb,feasible,optimal,stoppedEarly,"));
  EXPECT_THAT(csv->body, HasSubstr(",0.9,20.0,50.0,true,true,false,"));
  EXPECT_THAT(csv->body, HasSubstr(",0.95,5.0,500.0,false,false,false,"));
  // Each plot answer views the study through the objective asked for.
  auto by_ms = Client().Get("/api/studies/pareto/history?objective=ms", auth);
  ASSERT_TRUE(by_ms);
  ASSERT_EQ(by_ms->status, 200) << by_ms->body;
  EXPECT_EQ(Json::parse(by_ms->body)["points"][1]["value"], 10);
  EXPECT_EQ(Json::parse(by_ms->body)["points"][1]["best"], 10);
  auto edf = Client().Get("/api/studies/pareto/edf?objective=ms", auth);
  ASSERT_TRUE(edf);
  EXPECT_EQ(Json::parse(edf->body)["metric"], "ms");
  EXPECT_EQ(Json::parse(edf->body)["goal"], "MINIMIZE");
  for (const char* bad : {"mb", "nope"}) {
    auto refused = Client().Get(
        std::string("/api/studies/pareto/rank?objective=") + bad, auth);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 400) << bad;
    EXPECT_THAT(refused->body, HasSubstr("its objectives: acc, ms"));
  }
  auto importance =
      Client().Get("/api/studies/pareto/importance?objective=ms", auth);
  ASSERT_TRUE(importance);
  EXPECT_EQ(importance->status, 200) << importance->body;
  auto one = Client().Get("/api/studies/job1/trials", auth);
  ASSERT_TRUE(one);
  EXPECT_FALSE(Json::parse(one->body)["trials"][0].contains("optimal"));
  auto single = Client().Get("/api/studies/job1/pareto", auth);
  ASSERT_TRUE(single);
  EXPECT_EQ(Json::parse(single->body)["objectives"].size(), 1u);
}

TEST_F(DashboardServerTest, TheTrialPageListsAndReadsReplicaLogs) {
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto trial = Client().Get("/api/studies/job1/trials/1", auth);
  ASSERT_TRUE(trial);
  ASSERT_EQ(trial->status, 200) << trial->body;
  Json body = Json::parse(trial->body);
  ASSERT_EQ(body["logs"].size(), 1u);
  EXPECT_EQ(body["logs"][0]["replica"], "master-0");
  auto log = Client().Get(
      "/api/studies/job1/trials/1/log?replica=master-0&offset=8", auth);
  ASSERT_TRUE(log);
  ASSERT_EQ(log->status, 200) << log->body;
  EXPECT_EQ(Json::parse(log->body)["text"], "epoch 2\n");
  auto escape =
      Client().Get("/api/studies/job1/trials/1/log?replica=../../h.db", auth);
  ASSERT_TRUE(escape);
  EXPECT_EQ(escape->status, 400);
}

// docs/dashboard.md: numbers that are not finite never appear. The store
// holds none (a report of one is refused), and what the dashboard computes
// from a degenerate study (every value the same: no spread, no importance)
// comes out finite or null.
TEST_F(DashboardServerTest, NumbersThatAreNotFiniteNeverAppear) {
  Trial odd = Finished(0.2, 0.6);
  odd.final_measurement->metrics["spread"] =
      std::numeric_limits<double>::infinity();
  EXPECT_FALSE(store_->AddTrials("job1", {odd}, std::nullopt).ok());
  StudyRecord flat = Study();
  flat.name = "flat";
  ASSERT_OK(store_->CreateStudy(flat));
  ASSERT_OK(store_
                ->AddTrials("flat",
                            {Finished(0.1, 0.5), Finished(0.01, 0.5),
                             Finished(0.001, 0.5), Finished(0.3, 0.5)},
                            std::nullopt)
                .status());
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  for (const char* path :
       {"/api/studies/flat", "/api/studies/flat/trials",
        "/api/studies/flat/trials/1", "/api/studies/flat/history",
        "/api/studies/flat/points", "/api/studies/flat/importance"}) {
    SCOPED_TRACE(path);
    auto res = Client().Get(path, auth);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    EXPECT_TRUE(Json::accept(res->body)) << res->body;
    for (const char* token : {"NaN", "nan", "Infinity", "inf"}) {
      EXPECT_EQ(res->body.find(token), std::string::npos) << res->body;
    }
  }
}

TEST_F(DashboardServerTest, CancellingWithTheCookieNeedsTheCsrfValue) {
  Start(Options());
  const std::string cookie = LogIn();
  auto no_csrf = Client().Post("/api/jobs/job1/cancel", {{"Cookie", cookie}},
                               "", "text/plain");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  EXPECT_TRUE(cancelled_.empty());
  auto session = Client().Get("/api/session", {{"Cookie", cookie}});
  ASSERT_TRUE(session);
  const std::string csrf = Json::parse(session->body)["csrf"];
  auto with_csrf = Client().Post("/api/jobs/job1/cancel",
                                 {{"Cookie", cookie}, {"X-Hptune-Csrf", csrf}},
                                 "", "text/plain");
  ASSERT_TRUE(with_csrf);
  EXPECT_EQ(with_csrf->status, 200) << with_csrf->body;
  EXPECT_EQ(Json::parse(with_csrf->body)["state"], "CANCELLING");
  auto anonymous = Client().Post("/api/jobs/job1/cancel", "", "text/plain");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(cancelled_, std::vector<std::string>{"job1"});
}

TEST_F(DashboardServerTest, AReadOnlyDashboardCancelsNothing) {
  DashboardOptions options = Options();
  options.actions = {};
  Start(std::move(options));
  auto res = Client().Post("/api/jobs/job1/cancel",
                           {{"Authorization", std::string("Bearer ") + kToken}},
                           "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_THAT(res->body, HasSubstr("read-only"));
  ASSERT_OK(store_->UpdateJob("job1", [](JobRecord& job) {
    job.state = JobState::kCancelled;
    return absl::OkStatus();
  }));
  auto deleted = Client().Post(
      "/api/studies/job1/delete",
      {{"Authorization", std::string("Bearer ") + kToken}}, "", "text/plain");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 403);
  EXPECT_THAT(deleted->body, HasSubstr("read-only"));
  EXPECT_OK(store_->GetStudy("job1").status());
  auto session = Client().Get(
      "/api/session", {{"Authorization", std::string("Bearer ") + kToken}});
  ASSERT_TRUE(session);
  EXPECT_EQ(Json::parse(session->body)["read_only"], true);
}

TEST_F(DashboardServerTest, AStudyWhoseJobHasNotEndedIsNotDeleted) {
  Start(Options());
  auto res = Client().Post("/api/studies/job1/delete",
                           {{"Authorization", std::string("Bearer ") + kToken}},
                           "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  EXPECT_THAT(Json::parse(res->body)["error"].get<std::string>(),
              AllOf(HasSubstr("\"job1\""), HasSubstr("QUEUED"),
                    HasSubstr("cancel the job first")));
  EXPECT_OK(store_->GetStudy("job1").status());
}

TEST_F(DashboardServerTest, DeletingAStudyNeedsTheCsrfValueAndEmptiesTheFile) {
  StudyRecord spare = Study();
  spare.name = "spare";
  ASSERT_OK(store_->CreateStudy(spare));
  ASSERT_OK(
      store_->AddTrials("spare", {Finished(0.1, 0.5)}, std::nullopt).status());
  Start(Options());
  const std::string cookie = LogIn();
  auto anonymous = Client().Post("/api/studies/spare/delete", "", "text/plain");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  auto no_csrf = Client().Post("/api/studies/spare/delete",
                               {{"Cookie", cookie}}, "", "text/plain");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  EXPECT_OK(store_->GetStudy("spare").status());

  auto session = Client().Get("/api/session", {{"Cookie", cookie}});
  ASSERT_TRUE(session);
  const std::string csrf = Json::parse(session->body)["csrf"];
  auto deleted = Client().Post("/api/studies/spare/delete",
                               {{"Cookie", cookie}, {"X-Hptune-Csrf", csrf}},
                               "", "text/plain");
  ASSERT_TRUE(deleted);
  EXPECT_EQ(deleted->status, 200) << deleted->body;
  EXPECT_EQ(Json::parse(deleted->body)["study"], "spare");
  // Gone from the answers at once, and from the file (opened afresh).
  auto list = Client().Get("/api/studies", {{"Cookie", cookie}});
  ASSERT_TRUE(list);
  const Json listed = Json::parse(list->body);
  for (const Json& study : listed["studies"]) {
    EXPECT_NE(study["name"], "spare");
  }
  auto gone = Client().Get("/api/studies/spare", {{"Cookie", cookie}});
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404);
  auto reopened =
      store::OpenSqliteStore((dir_ / "h.db").string(), SystemClock());
  ASSERT_OK(reopened.status());
  EXPECT_THAT((*reopened)->GetStudy("spare").status(),
              StatusIs(absl::StatusCode::kNotFound, ::testing::_));
  EXPECT_OK((*reopened)->GetStudy("job1").status());
}

TEST_F(DashboardServerTest, ANoteIsSavedWithItsAuditRowAndReadBack) {
  Start(Options());
  const std::string cookie = LogIn();
  auto session = Client().Get("/api/session", {{"Cookie", cookie}});
  ASSERT_TRUE(session);
  const std::string csrf = Json::parse(session->body)["csrf"];
  const httplib::Headers with_csrf = {
      {"Cookie", cookie}, {"X-Hptune-Csrf", csrf}, {"User-Agent", "note-test"}};
  const std::string text = "# lr sweep\n<script>alert(1)</script>";
  auto saved = Client().Post("/api/studies/job1/trials/2/note", with_csrf,
                             Json{{"text", text}}.dump(), "application/json");
  ASSERT_TRUE(saved);
  ASSERT_EQ(saved->status, 200) << saved->body;
  const Json answer = Json::parse(saved->body);
  EXPECT_EQ(answer["text"], text);
  ASSERT_EQ(answer["edits"].size(), 1u);
  EXPECT_THAT(answer["edits"][0]["peer"].get<std::string>(),
              ::testing::StartsWith("127.0.0.1:"));
  EXPECT_EQ(answer["edits"][0]["client"], "session cookie (note-test)");
  EXPECT_EQ(answer["edits"][0]["bytes"], text.size());

  auto read =
      Client().Get("/api/studies/job1/trials/2/note", {{"Cookie", cookie}});
  ASSERT_TRUE(read);
  EXPECT_EQ(Json::parse(read->body)["text"], text);
  auto study_note =
      Client().Get("/api/studies/job1/note", {{"Cookie", cookie}});
  ASSERT_TRUE(study_note);
  EXPECT_EQ(Json::parse(study_note->body)["text"], "");
  ASSERT_OK_AND_ASSIGN(store::Note stored, store_->GetNote("job1", 2));
  EXPECT_EQ(stored.text, text);
  EXPECT_EQ(stored.edits.size(), 1u);
}

TEST_F(DashboardServerTest, ANoteNeedsTheCsrfValueAWritableDashboardAndALimit) {
  DashboardOptions options = Options();
  Start(Options());
  const std::string cookie = LogIn();
  const std::string body = Json{{"text", "x"}}.dump();
  auto no_csrf = Client().Post("/api/studies/job1/note", {{"Cookie", cookie}},
                               body, "application/json");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  auto anonymous =
      Client().Post("/api/studies/job1/note", body, "application/json");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  const httplib::Headers bearer = {
      {"Authorization", std::string("Bearer ") + kToken}};
  auto large = Client().Post(
      "/api/studies/job1/note", bearer,
      Json{{"text", std::string(store::kMaxNoteBytes + 1, 'x')}}.dump(),
      "application/json");
  ASSERT_TRUE(large);
  EXPECT_EQ(large->status, 413);
  EXPECT_THAT(large->body, HasSubstr("note: 32769 bytes, at most 32768"));
  auto not_json =
      Client().Post("/api/studies/job1/note", bearer, "text", "text/plain");
  ASSERT_TRUE(not_json);
  EXPECT_EQ(not_json->status, 400);
  auto no_trial = Client().Post("/api/studies/job1/trials/99/note", bearer,
                                body, "application/json");
  ASSERT_TRUE(no_trial);
  EXPECT_EQ(no_trial->status, 404);
  ASSERT_OK_AND_ASSIGN(store::Note stored, store_->GetNote("job1", 0));
  EXPECT_THAT(stored.edits, ::testing::IsEmpty());

  server_.reset();
  options.actions = {};
  Start(std::move(options));
  auto read_only =
      Client().Post("/api/studies/job1/note", bearer, body, "application/json");
  ASSERT_TRUE(read_only);
  EXPECT_EQ(read_only->status, 403);
  EXPECT_THAT(read_only->body, HasSubstr("read-only"));
  auto read = Client().Get("/api/studies/job1/note", bearer);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200);
}

// An ask/tell study (no job) with two ACTIVE trials.
void AddAskedStudy(store::Store& store) {
  StudyRecord asked = Study();
  asked.name = "asked";
  ASSERT_OK(store.CreateStudy(asked));
  Trial active;
  active.state = TrialState::kActive;
  active.parameters = {{"lr", ParameterValue::Double(0.01)},
                       {"opt", ParameterValue::Categorical("sgd")}};
  ASSERT_OK(store.AddTrials("asked", {active, active}, std::nullopt).status());
}

TEST_F(DashboardServerTest, AnAskedTrialIsToldThroughTheEnginesChecks) {
  AddAskedStudy(*store_);
  Start(Options());
  const httplib::Headers bearer = {
      {"Authorization", std::string("Bearer ") + kToken}};
  auto post = [&](const std::string& path, const Json& body) {
    return Client().Post(path, bearer, body.dump(), "application/json");
  };
  auto wrong_metric = post("/api/studies/asked/trials/1/complete",
                           {{"metrics", {{"loss", 0.3}}}});
  ASSERT_TRUE(wrong_metric);
  EXPECT_EQ(wrong_metric->status, 400);
  EXPECT_THAT(wrong_metric->body, HasSubstr("metric \\\"acc\\\""));
  auto not_number = post("/api/studies/asked/trials/1/complete",
                         {{"metrics", {{"acc", "high"}}}});
  ASSERT_TRUE(not_number);
  EXPECT_EQ(not_number->status, 400);
  EXPECT_THAT(not_number->body, HasSubstr("is not a finite number"));
  auto done = post("/api/studies/asked/trials/1/complete",
                   {{"metrics", {{"acc", 0.8}}}});
  ASSERT_TRUE(done);
  ASSERT_EQ(done->status, 200) << done->body;
  EXPECT_EQ(Json::parse(done->body)["state"], "SUCCEEDED");
  ASSERT_OK_AND_ASSIGN(Trial told, store_->GetTrial("asked", 1));
  EXPECT_EQ(told.state, TrialState::kSucceeded);
  ASSERT_TRUE(told.final_measurement.has_value());
  EXPECT_EQ(told.final_measurement->metrics.at("acc"), 0.8);
  auto again = post("/api/studies/asked/trials/1/complete",
                    {{"metrics", {{"acc", 0.9}}}});
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 409) << again->body;

  auto no_reason =
      post("/api/studies/asked/trials/2/infeasible", Json::object());
  ASSERT_TRUE(no_reason);
  EXPECT_EQ(no_reason->status, 400);
  auto infeasible = post("/api/studies/asked/trials/2/infeasible",
                         {{"reason", "out of memory"}});
  ASSERT_TRUE(infeasible);
  ASSERT_EQ(infeasible->status, 200) << infeasible->body;
  EXPECT_EQ(Json::parse(infeasible->body)["state"], "INFEASIBLE");
  EXPECT_EQ(Json::parse(infeasible->body)["reason"], "out of memory");
}

TEST_F(DashboardServerTest, AJobsTrialIsNotToldAndATellNeedsTheCsrfValue) {
  AddAskedStudy(*store_);
  Start(Options());
  auto job_trial = Client().Post(
      "/api/studies/job1/trials/1/complete",
      {{"Authorization", std::string("Bearer ") + kToken}},
      Json{{"metrics", {{"acc", 0.5}}}}.dump(), "application/json");
  ASSERT_TRUE(job_trial);
  EXPECT_EQ(job_trial->status, 409);
  EXPECT_THAT(job_trial->body, HasSubstr("is run by job \\\"job1\\\""));
  const std::string cookie = LogIn();
  auto no_csrf = Client().Post(
      "/api/studies/asked/trials/1/complete", {{"Cookie", cookie}},
      Json{{"metrics", {{"acc", 0.5}}}}.dump(), "application/json");
  ASSERT_TRUE(no_csrf);
  EXPECT_EQ(no_csrf->status, 403);
  ASSERT_OK_AND_ASSIGN(Trial untouched, store_->GetTrial("asked", 1));
  EXPECT_EQ(untouched.state, TrialState::kActive);

  server_.reset();
  DashboardOptions read_only = Options();
  read_only.actions = {};
  Start(std::move(read_only));
  auto refused =
      Client().Post("/api/studies/asked/trials/1/infeasible",
                    {{"Authorization", std::string("Bearer ") + kToken}},
                    Json{{"reason", "x"}}.dump(), "application/json");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
}

// Every route that ends a trial refuses a job's running trial, which its
// runner ends: job "nightly" runs study "tuned" (named apart), whose trial
// 1 is ACTIVE and would accept either result from an ask/tell client.
TEST_F(DashboardServerTest, NoTrialResultRouteEndsAJobsRunningTrial) {
  StudyRecord tuned = Study();
  tuned.name = "tuned";
  ASSERT_OK(store_->CreateStudy(tuned));
  Trial active;
  active.state = TrialState::kActive;
  active.parameters = {{"lr", ParameterValue::Double(0.01)},
                       {"opt", ParameterValue::Categorical("sgd")}};
  ASSERT_OK(store_->AddTrials("tuned", {active}, std::nullopt).status());
  JobRecord job;
  job.job_id = "nightly";
  job.study_name = "tuned";
  job.training_input_json = R"({"hyperparameters": {}})";
  job.state = JobState::kRunning;
  ASSERT_OK(store_->CreateJob(job));
  Start(Options());
  const std::vector<std::pair<std::string, Json>> routes = {
      {"complete", {{"metrics", {{"acc", 0.5}}}}},
      {"infeasible", {{"reason", "out of memory"}}}};
  for (const auto& [route, body] : routes) {
    auto res =
        Client().Post("/api/studies/tuned/trials/1/" + route,
                      {{"Authorization", std::string("Bearer ") + kToken}},
                      body.dump(), "application/json");
    ASSERT_TRUE(res) << route;
    EXPECT_EQ(res->status, 409) << route << ": " << res->body;
    EXPECT_THAT(res->body, HasSubstr("study \\\"tuned\\\" is run by job "
                                     "\\\"nightly\\\""))
        << route;
    ASSERT_OK_AND_ASSIGN(Trial untouched, store_->GetTrial("tuned", 1));
    EXPECT_EQ(untouched.state, TrialState::kActive) << route;
    EXPECT_FALSE(untouched.final_measurement.has_value()) << route;
    EXPECT_EQ(untouched.reason, "") << route;
  }
}

TEST_F(DashboardServerTest, DeletingNamesAStudyOfAtMost128Bytes) {
  Start(Options());
  const std::string name(129, 'a');
  auto res = Client().Post("/api/studies/" + name + "/delete",
                           {{"Authorization", std::string("Bearer ") + kToken}},
                           "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_THAT(res->body, HasSubstr("1 to 128 bytes, got 129"));
  auto missing = Client().Post(
      "/api/studies/nothing/delete",
      {{"Authorization", std::string("Bearer ") + kToken}}, "", "text/plain");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

// Slowloris: sockets that connect and send nothing or half a request line
// each hold a thread while httplib reads them (5 s a receive). With a fixed
// pool of 48, a thousand of them kept this request waiting 100 s.
TEST_F(DashboardServerTest, AThousandIdleSocketsDoNotDenyService) {
  constexpr int kIdle = 1000;
  rlimit files;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  files.rlim_cur = files.rlim_max;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &files), 0);
  ASSERT_GE(files.rlim_cur, 2u * kIdle + 100) << "too few file descriptors";
  Start(Options());
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(server_->port());
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::vector<int> idle;
  for (int i = 0; i < kIdle; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    idle.push_back(fd);
    ASSERT_EQ(
        connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    if (i % 2 == 1) {
      const std::string half = "GET /api/studies HTTP/1.1\r\nHo";
      ASSERT_GT(send(fd, half.data(), half.size(), 0), 0);
    }
  }
  httplib::Client client("127.0.0.1", server_->port());
  client.set_read_timeout(20, 0);
  client.set_connection_timeout(20, 0);
  auto res = client.Get("/api/studies",
                        {{"Authorization", std::string("Bearer ") + kToken}});
  for (int fd : idle) close(fd);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
}

// The guard list of docs/dashboard.md: every answer, an error's too,
// carries nosniff and no-store; a body over 64 KiB is 413 and a header over
// 8 KiB is refused, before any handler runs; the start-up link logs in.
TEST_F(DashboardServerTest, AnswersCarryTheGuardHeadersAndLimits) {
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  for (const char* path : {"/api/studies", "/api/studies/nope", "/login"}) {
    auto res = Client().Get(path, auth);
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff")
        << path;
    EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store") << path;
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "DENY") << path;
  }
  auto big_body = Client().Post("/api/jobs/job1/cancel", auth,
                                std::string((64 << 10) + 1, 'x'), "text/plain");
  ASSERT_TRUE(big_body);
  EXPECT_EQ(big_body->status, 413);
  httplib::Headers big_header = auth;
  big_header.emplace("X-Padding", std::string(8 << 10, 'h'));
  auto refused = Client().Get("/api/studies", big_header);
  EXPECT_TRUE(!refused || refused->status >= 400);
  EXPECT_TRUE(cancelled_.empty());

  auto wrong = Client().Get("/login?token=nope");
  ASSERT_TRUE(wrong);
  EXPECT_FALSE(wrong->has_header("Set-Cookie"));
  auto link = Client().Get(std::string("/login?token=") + kToken);
  ASSERT_TRUE(link);
  EXPECT_EQ(link->status, 303);
  const std::string cookie = link->get_header_value("Set-Cookie");
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, ::testing::Not(HasSubstr(kToken)));
  auto studies = Client().Get("/api/studies",
                              {{"Cookie", cookie.substr(0, cookie.find(';'))}});
  ASSERT_TRUE(studies);
  EXPECT_EQ(studies->status, 200);
}

TEST_F(DashboardServerTest, AnotherSitesHostNameIsRefused) {
  Start(Options());
  auto res = Client().Get("/api/studies",
                          {{"Authorization", std::string("Bearer ") + kToken},
                           {"Host", "evil.example"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
}

TEST_F(DashboardServerTest, TheEventStreamAnnouncesANewTrial) {
  Start(Options());
  std::mutex mu;
  std::condition_variable cv;
  std::string received;
  httplib::Client client("127.0.0.1", server_->port());
  client.set_read_timeout(60, 0);
  std::thread reader([&] {
    client.Get("/api/events",
               {{"Authorization", std::string("Bearer ") + kToken}},
               [&](const char* data, size_t size) {
                 std::lock_guard<std::mutex> lock(mu);
                 received.append(data, size);
                 cv.notify_all();
                 return received.find("event: change") == std::string::npos;
               });
  });
  std::unique_lock<std::mutex> lock(mu);
  ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] {
    return received.find(": connected") != std::string::npos;
  })) << received;
  lock.unlock();
  ASSERT_OK(
      store_->AddTrials("job1", {Finished(0.2, 0.1)}, std::nullopt).status());
  lock.lock();
  EXPECT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] {
    return received.find("event: change") != std::string::npos;
  })) << received;
  EXPECT_THAT(received, HasSubstr(R"("studies":["job1"])"));
  EXPECT_THAT(received, HasSubstr(R"({"study":"job1","trial":4})"));
  lock.unlock();
  reader.join();
}

TEST_F(DashboardServerTest, LargeAnswersAreGzippedForClientsThatTakeGzip) {
  Start(Options());
  httplib::Client client = Client();
  client.set_decompress(false);
  // A browser's header: brotli first. The answer is gzip all the same,
  // and the plot library (about 1 MiB) as well.
  const httplib::Headers browser = {
      {"Authorization", std::string("Bearer ") + kToken},
      {"Accept-Encoding", "gzip, deflate, br"}};
  auto points = client.Get("/api/studies/job1/points", browser);
  ASSERT_TRUE(points);
  EXPECT_EQ(points->status, 200);
  auto asset = client.Get("/static/echarts.min.js", browser);
  ASSERT_TRUE(asset);
  EXPECT_EQ(asset->status, 200);
  EXPECT_EQ(asset->get_header_value("Content-Encoding"), "gzip");
  EXPECT_EQ(asset->get_header_value("Vary"), "Accept-Encoding");
  EXPECT_LT(asset->body.size(), 600u << 10);
  // Without gzip in the header, the bytes as they are.
  auto plain = client.Get("/static/echarts.min.js",
                          {{"Authorization", std::string("Bearer ") + kToken},
                           {"Accept-Encoding", "br"}});
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->has_header("Content-Encoding"));
  EXPECT_GT(plain->body.size(), 900u << 10);
  // Decompressed by the client, the gzipped answer is the JSON.
  auto decoded = Client().Get("/api/studies/job1/points", browser);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(Json::parse(decoded->body)["total"], 3);
}

TEST_F(DashboardServerTest, OffLoopbackItServesTlsOnlyAndStillNeedsTheToken) {
  DashboardOptions plain = Options();
  plain.address = "0.0.0.0:0";
  EXPECT_THAT(
      DashboardServer::Start(*store_, plain).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("without TLS")));
  DashboardOptions tls = Options();
  tls.address = "0.0.0.0:0";
  hptune_testing::PemPair pair = hptune_testing::SelfSignedPair();
  tls.tls_cert = pair.cert_pem;
  tls.tls_key = pair.key_pem;
  Start(std::move(tls));
  EXPECT_THAT(server_->url(), HasSubstr("https://127.0.0.1:"));
  httplib::SSLClient client("127.0.0.1", server_->port());
  client.enable_server_certificate_verification(false);
  auto anonymous = client.Get("/api/studies");
  ASSERT_TRUE(anonymous) << httplib::to_string(anonymous.error());
  EXPECT_EQ(anonymous->status, 401);
  auto with_token = client.Get(
      "/api/studies", {{"Authorization", std::string("Bearer ") + kToken}});
  ASSERT_TRUE(with_token);
  EXPECT_EQ(with_token->status, 200);
  auto login = client.Post("/login", "token=" + std::string(kToken),
                           "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  EXPECT_THAT(login->get_header_value("Set-Cookie"), HasSubstr("; Secure"));
}

// EDF, rank, the studies compared and the progress by state, over a real
// server: acc (maximized) is 0.5, 0.9 and 0.7 for trials 1, 2 and 3.
TEST_F(DashboardServerTest, TheComparisonViewsAnswerFromTheStudy) {
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};
  auto get = [&](const std::string& path) {
    auto res = Client().Get(path, auth);
    EXPECT_TRUE(res);
    return std::pair(res ? res->status : 0,
                     res ? Json::parse(res->body) : Json());
  };
  auto [status, edf] = get("/api/studies/job1/edf");
  ASSERT_EQ(status, 200) << edf;
  // Maximized: the fraction of trials at or above each value.
  EXPECT_EQ(edf["points"],
            Json::parse("[[0.5, 1.0], [0.7, 0.6666666666666666], "
                        "[0.9, 0.3333333333333333]]"));
  EXPECT_EQ(edf["total"], 3);
  EXPECT_EQ(edf["downsampled"], false);
  auto [rank_status, rank] = get("/api/studies/job1/rank?max_points=2");
  ASSERT_EQ(rank_status, 200) << rank;
  std::map<int64_t, int64_t> ranks;
  for (const Json& t : rank["trials"]) ranks[t["trial"]] = t["rank"];
  // Thinned to 2 points, ranked among all 3.
  EXPECT_EQ(rank["trials"].size(), 2u);
  for (const auto& [trial, r] : ranks) {
    EXPECT_EQ(r, trial == 2 ? 1 : trial == 3 ? 2 : 3) << trial;
  }
  auto [compare_status, compare] = get("/api/compare?studies=job1");
  ASSERT_EQ(compare_status, 200) << compare;
  EXPECT_EQ(compare["studies"][0]["edf"], edf);
  EXPECT_EQ(compare["studies"][0]["history"]["total"], 3);
  auto [missing, missing_body] = get("/api/compare?studies=job1,nope");
  EXPECT_EQ(missing, 404);
  EXPECT_THAT(missing_body["error"].get<std::string>(), HasSubstr("nope"));
  auto [many, many_body] = get("/api/compare?studies=a,b,c,d,e,f,g,h,i");
  EXPECT_EQ(many, 400);
  EXPECT_EQ(many_body["error"],
            "studies \"a,b,c,d,e,f,g,h,i\": at most 8 studies, got 9");
  auto [bad, bad_body] = get("/api/studies/job1/edf?max_points=0");
  EXPECT_EQ(bad, 400);
  EXPECT_THAT(bad_body["error"].get<std::string>(),
              HasSubstr("max_points \"0\""));
  auto [detail_status, detail] = get("/api/studies/job1");
  ASSERT_EQ(detail_status, 200);
  EXPECT_EQ(detail["progress"]["SUCCEEDED"], 3);
  EXPECT_EQ(detail["progress"]["finished"], 3);
  EXPECT_EQ(detail["progress"]["FAILED"], 0);
}

// A trial of study "stopped" that ran `seconds` to its last step `step`.
Trial Ran(int64_t step, double seconds, bool stopped) {
  Trial trial = Finished(0.01, 0.5);
  trial.final_measurement->step = step;
  trial.stopped_early = stopped;
  trial.start_time = FromUnixMicros(1'700'000'000'000'000);
  trial.end_time = *trial.start_time + std::chrono::microseconds(
                                           static_cast<int64_t>(seconds * 1e6));
  return trial;
}

// StudySummary's early_stopping_savings: ComputeStoppingSavings over the
// stored trials, with the replicas and GPUs of the stored job's spec; null
// for a study that stops nothing.
TEST_F(DashboardServerTest, TheSummaryShowsWhatEarlyStoppingSaved) {
  StudyRecord study = Study();
  study.name = "stopped";
  study.spec.enable_early_stopping = true;
  ASSERT_OK(store_->CreateStudy(study));
  // Four ran to their end, at steps 70, 150, 90 and 110: a full trial is
  // 100 steps, the mean of the middle two (the lower is 90, the upper 110,
  // the mean of all 105), at 2 s a step. Two stopped at step 25: 75 steps
  // and 150 s each left unrun.
  ASSERT_OK(store_
                ->AddTrials("stopped",
                            {Ran(70, 140, false), Ran(150, 300, false),
                             Ran(90, 180, false), Ran(110, 220, false),
                             Ran(25, 50, true), Ran(25, 50, true)},
                            std::nullopt)
                .status());
  // A master with 2 GPUs and a worker without any: 2 replicas, 2 GPUs.
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  masterConfig: {acceleratorConfig: {count: 2, type: NVIDIA_TESLA_T4}}\n"
      "  workerType: n1-standard-4\n"
      "  workerCount: 1\n"
      "  command: [python3, train.py]\n"
      "  hyperparameters:\n"
      "    hyperparameterMetricTag: acc\n"
      "    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: "
      "1}\n");
  ASSERT_TRUE(parsed.job) << parsed.errors.size();
  JobRecord job;
  job.job_id = "stopped";
  job.study_name = "stopped";
  job.training_input_json = TrainingInputToJson(*parsed.job);
  ASSERT_OK(store_->CreateJob(job));
  Start(Options());
  httplib::Headers auth = {{"Authorization", std::string("Bearer ") + kToken}};

  auto detail = Client().Get("/api/studies/stopped", auth);
  ASSERT_TRUE(detail);
  ASSERT_EQ(detail->status, 200) << detail->body;
  const Json saved = Json::parse(detail->body)["early_stopping_savings"];
  EXPECT_EQ(saved["trials_stopped"], 2);
  EXPECT_EQ(saved["trials_run_to_end"], 4);
  EXPECT_EQ(saved["steps_run"], 470);
  EXPECT_EQ(saved["full_trial_steps"], 100.0);
  EXPECT_EQ(saved["steps_saved"], 150.0);
  EXPECT_DOUBLE_EQ(saved["trial_seconds_saved"].get<double>(), 300);
  EXPECT_DOUBLE_EQ(saved["replica_seconds_saved"].get<double>(), 600);
  EXPECT_DOUBLE_EQ(saved["gpu_seconds_saved"].get<double>(), 600);
  EXPECT_DOUBLE_EQ(saved["share_saved"].get<double>(), 150.0 / 620);
  EXPECT_THAT(saved["summary"].get<std::string>(),
              HasSubstr("2 of 6 trials stopped early; saved about 150 of 620 "
                        "steps (24%), 600 replica-seconds, 600 GPU-seconds"));

  // The studies list carries it too; job1 stops nothing: null.
  auto list = Client().Get("/api/studies", auth);
  ASSERT_TRUE(list);
  ASSERT_EQ(list->status, 200) << list->body;
  const Json listed = Json::parse(list->body);
  for (const Json& s : listed["studies"]) {
    if (s["name"] == "job1") {
      EXPECT_TRUE(s["early_stopping_savings"].is_null());
    } else {
      EXPECT_EQ(s["early_stopping_savings"]["steps_saved"], 150.0);
    }
  }
}

}  // namespace
}  // namespace hptune::dashboard

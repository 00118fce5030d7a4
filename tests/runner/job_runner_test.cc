// The job runner with the real parts: a SQLite file, the local launcher and
// real replica processes (tests/launch/testdata/dump_trainer.py, which dumps
// what it was started with and behaves as its DUMP_* knobs say). The
// lifecycle rules' every case, on a simulated clock, is in
// job_lifecycle_test.cc; these check them against real processes.
#include "hptune/runner/job_runner.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/engine/engine.h"
#include "hptune/env/clock.h"
#include "hptune/launch/local_launcher.h"
#include "nlohmann/json.hpp"
#include "src/store/sqlite_store.h"
#include "tests/testing/run_process.h"
#include "tests/testing/status_matchers.h"
#include "tests/testing/test_job.h"

namespace hptune::runner {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using json = nlohmann::json;

constexpr char kDumpTrainer[] =
    HPTUNE_SOURCE_DIR "/tests/launch/testdata/dump_trainer.py";
constexpr char kCurveTrainer[] =
    HPTUNE_SOURCE_DIR "/tests/testdata/curve_trainer.py";

// A job of `workers` workers and `ps` parameter servers running dump_trainer.
JobSpec MakeJob(const std::string& id, int workers, int ps, int max_trials,
                int parallel, const std::string& extra_yaml = "") {
  return testing::TestJob(id, workers, ps, max_trials, parallel, extra_yaml,
                          {"python3", kDumpTrainer});
}

json ReadJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

bool GroupIsGone(int pgid) { return kill(-pgid, 0) == -1 && errno == ESRCH; }

using testing::ProcessesMentioning;

class JobRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // As `hptune run` does: orphaned grandchildren come back to this process
    // and are collected with their process group.
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    dir_ = testing::MakeTempDir();
    dumps_ = dir_ + "/dumps";
    std::filesystem::create_directories(dumps_);
    setenv("DUMP_DIR", dumps_.c_str(), 1);
    setenv("DUMP_PER_TRIAL", "1", 1);
    auto store =
        store::SqliteStore::Open(dir_ + "/hptune.db", hptune::SystemClock());
    ASSERT_OK(store);
    store_ = *std::move(store);
    engine_ =
        std::make_unique<engine::TuningEngine>(*store_, hptune::SystemClock());
    options_.runs_dir = dir_ + "/runs";
    options_.termination_grace = std::chrono::milliseconds(2000);
    options_.max_poll_interval = std::chrono::milliseconds(20);
  }
  void TearDown() override {
    for (const char* name :
         {"DUMP_DIR", "DUMP_PER_TRIAL", "DUMP_METRIC", "DUMP_SLEEP",
          "DUMP_SLEEP_MASTER", "DUMP_SLEEP_WORKER", "DUMP_SLEEP_PS",
          "DUMP_AWAIT_MASTER", "DUMP_FAIL_TIMES_WORKER_0",
          "DUMP_FAIL_TIMES_MASTER", "DUMP_GRANDCHILD", "DUMP_PRINT",
          "DUMP_METRIC_PARAM", "DUMP_IGNORE_SIGTERM_WORKER",
          "DUMP_METRIC_WORKER", "DUMP_METRIC_PS"}) {
      unsetenv(name);
    }
  }

  launch::LocalLauncher& Launcher(const std::string& gpus = "") {
    launch::GpuInventory inventory;
    if (!gpus.empty()) inventory = *launch::GpuInventory::FromSpec(gpus);
    launcher_ =
        std::make_unique<launch::LocalLauncher>(launch::LocalLauncherOptions{
            .env = &hptune::DefaultEnv(), .gpus = std::move(inventory)});
    return *launcher_;
  }

  absl::StatusOr<JobRecord> SubmitAndRun(const JobSpec& job) {
    if (!launcher_) Launcher();
    JobRunner runner(*store_, *engine_, *launcher_, options_,
                     hptune::DefaultEnv());
    auto submitted = runner.Submit(job);
    if (!submitted.ok()) return submitted.status();
    return runner.Run(job);
  }

  // The dump of replica `name` ("worker-1") of trial `trial`.
  json Dump(int64_t trial, const std::string& name) {
    return ReadJson(std::filesystem::path(dumps_) / absl::StrCat(trial) /
                    (name + ".json"));
  }

  // Every dump of the job: one per replica and trial.
  std::vector<json> AllDumps() {
    std::vector<json> all;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(dumps_)) {
      if (entry.path().extension() == ".json") {
        all.push_back(ReadJson(entry.path()));
      }
    }
    return all;
  }

  std::vector<std::string> ReplicaEvents(int64_t trial) {
    std::vector<std::string> details;
    auto events = store_->ListEvents(0, 10000);
    EXPECT_OK(events);
    for (const auto& e : *events) {
      if (e.kind == "replica" && e.trial_number == trial) {
        details.push_back(e.detail);
      }
    }
    return details;
  }

  void ExpectNoProcessLeft() {
    for (const json& dump : AllDumps()) {
      const int pgid = dump["pgid"].get<int>();
      EXPECT_TRUE(GroupIsGone(pgid))
          << dump["name"] << " left process group " << pgid;
    }
  }

  std::string dir_, dumps_;
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<engine::TuningEngine> engine_;
  std::unique_ptr<launch::LocalLauncher> launcher_;
  JobRunnerOptions options_;
};

TEST_F(JobRunnerTest, EveryReplicaSeesTheContractAndNothingOutlivesTheTrial) {
  setenv("DUMP_METRIC", "0.75", 1);
  // Workers and parameter servers report too, other values: only the
  // master's reports count (docs/trainer.md).
  setenv("DUMP_METRIC_WORKER", "0.25", 1);
  setenv("DUMP_METRIC_PS", "0.5", 1);
  // The master ends the trial once every other replica has dumped.
  setenv("DUMP_AWAIT_MASTER", "worker-0:1,worker-1:1,ps-0:1", 1);
  setenv("DUMP_SLEEP_WORKER", "forever", 1);
  setenv("DUMP_SLEEP_PS", "forever", 1);
  setenv("DUMP_GRANDCHILD", "1", 1);
  JobSpec job = MakeJob("contract", /*workers=*/2, /*ps=*/1, 1, 1);
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;

  auto trial = store_->GetTrial("contract", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kSucceeded);
  ASSERT_TRUE(trial->final_measurement.has_value());
  EXPECT_EQ(trial->final_measurement->metrics.at("accuracy"), 0.75);
  ASSERT_FALSE(trial->measurements.empty());
  for (const Measurement& m : trial->measurements) {
    EXPECT_EQ(m.metrics.at("accuracy"), 0.75);
  }

  const std::string lr = trial->parameters.at("lr").ToString();
  const std::string layers = trial->parameters.at("layers").ToString();
  // No jobDir in the job: no --job-dir (as gcloud), and the trial's own
  // directory in Vertex AI's variables.
  const std::string trial_dir = options_.runs_dir.string() + "/contract/1";
  std::set<int> pgids;
  std::string cluster;
  for (const std::string name : {"master-0", "worker-0", "worker-1", "ps-0"}) {
    SCOPED_TRACE(name);
    json dump = Dump(1, name);
    const json& tf = dump["tf_config"];
    EXPECT_EQ(tf["task"]["trial"], "1");
    EXPECT_EQ(tf["environment"], "cloud");
    EXPECT_EQ(tf["cluster"]["worker"].size(), 2u);
    EXPECT_EQ(tf["cluster"]["ps"].size(), 1u);
    if (cluster.empty()) cluster = tf["cluster"].dump();
    EXPECT_EQ(tf["cluster"].dump(), cluster);  // One cluster for all.
    EXPECT_EQ(dump["env"]["CLOUD_ML_TRIAL_ID"], "1");
    EXPECT_EQ(dump["env"]["CLOUD_ML_JOB_ID"], "contract");
    EXPECT_EQ(dump["env"]["CLOUD_ML_HP_METRIC_TAG"], "accuracy");
    EXPECT_EQ(dump["env"]["WORLD_SIZE"], "3");
    EXPECT_EQ(dump["env"]["CUDA_VISIBLE_DEVICES"], "");
    EXPECT_THAT(
        dump["argv"].get<std::vector<std::string>>(),
        ElementsAre("--user-flag=1", "--lr=" + lr, "--layers=" + layers));
    EXPECT_EQ(dump["env"]["AIP_CHECKPOINT_DIR"], trial_dir + "/checkpoints/");
    EXPECT_EQ(dump["env"]["AIP_MODEL_DIR"], trial_dir + "/model/");
    EXPECT_EQ(dump["env"]["AIP_TENSORBOARD_LOG_DIR"], trial_dir + "/logs/");
    pgids.insert(dump["pgid"].get<int>());
  }
  EXPECT_EQ(Dump(1, "master-0")["env"]["RANK"], "0");
  EXPECT_EQ(Dump(1, "worker-1")["env"]["RANK"], "2");
  EXPECT_FALSE(Dump(1, "ps-0")["env"].contains("RANK"));
  EXPECT_EQ(pgids.size(), 4u);  // Each replica its own process group.
  ExpectNoProcessLeft();
  EXPECT_TRUE(std::filesystem::exists(options_.runs_dir / "contract" / "1" /
                                      "worker-1.log"));
}

TEST_F(JobRunnerTest, ReplicaFailingTwiceIsRestartedTwiceWithTheSameAddress) {
  setenv("DUMP_METRIC", "0.5", 1);
  // The master ends the trial once the worker has started a third time.
  setenv("DUMP_AWAIT_MASTER", "worker-0:3", 1);
  setenv("DUMP_SLEEP_WORKER", "forever", 1);
  setenv("DUMP_FAIL_TIMES_WORKER_0", "2", 1);
  auto record = SubmitAndRun(MakeJob("restarts", 1, 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  json worker = Dump(1, "worker-0");
  EXPECT_EQ(worker["attempt"], 3);  // Two failures, then the third start.
  EXPECT_EQ(Dump(1, "master-0")["attempt"], 1);
  EXPECT_THAT(ReplicaEvents(1),
              AllOf(Contains("worker-0 exited with code 1; restart 1 of 5"),
                    Contains("worker-0 exited with code 1; restart 2 of 5"),
                    Not(Contains(HasSubstr("restart 3")))));
  ExpectNoProcessLeft();
}

TEST_F(JobRunnerTest,
       ReplicaThatAlwaysFailsFailsTheTrialAfterRestartsAndReruns) {
  setenv("DUMP_FAIL_TIMES_MASTER", "1000", 1);
  setenv("DUMP_SLEEP_WORKER", "forever", 1);
  options_.max_replica_restarts = 2;
  options_.max_trial_retries = 1;
  auto record = SubmitAndRun(MakeJob("always_fails", 1, 0, 1, 1));
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  EXPECT_THAT(record->error_message,
              HasSubstr("master-0 exited with code 1 after 2 restarts "
                        "(attempt 2 of 2)"));
  // Two attempts of a start and two restarts each.
  EXPECT_EQ(Dump(1, "master-0")["attempt"], 6);
  auto trial = store_->GetTrial("always_fails", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kFailed);
  EXPECT_THAT(ReplicaEvents(1),
              Contains(HasSubstr("attempt 1 of 2 failed: master-0 exited "
                                 "with code 1 after 2 restarts; re-running")));
  ExpectNoProcessLeft();
}

TEST_F(JobRunnerTest, FailedTrialsBeyondMaxFailedTrialsFailTheJob) {
  setenv("DUMP_FAIL_TIMES_MASTER", "1000", 1);
  options_.max_replica_restarts = 0;
  options_.max_trial_retries = 0;
  JobSpec job = MakeJob("too_many_failures", 0, 0, 6, 1);
  job.study->max_failed_trials = 2;
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kFailed);
  EXPECT_THAT(record->error_message,
              HasSubstr("maxFailedTrials (2) reached; last: trial 2: "
                        "master-0 exited with code 1"));
  auto trials = store_->ListTrials("too_many_failures");
  ASSERT_OK(trials);
  EXPECT_EQ(trials->size(), 2u);
}

TEST_F(JobRunnerTest, CancellingStopsEveryReplicaAndRecordsTheTrials) {
  setenv("DUMP_SLEEP", "forever", 1);
  setenv("DUMP_GRANDCHILD", "1", 1);
  setenv("DUMP_IGNORE_SIGTERM_WORKER", "1", 1);
  options_.termination_grace = std::chrono::milliseconds(300);
  std::atomic<bool> cancel{false};
  options_.cancel = &cancel;
  JobSpec job = MakeJob("cancelled", 1, 1, 4, 2);
  std::thread canceller([&] {
    // Both trials' three replicas have started (dumps are written once a
    // replica's handlers and grandchild are set up).
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (AllDumps().size() < 6 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    cancel = true;
  });
  auto record = SubmitAndRun(job);
  canceller.join();
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kCancelled);
  auto trials = store_->ListTrials("cancelled");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) EXPECT_EQ(t.state, TrialState::kCancelled);
  EXPECT_EQ(AllDumps().size(), 6u);
  ExpectNoProcessLeft();
  auto events = store_->ListEvents(0, 1000);
  ASSERT_OK(events);
  std::vector<std::string> job_states;
  int64_t cancelling_event = 0, first_trial_cancelled = 0;
  for (const auto& e : *events) {
    if (e.kind == "job_state") job_states.push_back(e.detail);
    if (e.detail == "RUNNING -> CANCELLING") cancelling_event = e.id;
    if (e.kind == "trial_state" && e.detail == "ACTIVE -> CANCELLED" &&
        first_trial_cancelled == 0) {
      first_trial_cancelled = e.id;
    }
  }
  // The job is CANCELLING while its replicas are being stopped.
  EXPECT_GT(cancelling_event, 0);
  EXPECT_LT(cancelling_event, first_trial_cancelled);
  EXPECT_THAT(job_states,
              ElementsAre("QUEUED -> PREPARING", "PREPARING -> RUNNING",
                          "RUNNING -> CANCELLING", "CANCELLING -> CANCELLED"));
}

TEST_F(JobRunnerTest, ParallelTrialsGetDisjointGpusAndWaitForThem) {
  setenv("DUMP_METRIC", "0.5", 1);
  // The master ends its trial only once the worker has dumped what it was
  // started with, however slowly interpreters start on a loaded machine.
  setenv("DUMP_AWAIT_MASTER", "worker-0:1", 1);
  setenv("DUMP_SLEEP_MASTER", "0.6", 1);
  setenv("DUMP_SLEEP_WORKER", "forever", 1);
  Launcher("NVIDIA_TESLA_T4:5");
  // 2 GPUs a trial (master 1, worker 1): 5 GPUs run 2 trials at once, not 3.
  JobSpec job = MakeJob("gpus", 1, 0, 5, 3,
                        "  masterConfig: {acceleratorConfig: {count: 1, type: "
                        "NVIDIA_TESLA_T4}}\n"
                        "  workerConfig: {acceleratorConfig: {count: 1, type: "
                        "NVIDIA_TESLA_T4}}\n");
  auto record = SubmitAndRun(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;

  struct Span {
    double start, end;
    std::set<std::string> gpus;
  };
  std::map<int64_t, Span> trials;
  for (int64_t n = 1; n <= 5; ++n) {
    auto trial = store_->GetTrial("gpus", n);
    ASSERT_OK(trial);
    Span span{
        .start =
            std::chrono::duration<double>(trial->start_time->time_since_epoch())
                .count(),
        .end =
            std::chrono::duration<double>(trial->end_time->time_since_epoch())
                .count()};
    for (const std::string name : {"master-0", "worker-0"}) {
      std::string gpu = Dump(n, name)["env"]["CUDA_VISIBLE_DEVICES"];
      EXPECT_THAT(gpu, ::testing::MatchesRegex("[0-4]"));
      EXPECT_TRUE(span.gpus.insert(gpu).second) << "trial " << n;
    }
    trials[n] = span;
  }
  int overlapping_pairs = 0;
  for (auto& [a, sa] : trials) {
    for (auto& [b, sb] : trials) {
      if (a >= b || sa.end <= sb.start || sb.end <= sa.start) continue;
      ++overlapping_pairs;
      for (const auto& g : sa.gpus) {
        EXPECT_FALSE(sb.gpus.contains(g))
            << "trials " << a << " and " << b << " share GPU " << g;
      }
    }
  }
  EXPECT_GE(overlapping_pairs, 1);  // Trials did run in parallel.
}

TEST_F(JobRunnerTest, StdoutMetricLinesBecomeMeasurements) {
  setenv("DUMP_PRINT", "accuracy=0.625 step=7", 1);
  auto record = SubmitAndRun(MakeJob("stdout", 0, 0, 1, 1));
  ASSERT_OK(record);
  auto trial = store_->GetTrial("stdout", 1);
  ASSERT_OK(trial);
  ASSERT_TRUE(trial->final_measurement.has_value());
  EXPECT_EQ(trial->final_measurement->step, 7);
  EXPECT_EQ(trial->final_measurement->metrics.at("accuracy"), 0.625);
}

TEST_F(JobRunnerTest, TrialThatReportsNothingFailsAndSaysWhy) {
  auto record = SubmitAndRun(MakeJob("silent", 0, 0, 1, 1));
  ASSERT_OK(record);
  auto trial = store_->GetTrial("silent", 1);
  ASSERT_OK(trial);
  EXPECT_EQ(trial->state, TrialState::kFailed);
  EXPECT_FALSE(trial->final_measurement.has_value());
  EXPECT_THAT(trial->reason,
              HasSubstr("reported no value of accuracy "
                        "(hyperparameterMetricTag), neither to its metric "
                        "file nor on stdout"));
  // A job written as Vertex's is told in Vertex's field names.
  JobSpec vertex = MakeJob("silent_vertex", 0, 0, 1, 1);
  vertex.dialect = SpecDialect::kVertex;
  ASSERT_OK(SubmitAndRun(vertex));
  auto vertex_trial = store_->GetTrial("silent_vertex", 1);
  ASSERT_OK(vertex_trial);
  EXPECT_THAT(vertex_trial->reason,
              HasSubstr("reported no value of accuracy "
                        "(studySpec.metrics[0].metricId)"));
}

TEST_F(JobRunnerTest, SubmitRejectsJobsThatCannotRun) {
  Launcher("NVIDIA_TESLA_T4:2");
  JobRunner runner(*store_, *engine_, *launcher_, options_,
                   hptune::DefaultEnv());
  JobSpec no_command = MakeJob("no_command", 0, 0, 1, 1);
  no_command.command.clear();
  EXPECT_THAT(runner.Submit(no_command).status().message(),
              HasSubstr("no trainer to run; give --command"));

  JobSpec too_big = MakeJob("too_big", 2, 0, 1, 1,
                            "  workerConfig: {acceleratorConfig: {count: 4, "
                            "type: NVIDIA_TESLA_T4}}\n");
  auto status = runner.Submit(too_big).status();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kFailedPrecondition,
                               HasSubstr("worker 0 (trainingInput."
                                         "workerConfig) asks for 4 x "
                                         "NVIDIA_TESLA_T4")));
  // A job written as Vertex's is told its pool's Vertex path.
  too_big.dialect = SpecDialect::kVertex;
  EXPECT_THAT(runner.Submit(too_big).status().message(),
              HasSubstr("worker 0 (trialJobSpec.workerPoolSpecs[1]) asks for"));

  ASSERT_OK(runner.Submit(MakeJob("twice", 0, 0, 1, 1)));
  EXPECT_THAT(runner.Submit(MakeJob("twice", 0, 0, 1, 1)),
              StatusHasCode(absl::StatusCode::kAlreadyExists));
}

TEST_F(JobRunnerTest, ResumedJobContinuesFromThePreviousResults) {
  setenv("DUMP_METRIC_PARAM", "lr", 1);
  ASSERT_OK(SubmitAndRun(MakeJob("first", 0, 0, 3, 1)));
  JobSpec second = MakeJob("second", 0, 0, 2, 1);
  second.study->resume_previous_job_id = "first";
  auto record = SubmitAndRun(second);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded);
  auto trials = store_->ListTrials("second");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 5u);  // 3 results carried over, 2 new trials.
  EXPECT_THAT((*trials)[0].origin, HasSubstr("resumed from first trial 1"));
}

// A continuation takes the checkpoints of the first trial of its line, which
// is earlier than it. An origin naming a later trial (only a damaged or
// hand-made store holds one) makes the trial resume nothing of that one.
TEST_F(JobRunnerTest, AnOriginNamingALaterTrialTakesNoneOfItsCheckpoints) {
  setenv("DUMP_METRIC_PARAM", "lr", 1);
  const JobSpec job = MakeJob("forward", 0, 0, 2, 1);
  Launcher();
  JobRunner runner(*store_, *engine_, *launcher_, options_,
                   hptune::DefaultEnv());
  ASSERT_OK(runner.Submit(job));
  for (const char* origin : {"resume[2]", ""}) {
    Trial t{.parameters = {{"lr", ParameterValue::Double(0.05)},
                           {"layers", ParameterValue::Integer(2)}},
            .origin = origin};
    ASSERT_OK(engine_->CreateTrial("forward", t));
  }
  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  const std::string runs = options_.runs_dir.string() + "/forward/";
  EXPECT_EQ(Dump(1, "master-0")["env"]["AIP_CHECKPOINT_DIR"],
            runs + "1/checkpoints/");
  EXPECT_EQ(Dump(2, "master-0")["env"]["AIP_CHECKPOINT_DIR"],
            runs + "2/checkpoints/");
}

// A job owns its study from the study's first row: the server finds a
// study's job by its name, so a job recorded after the copy left a window
// where the copied trials belonged to no job, and any user could read them
// or add a trial that became the job's best.
TEST_F(JobRunnerTest, AResumingJobIsRecordedBeforeItsStudyAndItsCopies) {
  setenv("DUMP_METRIC_PARAM", "lr", 1);
  ASSERT_OK(SubmitAndRun(MakeJob("first", 0, 0, 2, 1)));
  auto before = store_->ListEvents(0, 1000);
  ASSERT_OK(before);
  const int64_t after_id = before->empty() ? 0 : before->back().id;
  JobSpec second = MakeJob("second", 0, 0, 1, 1);
  second.study->resume_previous_job_id = "first";
  JobRunner runner(*store_, *engine_, *launcher_, options_,
                   hptune::DefaultEnv());
  ASSERT_OK(runner.Submit(second));
  auto events = store_->ListEvents(after_id, 1000);
  ASSERT_OK(events);
  std::vector<std::string> kinds;
  for (const store::Event& event : *events) kinds.push_back(event.kind);
  EXPECT_THAT(kinds, ElementsAre("job_created", "study_created",
                                 "trial_created", "trial_created"));
  // A study that holds the name already is refused before anything is
  // written: no job of that name is left behind.
  // Its message names whose study holds the name (a squatter's, say).
  ASSERT_OK(engine_->CreateStudy("taken", *second.study, 0, 64002));
  JobSpec taken = MakeJob("taken", 0, 0, 1, 1);
  EXPECT_THAT(runner.Submit(taken),
              StatusIs(absl::StatusCode::kAlreadyExists,
                       HasSubstr("a study of that name exists (made by uid "
                                 "64002)")));
  EXPECT_THAT(store_->GetJob("taken"),
              StatusHasCode(absl::StatusCode::kNotFound));
}

class EarlyStoppingTest : public JobRunnerTest,
                          public ::testing::WithParamInterface<std::string> {};

TEST_P(EarlyStoppingTest, StopsTheTrialsWhoseCurvesAreBad) {
  // curve_trainer's loss decays from 1 towards 0.1 + 0.5((x-0.3)^2 +
  // (y-0.7)^2): the first five trials (near the optimum) set the median, the
  // last three (far from it) are clearly worse at every step.
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  hyperparameters:\n"
      "    goal: MINIMIZE\n"
      "    hyperparameterMetricTag: loss\n"
      "    maxTrials: 8\n"
      "    earlyStoppingRule: " +
          GetParam() +
          "\n"
          "    params:\n"
          "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"
          "    - {parameterName: y, type: DOUBLE, minValue: 0, maxValue: 1}\n",
      ConfigFormat::kYaml, "curves");
  ASSERT_TRUE(parsed.errors.empty());
  JobSpec job = *parsed.job;
  job.command = {"python3", kCurveTrainer, "--steps=40", "--step_seconds=0.01",
                 "--noise=0"};
  Launcher();
  JobRunner runner(*store_, *engine_, *launcher_, options_,
                   hptune::DefaultEnv());
  ASSERT_OK(runner.Submit(job));
  const std::vector<std::pair<double, double>> points = {
      {0.3, 0.7}, {0.25, 0.75}, {0.35, 0.65}, {0.3, 0.8},
      {0.2, 0.7}, {1.0, 0.0},   {0.9, 0.1},   {1.0, 0.1}};
  for (auto [x, y] : points) {
    Trial t{.parameters = {{"x", ParameterValue::Double(x)},
                           {"y", ParameterValue::Double(y)}}};
    ASSERT_OK(engine_->CreateTrial("curves", t));
  }
  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trials = store_->ListTrials("curves");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 8u);
  for (const Trial& t : *trials) {
    SCOPED_TRACE(absl::StrCat("trial ", t.number));
    EXPECT_EQ(t.state, TrialState::kSucceeded);
    ASSERT_TRUE(t.final_measurement.has_value());
    // The final measurement is the last one reported, stopped or not.
    EXPECT_EQ(t.final_measurement->step, t.measurements.back().step);
    if (t.number <= 5) {
      // The median rules judge nothing before 5 trials completed; ASHA
      // compares from the first rung on, so it may stop a good trial too.
      if (GetParam() != "asha") {
        EXPECT_FALSE(t.stopped_early);
        EXPECT_EQ(t.final_measurement->step, 40);
      }
    } else {
      EXPECT_TRUE(t.stopped_early);
      EXPECT_LT(t.final_measurement->step, 40);
      EXPECT_FALSE(t.reason.empty());
    }
  }
  // The stopped trials' trainers were terminated, not left running.
  EXPECT_THAT(ProcessesMentioning(dir_), ::testing::IsEmpty());
}

// Stops every running trial once it has reported 3 steps.
class AfterThreeSteps : public algorithms::StoppingPolicy {
 public:
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> Decide(
      const Problem&, const std::vector<Trial>& trials) override {
    std::vector<algorithms::StoppingDecision> decisions;
    for (const Trial& t : trials) {
      if (t.state != TrialState::kActive) continue;
      const bool stop = t.measurements.size() >= 3;
      decisions.push_back(
          {.trial = t.number, .stop = stop, .reason = stop ? "three" : ""});
    }
    return decisions;
  }
};

// The rule a study names (earlyStoppingRule), here one an embedder
// registered, is the one its runner applies.
TEST_F(JobRunnerTest, TheRuleTheStudyNamesStopsItsTrials) {
  engine::EngineOptions engine_options;
  ASSERT_OK(engine_options.stopping_rules.Register("after-three-steps", [] {
    return absl::StatusOr<std::unique_ptr<algorithms::StoppingPolicy>>(
        std::make_unique<AfterThreeSteps>());
  }));
  engine_ = std::make_unique<engine::TuningEngine>(
      *store_, std::move(engine_options), hptune::SystemClock());
  ConfigParseResult parsed = ParseJobConfig(
      "trainingInput:\n"
      "  hyperparameters:\n"
      "    goal: MINIMIZE\n"
      "    hyperparameterMetricTag: loss\n"
      "    maxTrials: 2\n"
      "    earlyStoppingRule: after-three-steps\n"
      "    params:\n"
      "    - {parameterName: x, type: DOUBLE, minValue: 0, maxValue: 1}\n"
      "    - {parameterName: y, type: DOUBLE, minValue: 0, maxValue: 1}\n",
      ConfigFormat::kYaml, "named");
  ASSERT_TRUE(parsed.errors.empty());
  JobSpec job = *parsed.job;
  job.command = {"python3", kCurveTrainer, "--steps=400", "--step_seconds=0.01",
                 "--noise=0"};
  Launcher();
  JobRunner runner(*store_, *engine_, *launcher_, options_,
                   hptune::DefaultEnv());
  ASSERT_OK(runner.Submit(job));
  auto record = runner.Run(job);
  ASSERT_OK(record);
  EXPECT_EQ(record->state, JobState::kSucceeded) << record->error_message;
  auto trials = store_->ListTrials("named");
  ASSERT_OK(trials);
  ASSERT_EQ(trials->size(), 2u);
  for (const Trial& t : *trials) {
    EXPECT_TRUE(t.stopped_early) << t.number;
    EXPECT_EQ(t.reason, "three");
    EXPECT_LT(t.final_measurement->step, 400);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryRule, EarlyStoppingTest,
                         ::testing::Values("median", "median-at-step", "asha"),
                         [](const auto& info) {
                           // MEDIAN_AT_STEP for median-at-step.
                           std::string name;
                           for (char c : info.param) {
                             name += c == '-'
                                         ? '_'
                                         : static_cast<char>(std::toupper(
                                               static_cast<unsigned char>(c)));
                           }
                           return name;
                         });

}  // namespace
}  // namespace hptune::runner

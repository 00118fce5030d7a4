// Per-user quotas of a real `hptune serve` (docs/operations.md, "Quotas";
// issue 84): a user past --max-studies-per-user or
// --max-measurement-bytes-per-user gets RESOURCE_EXHAUSTED naming the
// quota, the user, the count and the flag, while other users and the
// server's own token go on; a user's jobs together run at most
// --max-running-trials-per-user trials at once. Users are tokens of a
// --users-file, which act for their uids as the identity socket's do.
#include <dirent.h>
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

// Uids no account has.
constexpr int kAlice = 64101;
constexpr int kBob = 64102;
const std::string kAliceToken(40, 'a');
const std::string kBobToken(40, 'b');

class ServeQuotaTest : public ::testing::Test {
 protected:
  void StartServer(std::vector<std::string> quotas) {
    dir_ = testing::MakeTempDir();
    const std::string& dir = dir_;
    const std::string users = dir + "/users";
    std::ofstream(users) << kAlice << " " << kAliceToken << "\n"
                         << kBob << " " << kBobToken << "\n";
    ASSERT_EQ(chmod(users.c_str(), 0600), 0);
    quotas.insert(quotas.begin(), {"--users-file", users});
    server_ = std::make_unique<ServeProcess>(dir, quotas);
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error << server_->Output();
  }

  grpc::Status CreateStudy(const std::string& token, const std::string& name) {
    v1::CreateStudyRequest create;
    create.set_name(name);
    v1::StudySpec* spec = create.mutable_spec();
    spec->set_goal(v1::StudySpec::MINIMIZE);
    spec->set_hyperparameter_metric_tag("loss");
    spec->set_max_trials(5);
    spec->set_algorithm(v1::StudySpec::RANDOM_SEARCH);
    v1::ParameterSpec* x = spec->add_params();
    x->set_parameter_name("x");
    x->set_type(v1::ParameterSpec::DOUBLE);
    x->set_min_value(0);
    x->set_max_value(1);
    v1::Study study;
    return server_->StudyStub()->CreateStudy(Context(token).get(), create,
                                             &study);
  }

  // A study of the token's user with one ACTIVE trial; its id.
  int64_t StudyWithTrial(const std::string& token, const std::string& name) {
    grpc::Status created = CreateStudy(token, name);
    EXPECT_TRUE(created.ok()) << created.error_message();
    v1::SuggestTrialsRequest suggest;
    suggest.set_study(name);
    suggest.set_suggestion_count(1);
    suggest.set_client_id("w");
    v1::SuggestTrialsResponse suggested;
    grpc::Status got = server_->StudyStub()->SuggestTrials(Context(token).get(),
                                                           suggest, &suggested);
    EXPECT_TRUE(got.ok()) << got.error_message();
    return suggested.trials_size() == 1 ? suggested.trials(0).id() : 0;
  }

  // About 1 KB stored: 10 metrics with 90-character names.
  grpc::Status AddKilobyte(const std::string& token, const std::string& study,
                           int64_t trial, int step) {
    v1::AddMeasurementRequest add;
    add.set_study(study);
    add.set_trial_id(trial);
    add.mutable_measurement()->set_step(step);
    for (int i = 0; i < 10; ++i) {
      (*add.mutable_measurement()
            ->mutable_metrics())[std::string(89, 'm') + std::to_string(i)] =
          0.5;
    }
    v1::AddMeasurementResponse added;
    return server_->StudyStub()->AddMeasurement(Context(token).get(), add,
                                                &added);
  }

  std::string dir_;
  std::unique_ptr<ServeProcess> server_;
};

TEST_F(ServeQuotaTest, AUsersStudyPastTheLimitIsRefusedNamingTheQuota) {
  StartServer({"--max-studies-per-user", "2"});
  ASSERT_TRUE(CreateStudy(kAliceToken, "alice_1").ok());
  ASSERT_TRUE(CreateStudy(kAliceToken, "alice_2").ok());

  grpc::Status third = CreateStudy(kAliceToken, "alice_3");
  EXPECT_EQ(third.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(third.error_message(), HasSubstr("studies per user"));
  EXPECT_THAT(third.error_message(), HasSubstr("uid 64101"));
  EXPECT_THAT(third.error_message(), HasSubstr("has 2 studies"));
  EXPECT_THAT(third.error_message(),
              HasSubstr("hptune serve --max-studies-per-user 2"));

  // Another user, and the server's own token, still create.
  grpc::Status bobs = CreateStudy(kBobToken, "bob_1");
  EXPECT_TRUE(bobs.ok()) << bobs.error_message();
  for (const char* name : {"admin_1", "admin_2", "admin_3"}) {
    grpc::Status admins = CreateStudy(testing::DefaultToken(), name);
    EXPECT_TRUE(admins.ok()) << admins.error_message();
  }
}

TEST_F(ServeQuotaTest, MeasurementsPastTheBytesLimitAreRefusedNamingIt) {
  StartServer({"--max-measurement-bytes-per-user", "4096"});
  const int64_t alices = StudyWithTrial(kAliceToken, "alice");
  const int64_t bobs = StudyWithTrial(kBobToken, "bob");
  const int64_t admins = StudyWithTrial(testing::DefaultToken(), "admin");

  // About 4 KB are stored before the quota refuses.
  grpc::Status refused;
  int stored = 0;
  for (; stored < 10; ++stored) {
    refused = AddKilobyte(kAliceToken, "alice", alices, stored);
    if (!refused.ok()) break;
  }
  EXPECT_GE(stored, 4);
  EXPECT_LE(stored, 5);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.error_message();
  EXPECT_THAT(refused.error_message(), HasSubstr("measurement bytes per user"));
  EXPECT_THAT(refused.error_message(), HasSubstr("uid 64101"));
  EXPECT_THAT(refused.error_message(),
              HasSubstr("hptune serve --max-measurement-bytes-per-user 4096"));

  grpc::Status bob = AddKilobyte(kBobToken, "bob", bobs, 0);
  EXPECT_TRUE(bob.ok()) << bob.error_message();
  for (int step = 0; step < 8; ++step) {
    grpc::Status admin =
        AddKilobyte(testing::DefaultToken(), "admin", admins, step);
    ASSERT_TRUE(admin.ok()) << admin.error_message();
  }
}

// A trainer that says when it ran: at its end, LEDGER/<job>.<trial> holds
// "START END" in CLOCK_MONOTONIC nanoseconds, written whole (a rename).
// Its arguments: LEDGER, then how many seconds it trains.
constexpr char kLedgerTrainer[] = R"(import os, sys, time
start = time.monotonic_ns()
time.sleep(float(sys.argv[2]))
print("loss=0.5 step=1", flush=True)
end = time.monotonic_ns()
name = os.environ["CLOUD_ML_JOB_ID"] + "." + os.environ["CLOUD_ML_TRIAL_ID"]
tmp = os.path.join(sys.argv[1], "." + name)
with open(tmp, "w") as f:
    f.write("%d %d\n" % (start, end))
os.rename(tmp, os.path.join(sys.argv[1], name))
)";

v1::TrainingInput LedgerJob(const std::string& trainer,
                            const std::string& ledger, int max_trials) {
  const std::string json = R"({"scaleTier": "BASIC",
      "command": ["/usr/bin/python3", ")" +
                           trainer + R"("],
      "args": [")" + ledger +
                           R"(", "1.5"],
      "hyperparameters": {
        "goal": "MINIMIZE", "hyperparameterMetricTag": "loss",
        "maxTrials": )" + std::to_string(max_trials) +
                           R"(, "maxParallelTrials": 2,
        "algorithm": "RANDOM_SEARCH",
        "params": [{"parameterName": "x", "type": "DOUBLE",
                    "minValue": 0, "maxValue": 1}]}})";
  v1::TrainingInput input;
  auto parsed = google::protobuf::util::JsonStringToMessage(json, &input);
  EXPECT_TRUE(parsed.ok()) << parsed.ToString();
  return input;
}

// When each trial of `jobs` ran, from the ledger: (start, end) pairs.
std::vector<std::pair<int64_t, int64_t>> RanIntervals(
    const std::string& ledger, const std::vector<std::string>& jobs) {
  std::vector<std::pair<int64_t, int64_t>> ran;
  DIR* dir = opendir(ledger.c_str());
  if (dir == nullptr) return ran;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    const size_t dot = name.rfind('.');
    if (dot == 0 || dot == std::string::npos ||
        std::find(jobs.begin(), jobs.end(), name.substr(0, dot)) ==
            jobs.end()) {
      continue;
    }
    std::istringstream line(testing::ReadFileOrEmpty(ledger + "/" + name));
    int64_t start = 0, end = 0;
    if (line >> start >> end) ran.emplace_back(start, end);
  }
  closedir(dir);
  return ran;
}

// The most intervals that overlapped at one moment.
int MostAtOnce(const std::vector<std::pair<int64_t, int64_t>>& ran) {
  std::vector<std::pair<int64_t, int>> edges;  // Ends sort before starts.
  for (const auto& [start, end] : ran) {
    edges.emplace_back(start, 1);
    edges.emplace_back(end, -1);
  }
  std::sort(edges.begin(), edges.end());
  int now = 0, most = 0;
  for (const auto& [at, change] : edges) most = std::max(most, now += change);
  return most;
}

// Alice's two jobs of maxParallelTrials 2 share her 2 places and both
// finish; Bob's job beside them runs its 2 trials at once all the same.
TEST_F(ServeQuotaTest, AUsersJobsTogetherNeverRunMoreTrialsThanTheLimit) {
  StartServer({"--max-running-trials-per-user", "2"});
  // On a root server the trainers run as the users: they read the trainer
  // and write the ledger here.
  ASSERT_EQ(chmod(dir_.c_str(), 0755), 0);
  const std::string ledger = dir_ + "/ledger";
  ASSERT_EQ(mkdir(ledger.c_str(), 0777), 0);
  ASSERT_EQ(chmod(ledger.c_str(), 0777), 0);
  const std::string trainer = dir_ + "/ledger_trainer.py";
  std::ofstream(trainer) << kLedgerTrainer;
  ASSERT_EQ(chmod(trainer.c_str(), 0644), 0);

  const std::vector<std::pair<std::string, std::string>> jobs = {
      {"alice_a", kAliceToken}, {"alice_b", kAliceToken}, {"bob_a", kBobToken}};
  for (const auto& [id, token] : jobs) {
    v1::SubmitJobRequest submit;
    submit.set_job_id(id);
    *submit.mutable_training_input() =
        LedgerJob(trainer, ledger, id == "bob_a" ? 2 : 4);
    v1::Job job;
    grpc::Status submitted =
        server_->JobStub()->SubmitJob(Context(token).get(), submit, &job);
    ASSERT_TRUE(submitted.ok()) << id << ": " << submitted.error_message();
  }
  auto ended = [&] {
    for (const auto& [id, token] : jobs) {
      v1::GetJobRequest get;
      get.set_job_id(id);
      get.set_omit_trials(true);
      v1::Job job;
      grpc::Status got =
          server_->JobStub()->GetJob(Context(token).get(), get, &job);
      if (!got.ok() || (job.state() != v1::Job::SUCCEEDED &&
                        job.state() != v1::Job::FAILED &&
                        job.state() != v1::Job::CANCELLED)) {
        return false;
      }
      EXPECT_EQ(job.state(), v1::Job::SUCCEEDED)
          << id << ": " << job.error_message() << server_->Output();
    }
    return true;
  };
  ASSERT_TRUE(testing::PollUntil(ended, std::chrono::seconds(120)))
      << server_->Output();

  const auto alices = RanIntervals(ledger, {"alice_a", "alice_b"});
  ASSERT_EQ(alices.size(), 8u);
  EXPECT_EQ(MostAtOnce(alices), 2);
  const auto everyones = RanIntervals(ledger, {"alice_a", "alice_b", "bob_a"});
  ASSERT_EQ(everyones.size(), 10u);
  EXPECT_GE(MostAtOnce(everyones), 3);
}

TEST_F(ServeQuotaTest, AQuotaOutOfRangeIsAUsageErrorNamingFlagAndValue) {
  testing::ProcessResult negative = testing::RunProcess(
      {testing::HptuneBinary(), "serve", "--max-studies-per-user", "-1"});
  EXPECT_EQ(negative.exit_code, 64);
  EXPECT_THAT(negative.err, HasSubstr("--max-studies-per-user"));
  EXPECT_THAT(negative.err, HasSubstr("\"-1\""));
  testing::ProcessResult words =
      testing::RunProcess({testing::HptuneBinary(), "serve",
                           "--max-measurement-bytes-per-user", "lots"});
  EXPECT_EQ(words.exit_code, 64);
  EXPECT_THAT(words.err, HasSubstr("--max-measurement-bytes-per-user"));
  EXPECT_THAT(words.err, HasSubstr("\"lots\""));
  testing::ProcessResult running =
      testing::RunProcess({testing::HptuneBinary(), "serve",
                           "--max-running-trials-per-user", "1000001"});
  EXPECT_EQ(running.exit_code, 64);
  EXPECT_THAT(running.err, HasSubstr("--max-running-trials-per-user"));
  EXPECT_THAT(running.err, HasSubstr("\"1000001\""));
}

}  // namespace
}  // namespace hptune

// What a real `hptune serve` refuses on the wire, each with
// INVALID_ARGUMENT naming the field: oversized or empty measurements,
// timestamps outside 1970..9999, states that are no state, early-stopping
// questions about trials that do not exist, and a trainer command line
// exec(2) would refuse.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

// Whether AddressSanitizer is compiled in: g++ defines __SANITIZE_ADDRESS__,
// clang answers __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define HPTUNE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HPTUNE_UNDER_ASAN 1
#endif
#endif
#ifndef HPTUNE_UNDER_ASAN
#define HPTUNE_UNDER_ASAN 0
#endif

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

class ServeLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServeProcess>(testing::MakeTempDir());
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    v1::CreateStudyRequest create;
    create.set_name("limits");
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
    grpc::Status created =
        server_->StudyStub()->CreateStudy(Context().get(), create, &study);
    ASSERT_TRUE(created.ok()) << created.error_message() << server_->Output();
    v1::SuggestTrialsRequest suggest;
    suggest.set_study("limits");
    suggest.set_suggestion_count(1);
    suggest.set_client_id("test");
    v1::SuggestTrialsResponse suggested;
    ASSERT_TRUE(server_->StudyStub()
                    ->SuggestTrials(Context().get(), suggest, &suggested)
                    .ok());
    ASSERT_EQ(suggested.trials_size(), 1);
    trial_ = suggested.trials(0).id();
  }

  // A job `id` running `program`, with one DOUBLE parameter x.
  static v1::SubmitJobRequest Job(const std::string& id,
                                  const std::string& program) {
    v1::SubmitJobRequest request;
    request.set_job_id(id);
    v1::TrainingInput* input = request.mutable_training_input();
    input->add_command(program);
    v1::StudySpec* study = input->mutable_hyperparameters();
    study->set_hyperparameter_metric_tag("loss");
    v1::ParameterSpec* x = study->add_params();
    x->set_parameter_name("x");
    x->set_type(v1::ParameterSpec::DOUBLE);
    x->set_min_value(0);
    x->set_max_value(1);
    return request;
  }

  grpc::Status Submit(const v1::SubmitJobRequest& request) {
    v1::Job job;
    return server_->JobStub()->SubmitJob(Context().get(), request, &job);
  }

  grpc::Status Add(const v1::Measurement& m) {
    v1::AddMeasurementRequest request;
    request.set_study("limits");
    request.set_trial_id(trial_);
    *request.mutable_measurement() = m;
    v1::AddMeasurementResponse reply;
    return server_->StudyStub()->AddMeasurement(Context().get(), request,
                                                &reply);
  }

  std::unique_ptr<ServeProcess> server_;
  int64_t trial_ = 0;
};

TEST_F(ServeLimitsTest, MeasurementsHaveAtLeastOneAndAtMostAThousandMetrics) {
  v1::Measurement empty;
  empty.set_step(1);
  grpc::Status none = Add(empty);
  EXPECT_EQ(none.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(none.error_message(),
            "measurement.metrics: must not be empty (a measurement reports "
            "at least one metric)");

  v1::Measurement many;
  many.set_step(1);
  for (int i = 0; i < 1001; ++i) {
    (*many.mutable_metrics())["m" + std::to_string(i)] = i;
  }
  grpc::Status too_many = Add(many);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(too_many.error_message(),
            "measurement.metrics: at most 1000 metrics, got 1001");

  v1::Measurement fine;
  fine.set_step(1);
  (*fine.mutable_metrics())["loss"] = 0.5;
  EXPECT_TRUE(Add(fine).ok());
}

TEST_F(ServeLimitsTest, TimestampsOutsideTheCalendarAreRefusedNotReplaced) {
  for (int64_t seconds : {int64_t{1} << 62, int64_t{-1}, int64_t{1099511627776},
                          int64_t{-1099511627776}}) {
    v1::Measurement m;
    m.set_step(2);
    (*m.mutable_metrics())["loss"] = 0.4;
    m.mutable_time()->set_seconds(seconds);
    grpc::Status status = Add(m);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << seconds;
    EXPECT_EQ(status.error_message(),
              "measurement.time: must be between 1970-01-01 and 9999-12-31, "
              "got seconds=" +
                  std::to_string(seconds) + " nanos=0");
  }
}

TEST_F(ServeLimitsTest, StatesThatAreNoStateAreRefused) {
  v1::ListTrialsRequest trials;
  trials.set_study("limits");
  trials.add_states(static_cast<v1::Trial::State>(99));
  v1::ListTrialsResponse listed;
  grpc::Status bad_trial_state =
      server_->StudyStub()->ListTrials(Context().get(), trials, &listed);
  EXPECT_EQ(bad_trial_state.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad_trial_state.error_message(),
            "states: not a trial state, got 99");

  v1::ListJobsRequest jobs;
  jobs.add_states(static_cast<v1::Job::State>(99));
  v1::ListJobsResponse listed_jobs;
  grpc::Status bad_job_state =
      server_->JobStub()->ListJobs(Context().get(), jobs, &listed_jobs);
  EXPECT_EQ(bad_job_state.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(bad_job_state.error_message(), "states: not a job state, got 99");
}

TEST_F(ServeLimitsTest, EarlyStoppingQuestionsNameTrialsThatDoNotExist) {
  v1::CheckEarlyStoppingRequest request;
  request.set_study("limits");
  request.add_trial_ids(trial_);
  request.add_trial_ids(12345);
  v1::CheckEarlyStoppingResponse reply;
  grpc::Status unknown = server_->StudyStub()->CheckEarlyStopping(
      Context().get(), request, &reply);
  EXPECT_EQ(unknown.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(unknown.error_message(),
            "trial_ids: study \"limits\" has no trial 12345");

  request.clear_trial_ids();
  request.add_trial_ids(trial_);
  EXPECT_TRUE(server_->StudyStub()
                  ->CheckEarlyStopping(Context().get(), request, &reply)
                  .ok());
}

TEST_F(ServeLimitsTest, AJobWhoseCommandLineExecWouldRefuseIsRefusedAtSubmit) {
  v1::SubmitJobRequest request = Job("too_long", "python3");
  for (int i = 0; i < 10'001; ++i) {
    request.mutable_training_input()->add_args("--a");
  }
  grpc::Status refused = Submit(request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("trainingInput.args: the trainer's command line must "
                        "have at most 10000 arguments, got 10002"));
}

// A job whose budget is the largest int: once accepted, it sat in PREPARING
// while the server allocated a slot per requested parallel trial (GBs).
TEST_F(ServeLimitsTest, ABudgetBeyondOneMachineIsRefusedNamingTheField) {
  v1::SubmitJobRequest request = Job("huge", "/bin/true");
  v1::StudySpec* study =
      request.mutable_training_input()->mutable_hyperparameters();
  study->set_max_trials(2147483647);
  study->set_max_parallel_trials(2147483647);
  grpc::Status refused = Submit(request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("trainingInput.hyperparameters.maxTrials: must be at "
                        "most 1000000, got 2147483647"));
  EXPECT_THAT(refused.error_message(),
              HasSubstr("trainingInput.hyperparameters.maxParallelTrials: "
                        "must be at most 1000, got 2147483647"));
}

// A 3 MB label came back as a transport error (the message quoting it was
// over the client's metadata limit), not as the error it was.
TEST_F(ServeLimitsTest, AHugeLabelIsRefusedNamingTheLabel) {
  v1::SubmitJobRequest request = Job("labelled", "/bin/true");
  (*request.mutable_labels())["team"] = std::string(3 << 20, 'v');
  grpc::Status refused = Submit(request);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << refused.error_message();
  EXPECT_THAT(refused.error_message(), HasSubstr("of key \"team\" must be"));
  EXPECT_LT(refused.error_message().size(), 4096u);
}

// The server's resident memory in kB, from /proc.
int64_t RssKb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

// Large requests (here 3 MB studies of 100,000 categorical values, refused
// after parsing) on many gRPC threads at once: the server's memory grows
// while it serves them and goes back after, round after round.
TEST_F(ServeLimitsTest, MemoryReturnsAfterLargeRequests) {
#if HPTUNE_UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory in "
                  "quarantine; what is measured is glibc's";
#endif
  v1::CreateStudyRequest create;
  create.set_name("big");
  v1::StudySpec* spec = create.mutable_spec();
  spec->set_goal(v1::StudySpec::MINIMIZE);
  spec->set_hyperparameter_metric_tag("loss");
  v1::ParameterSpec* c = spec->add_params();
  c->set_parameter_name("c");
  c->set_type(v1::ParameterSpec::CATEGORICAL);
  for (int i = 0; i < 100000; ++i) {
    c->add_categorical_values("value-" + std::to_string(i) + "-padding");
  }
  const int64_t idle = RssKb(server_->pid());
  ASSERT_GT(idle, 0);
  constexpr int64_t kAllowedGrowthKb = 64 * 1024;
  for (int round = 0; round < 5; ++round) {
    std::vector<std::thread> clients;
    for (int t = 0; t < 8; ++t) {
      clients.emplace_back([&] {
        v1::Study study;
        grpc::Status status =
            server_->StudyStub()->CreateStudy(Context().get(), create, &study);
        EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
      });
    }
    for (std::thread& client : clients) client.join();
    int64_t rss = 0;
    EXPECT_TRUE(testing::PollUntil(
        [&] {
          rss = RssKb(server_->pid());
          return rss < idle + kAllowedGrowthKb;
        },
        std::chrono::seconds(10)))
        << "round " << round << ": " << rss << " kB resident, " << idle
        << " kB when idle";
  }
}

}  // namespace
}  // namespace hptune

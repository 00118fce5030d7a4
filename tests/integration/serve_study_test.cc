// StudyService over the wire: a real `hptune serve` and ask/tell clients in
// other processes, client_id failover, and bad requests that must be
// answered with the right code while the server stays up.
#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <limits>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using testing::Context;
using ::testing::HasSubstr;
using testing::ServeProcess;

v1::StudySpec TwoParameterSpec(int max_trials, int max_parallel) {
  v1::StudySpec spec;
  spec.set_goal(v1::StudySpec::MINIMIZE);
  spec.set_hyperparameter_metric_tag("loss");
  spec.set_max_trials(max_trials);
  spec.set_max_parallel_trials(max_parallel);
  spec.set_algorithm(v1::StudySpec::RANDOM_SEARCH);
  spec.set_seed(7);
  for (const char* name : {"x", "y"}) {
    v1::ParameterSpec* p = spec.add_params();
    p->set_parameter_name(name);
    p->set_type(v1::ParameterSpec::DOUBLE);
    p->set_min_value(0);
    p->set_max_value(1);
  }
  return spec;
}

// The ids of the client's "trial <id>" lines.
std::vector<int> TrialIds(const std::string& out) {
  std::vector<int> ids;
  std::istringstream lines(out);
  std::string word;
  int id = 0;
  while (lines >> word >> id) {
    if (word == "trial") ids.push_back(id);
  }
  return ids;
}

class ServeStudyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServeProcess>(testing::MakeTempDir());
    std::string error;
    ASSERT_TRUE(server_->Start(&error)) << error;
    stub_ = server_->StudyStub();
  }
  void CreateStudy(const std::string& name, const v1::StudySpec& spec) {
    v1::CreateStudyRequest request;
    request.set_name(name);
    *request.mutable_spec() = spec;
    v1::Study study;
    grpc::Status status = stub_->CreateStudy(Context().get(), request, &study);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  testing::ProcessResult Client(const std::string& study,
                                const std::string& client,
                                const std::string& mode) {
    return testing::RunProcess(
        {ASK_TELL_CLIENT, server_->address(), study, client, mode});
  }
  std::unique_ptr<ServeProcess> server_;
  std::unique_ptr<v1::StudyService::Stub> stub_;
};

TEST_F(ServeStudyTest, AskTellClientInAnotherProcessCompletesTheStudy) {
  CreateStudy("ask_tell", TwoParameterSpec(5, 2));
  testing::ProcessResult run = Client("ask_tell", "worker_1", "finish");
  ASSERT_EQ(run.exit_code, 0) << run.err;

  v1::ListTrialsRequest request;
  request.set_study("ask_tell");
  v1::ListTrialsResponse reply;
  ASSERT_TRUE(stub_->ListTrials(Context().get(), request, &reply).ok());
  ASSERT_EQ(reply.trials_size(), 5);
  for (int i = 0; i < 5; ++i) {
    const v1::Trial& trial = reply.trials(i);
    EXPECT_EQ(trial.id(), i + 1);  // Dense.
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED);
    EXPECT_EQ(trial.measurements_size(), 3);
    EXPECT_EQ(trial.client_id(), "worker_1");
    // CompleteTrial without a final measurement takes the last one.
    EXPECT_EQ(trial.final_measurement().step(), 3);
  }
  v1::ListOptimalTrialsRequest best_request;
  best_request.set_study("ask_tell");
  v1::ListOptimalTrialsResponse best;
  ASSERT_TRUE(
      stub_->ListOptimalTrials(Context().get(), best_request, &best).ok());
  ASSERT_EQ(best.optimal_trials_size(), 1);
  double lowest = 1e9;
  for (const v1::Trial& t : reply.trials()) {
    lowest = std::min(lowest, t.final_measurement().metrics().at("loss"));
  }
  EXPECT_EQ(best.optimal_trials(0).final_measurement().metrics().at("loss"),
            lowest);
}

TEST_F(ServeStudyTest, SameClientIdGetsItsUnfinishedTrialsBack) {
  CreateStudy("failover", TwoParameterSpec(6, 4));
  // Client A takes two trials and dies without reporting.
  testing::ProcessResult a = Client("failover", "host_a", "take");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const std::vector<int> taken = TrialIds(a.out);
  ASSERT_EQ(taken, (std::vector<int>{1, 2}));
  // Another client gets other trials.
  testing::ProcessResult b = Client("failover", "host_b", "take");
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(TrialIds(b.out), (std::vector<int>{3, 4}));
  // A restarted client A gets its own trials again, not new ones.
  testing::ProcessResult again = Client("failover", "host_a", "take");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(TrialIds(again.out), taken);
  // ...and finishes them (then the remaining budget).
  testing::ProcessResult finish = Client("failover", "host_a", "finish");
  ASSERT_EQ(finish.exit_code, 0) << finish.err;
  EXPECT_NE(finish.out.find("completed 1\ncompleted 2\n"), std::string::npos)
      << finish.out;
}

TEST_F(ServeStudyTest, BadRequestsGetTheirCodesAndTheServerStaysUp) {
  CreateStudy("bad_input", TwoParameterSpec(2, 1));

  // Malformed spec: the config parser's message names the field and value.
  v1::CreateStudyRequest create;
  create.set_name("broken");
  *create.mutable_spec() = TwoParameterSpec(2, 1);
  create.mutable_spec()->mutable_params(0)->set_scale_type(
      v1::ParameterSpec::UNIT_LOG_SCALE);
  v1::Study study;
  grpc::Status status = stub_->CreateStudy(Context().get(), create, &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("spec.params[0]"), std::string::npos)
      << status.error_message();

  // Out of range.
  v1::SuggestTrialsRequest suggest;
  suggest.set_study("bad_input");
  suggest.set_suggestion_count(0);
  v1::SuggestTrialsResponse suggested;
  status = stub_->SuggestTrials(Context().get(), suggest, &suggested);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "suggestion_count: must be 1 to 1000, got 0");

  // Unknown study.
  v1::GetStudyRequest get;
  get.set_name("no_such_study");
  status = stub_->GetStudy(Context().get(), get, &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("no_such_study"), std::string::npos);

  // Wrong state: a measurement for a trial that has ended.
  suggest.set_suggestion_count(1);
  ASSERT_TRUE(stub_->SuggestTrials(Context().get(), suggest, &suggested).ok());
  ASSERT_EQ(suggested.trials_size(), 1);
  v1::CompleteTrialRequest complete;
  complete.set_study("bad_input");
  complete.set_trial_id(suggested.trials(0).id());
  complete.set_trial_infeasible(true);
  v1::Trial trial;
  // Infeasible says why, and carries no result.
  status = stub_->CompleteTrial(Context().get(), complete, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "infeasible_reason: required with trial_infeasible");
  complete.set_infeasible_reason("diverged");
  (*complete.mutable_final_measurement()->mutable_metrics())["loss"] = 0.5;
  status = stub_->CompleteTrial(Context().get(), complete, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "final_measurement: must be unset with trial_infeasible");
  complete.clear_final_measurement();
  ASSERT_TRUE(stub_->CompleteTrial(Context().get(), complete, &trial).ok());
  EXPECT_EQ(trial.state(), v1::Trial::INFEASIBLE);
  v1::AddMeasurementRequest add;
  add.set_study("bad_input");
  add.set_trial_id(trial.id());
  add.mutable_measurement()->set_step(1);
  (*add.mutable_measurement()->mutable_metrics())["loss"] = 0.5;
  v1::AddMeasurementResponse added;
  status = stub_->AddMeasurement(Context().get(), add, &added);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  // A value that must never reach a designer.
  add.set_trial_id(99);
  (*add.mutable_measurement()->mutable_metrics())["loss"] =
      std::numeric_limits<double>::quiet_NaN();
  status = stub_->AddMeasurement(Context().get(), add, &added);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("measurement: "), std::string::npos)
      << status.error_message();

  // Huge strings: a field limit, not the database's problem.
  get.set_name(std::string(1'000'000, 'a'));
  status = stub_->GetStudy(Context().get(), get, &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "name: at most 128 characters, got 1000000");
  suggest.set_client_id(std::string(100'000, 'c'));
  status = stub_->SuggestTrials(Context().get(), suggest, &suggested);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // Over gRPC's message limit.
  get.set_name(std::string(5 << 20, 'a'));
  status = stub_->GetStudy(Context().get(), get, &study);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);

  // Still serving.
  get.set_name("bad_input");
  status = stub_->GetStudy(Context().get(), get, &study);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(study.name(), "bad_input");
}

// Define-by-run over gRPC: a trial's client adds the parameter it suggests;
// the stored study and later suggestions have it.
TEST_F(ServeStudyTest, AddTrialParameterGrowsTheStudysSpace) {
  CreateStudy("grows", TwoParameterSpec(10, 1));
  v1::SuggestTrialsRequest ask;
  ask.set_study("grows");
  ask.set_suggestion_count(1);
  v1::SuggestTrialsResponse asked;
  grpc::Status status = stub_->SuggestTrials(Context().get(), ask, &asked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const int64_t id = asked.trials(0).id();

  v1::AddTrialParameterRequest add;
  add.set_study("grows");
  add.set_trial_id(id);
  v1::ParameterSpec* z = add.mutable_spec();
  z->set_parameter_name("z");
  z->set_type(v1::ParameterSpec::CATEGORICAL);
  z->add_categorical_values("a");
  z->add_categorical_values("b");
  v1::Trial trial;
  status = stub_->AddTrialParameter(Context().get(), add, &trial);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(trial.parameters().contains("z"));
  EXPECT_THAT(trial.parameters().at("z").string_value(),
              ::testing::AnyOf("a", "b"));

  v1::GetStudyRequest get;
  get.set_name("grows");
  v1::Study study;
  ASSERT_TRUE(stub_->GetStudy(Context().get(), get, &study).ok());
  ASSERT_EQ(study.spec().params_size(), 3);
  EXPECT_EQ(study.spec().params(2).parameter_name(), "z");
  EXPECT_EQ(study.spec().params(2).first_trial(), id);

  // Refused, naming the request's field: no type, a child, no such trial.
  v1::AddTrialParameterRequest bad = add;
  bad.mutable_spec()->clear_type();
  status = stub_->AddTrialParameter(Context().get(), bad, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("spec.type: required"));
  bad = add;
  bad.mutable_spec()->add_conditional_parameter_specs();
  status = stub_->AddTrialParameter(Context().get(), bad, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("spec.conditionalParameterSpecs"));
  bad = add;
  bad.set_trial_id(id + 5);
  status = stub_->AddTrialParameter(Context().get(), bad, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);

  // The client never read z: it ends without it. x is the config's.
  v1::CompleteTrialRequest complete;
  complete.set_study("grows");
  complete.set_trial_id(id);
  complete.add_unused_parameters("x");
  status = stub_->CompleteTrial(Context().get(), complete, &trial);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("unused_parameters[0]"));
  complete.clear_unused_parameters();
  complete.add_unused_parameters("z");
  (*complete.mutable_final_measurement()->mutable_metrics())["loss"] = 1;
  status = stub_->CompleteTrial(Context().get(), complete, &trial);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED);
  EXPECT_FALSE(trial.parameters().contains("z"));
  EXPECT_TRUE(trial.parameters().contains("x"));
}

TEST_F(ServeStudyTest, ParameterImportanceRanksTheParameterThatDecides) {
  CreateStudy("importance", TwoParameterSpec(100, 1));
  // 60 warm-start results: the loss is x; y is spread independently.
  for (int i = 0; i < 60; ++i) {
    v1::CreateTrialRequest create;
    create.set_study("importance");
    v1::Trial* in = create.mutable_trial();
    const double x = ((i * 7) % 60 + 0.5) / 60, y = ((i * 13) % 60 + 0.5) / 60;
    (*in->mutable_parameters())["x"].set_double_value(x);
    (*in->mutable_parameters())["y"].set_double_value(y);
    in->set_state(v1::Trial::SUCCEEDED);
    in->mutable_final_measurement()->set_step(1);
    (*in->mutable_final_measurement()->mutable_metrics())["loss"] = x;
    v1::Trial created;
    grpc::Status status = stub_->CreateTrial(Context().get(), create, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  v1::GetParameterImportanceRequest request;
  request.set_study("importance");
  v1::ParameterImportanceResponse reply;
  grpc::Status status =
      stub_->GetParameterImportance(Context().get(), request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.method(), "PED-ANOVA");
  EXPECT_EQ(reply.trials(), 60);
  ASSERT_EQ(reply.importances_size(), 2);
  EXPECT_EQ(reply.importances(0).parameter(), "x");
  EXPECT_GT(reply.importances(0).importance(), 0.9);
  EXPECT_EQ(reply.importances(1).parameter(), "y");
  EXPECT_NEAR(
      reply.importances(0).importance() + reply.importances(1).importance(),
      1.0, 1e-12);
  // Each with its bootstrap interval; x's lies wholly above y's.
  for (const v1::ParameterImportance& entry : reply.importances()) {
    EXPECT_LE(entry.lower(), entry.importance()) << entry.parameter();
    EXPECT_GE(entry.upper(), entry.importance()) << entry.parameter();
  }
  EXPECT_GT(reply.importances(0).lower(), reply.importances(1).upper());
  EXPECT_EQ(reply.top_trials(), 15);  // 10% of 60 is 6: the floor is 15
  EXPECT_EQ(reply.trials_needed(), 30);
  EXPECT_EQ(reply.note(), "");
  EXPECT_EQ(reply.bootstrap_resamples(), 200);

  // A study without results: every importance 0, nothing refused, and a
  // note that says how many trials there are and how many are needed.
  CreateStudy("importance_empty", TwoParameterSpec(2, 1));
  request.set_study("importance_empty");
  status = stub_->GetParameterImportance(Context().get(), request, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.trials(), 0);
  for (const v1::ParameterImportance& entry : reply.importances()) {
    EXPECT_EQ(entry.importance(), 0.0) << entry.parameter();
  }
  EXPECT_THAT(reply.note(), HasSubstr("Too few trials to rank"));
  EXPECT_THAT(reply.note(), HasSubstr(" 0 finished trial(s)"));
  EXPECT_THAT(reply.note(), HasSubstr("at least 30 needed"));

  request.set_study("no_such_study");
  status = stub_->GetParameterImportance(Context().get(), request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("no_such_study"), std::string::npos)
      << status.error_message();
  request.set_study("");
  status = stub_->GetParameterImportance(Context().get(), request, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

// CheckEarlyStopping answers for the study's own trials only: an id below 1
// or one the study lacks is INVALID_ARGUMENT, named.
TEST_F(ServeStudyTest, CheckEarlyStoppingRefusesIdsThatAreNoTrialOfTheStudy) {
  CreateStudy("stopping", TwoParameterSpec(2, 1));
  v1::SuggestTrialsRequest suggest;
  suggest.set_study("stopping");
  suggest.set_suggestion_count(1);
  v1::SuggestTrialsResponse suggested;
  ASSERT_TRUE(stub_->SuggestTrials(Context().get(), suggest, &suggested).ok());
  ASSERT_EQ(suggested.trials_size(), 1);
  const int64_t trial = suggested.trials(0).id();
  auto check = [&](std::vector<int64_t> ids,
                   v1::CheckEarlyStoppingResponse* reply) {
    v1::CheckEarlyStoppingRequest request;
    request.set_study("stopping");
    for (int64_t id : ids) request.add_trial_ids(id);
    return stub_->CheckEarlyStopping(Context().get(), request, reply);
  };
  v1::CheckEarlyStoppingResponse reply;
  grpc::Status status = check({trial}, &reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (const v1::EarlyStoppingDecision& d : reply.decisions()) {
    EXPECT_EQ(d.trial_id(), trial);
  }
  for (int64_t id : {0, -1}) {
    status = check({trial, id}, &reply);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(),
              "trial_ids: each must be at least 1, got " + std::to_string(id));
  }
  status = check({trial, 99}, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "trial_ids: study \"stopping\" has no trial 99");
}

// gRPC health checking, called without generated stubs: an empty
// HealthCheckRequest (all services) answered by {status: SERVING}, which is
// field 1 = 1 on the wire.
TEST_F(ServeStudyTest, HealthCheckSaysServing) {
  auto channel = grpc::CreateChannel(server_->address(),
                                     grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ByteBuffer request, response;
  grpc::Slice empty;
  request = grpc::ByteBuffer(&empty, 1);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(),
                 &request, &response, [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mutex);
                   status = std::move(s);
                   done = true;
                   done_cv.notify_all();
                 });
  std::unique_lock<std::mutex> lock(mutex);
  done_cv.wait(lock, [&] { return done; });
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(response.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));
}

}  // namespace
}  // namespace hptune

// Per-user quotas of a real `hptune serve` (docs/operations.md, "Quotas";
// issue 84): a user past --max-studies-per-user or
// --max-measurement-bytes-per-user gets RESOURCE_EXHAUSTED naming the
// quota, the user, the count and the flag, while other users and the
// server's own token go on. Users are tokens of a --users-file, which act
// for their uids as the identity socket's do.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <memory>
#include <string>
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
    const std::string dir = testing::MakeTempDir();
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
}

}  // namespace
}  // namespace hptune

// api::TrialFromProto and JobRecordFromProto: a server's replies read back
// by its clients, every field kept.
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "src/api/conversion.h"

namespace hptune::api {
namespace {

template <typename Message>
Message Parse(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message))
      << text;
  return message;
}

TEST(ReplyReadingTest, TrialFromProtoKeepsEveryField) {
  v1::Trial proto = Parse<v1::Trial>(R"pb(
    id: 3
    parameters {
      key: "lr"
      value { double_value: 0.5 }
    }
    parameters {
      key: "layers"
      value { int_value: 4 }
    }
    parameters {
      key: "cell"
      value { string_value: "GRU" }
    }
    state: SUCCEEDED
    measurements {
      step: 1
      metrics { key: "loss" value: 0.9 }
    }
    final_measurement {
      step: 2
      metrics { key: "loss" value: 0.5 }
    }
    stopped_early: true
    reason: "median rule"
    origin: "random"
    start_time { seconds: 10 nanos: 5000 }
  )pb");
  Trial trial = TrialFromProto(proto);
  EXPECT_EQ(trial.number, 3);
  EXPECT_EQ(trial.parameters.at("lr"), ParameterValue::Double(0.5));
  EXPECT_EQ(trial.parameters.at("layers"), ParameterValue::Integer(4));
  EXPECT_EQ(trial.parameters.at("cell"), ParameterValue::Categorical("GRU"));
  EXPECT_EQ(trial.state, TrialState::kSucceeded);
  ASSERT_EQ(trial.measurements.size(), 1u);
  EXPECT_EQ(trial.FinalObjective("loss"), 0.5);
  EXPECT_TRUE(trial.stopped_early);
  EXPECT_EQ(trial.reason, "median rule");
  EXPECT_EQ(trial.origin, "random");
  EXPECT_EQ(trial.start_time, FromUnixMicros(10'000'005));
  EXPECT_FALSE(trial.end_time.has_value());
}

TEST(ReplyReadingTest, JobRecordFromProtoKeepsWhatTheStoreKeeps) {
  v1::Job proto = Parse<v1::Job>(R"pb(
    job_id: "j1"
    state: FAILED
    error_message: "trial 2 failed"
    labels { key: "team" value: "vision" }
    create_time { seconds: 10 }
    end_time { seconds: 20 }
  )pb");
  JobRecord record = JobRecordFromProto(proto);
  EXPECT_EQ(record.job_id, "j1");
  EXPECT_EQ(record.state, JobState::kFailed);
  EXPECT_EQ(record.error_message, "trial 2 failed");
  EXPECT_EQ(record.labels.at("team"), "vision");
  EXPECT_EQ(record.create_time, FromUnixMicros(10'000'000));
  EXPECT_FALSE(record.start_time.has_value());
  EXPECT_EQ(record.end_time, FromUnixMicros(20'000'000));
}

}  // namespace
}  // namespace hptune::api

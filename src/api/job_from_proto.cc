// Reading a v1::TrainingInput into a JobSpec (conversion.h, "Jobs"): its
// typed fields, then CompleteJob and ValidateJob, with each problem told as
// ParseJobConfig tells it for the same job's canonical JSON.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "google/protobuf/duration.pb.h"
#include "hptune/core/job_validation.h"
#include "src/api/conversion.h"
#include "src/api/pools_from_proto.h"
#include "src/api/proto_reading.h"
#include "src/api/study_from_proto.h"

namespace hptune::api {
namespace {

using proto_internal::JoinPath;
using proto_internal::ProtoErrors;
using proto_internal::Quote;
using proto_internal::UnknownEnum;

constexpr char kTrainingInput[] = "trainingInput";

// google.protobuf.Duration's range, which a config's scheduling limits share.
constexpr int64_t kMaxDurationSeconds = 315'576'000'000;
constexpr int32_t kNanosPerSecond = 1'000'000'000;

// A Duration as protobuf's JSON mapping writes it: "7200s", "0.500s",
// "-1.000000001s".
std::string DurationText(const google::protobuf::Duration& d) {
  const bool negative = d.seconds() < 0 || d.nanos() < 0;
  std::string text = negative ? "-" : "";
  // Negated as unsigned: the most negative int64 has no positive.
  const uint64_t seconds = static_cast<uint64_t>(d.seconds());
  text += std::to_string(d.seconds() < 0 ? 0 - seconds : seconds);
  const int32_t nanos = d.nanos() < 0 ? -d.nanos() : d.nanos();
  if (nanos != 0) {
    std::string digits = std::to_string(kNanosPerSecond + nanos).substr(1);
    const size_t kept = nanos % 1'000'000 == 0 ? 3 : nanos % 1000 == 0 ? 6 : 9;
    text += "." + digits.substr(0, kept);
  }
  return text + "s";
}

// A scheduling limit, with the config reader's messages for the text
// protobuf writes for it: a duration from 1s to Duration's largest.
std::optional<std::chrono::microseconds> ReadLimit(
    const google::protobuf::Duration& d, const std::string& path,
    ProtoErrors& errors) {
  constexpr char kForm[] =
      "must be a duration in seconds ending in s, as AI Platform writes it "
      "(e.g. \"7200s\" or \"1.5s\"), got ";
  const bool signs_agree = (d.seconds() >= 0 && d.nanos() >= 0) ||
                           (d.seconds() <= 0 && d.nanos() <= 0);
  if (!signs_agree || d.nanos() <= -kNanosPerSecond ||
      d.nanos() >= kNanosPerSecond) {
    errors.Add(path, kForm + std::string("a Duration of ") +
                         std::to_string(d.seconds()) + " seconds and " +
                         std::to_string(d.nanos()) + " nanoseconds");
    return std::nullopt;
  }
  const std::string shown = Quote(DurationText(d));
  // The reader takes no sign, and at most 12 digits of seconds.
  if (d.seconds() < 0 || d.nanos() < 0 || d.seconds() >= 1'000'000'000'000) {
    errors.Add(path, kForm + shown);
    return std::nullopt;
  }
  const std::chrono::microseconds duration =
      std::chrono::seconds(d.seconds()) +
      std::chrono::microseconds(d.nanos() / 1000);
  if (duration < std::chrono::seconds(1)) {
    errors.Add(path, "must be at least 1s, got " + shown);
    return std::nullopt;
  }
  if (duration > std::chrono::seconds(kMaxDurationSeconds)) {
    errors.Add(path, "must be at most " + std::to_string(kMaxDurationSeconds) +
                         "s, got " + shown);
    return std::nullopt;
  }
  return duration;
}

void ReadScheduling(const v1::TrainingInput& proto, const std::string& path,
                    ProtoErrors& errors, SchedulingSpec& scheduling) {
  if (!proto.has_scheduling()) return;
  const v1::Scheduling& s = proto.scheduling();
  const std::string at = JoinPath(path, "scheduling");
  if (s.has_max_running_time()) {
    scheduling.max_running_time =
        ReadLimit(s.max_running_time(), JoinPath(at, "maxRunningTime"), errors);
  }
  if (s.has_max_wait_time()) {
    scheduling.max_wait_time =
        ReadLimit(s.max_wait_time(), JoinPath(at, "maxWaitTime"), errors);
  }
  if (!s.has_priority()) return;
  // 0 is AI Platform's default, so a config that spells it out still runs.
  const std::string priority = JoinPath(at, "priority");
  const int32_t value = s.priority();
  if (value < 0 || value > 1000) {
    errors.Add(priority, std::string(value < 0 ? "must be at least 0"
                                               : "must be at most 1000") +
                             ", got " + std::to_string(value));
  } else if (value != 0) {
    errors.Add(priority,
               "is not supported: hptune starts jobs in the order they come "
               "(0, the default, is accepted); on Slurm give the cluster's "
               "priority in slurm.options (e.g. --qos or --nice), got " +
                   std::to_string(value));
  }
}

// The trainer and the fields beside it; an empty string is an unset field
// in a message, so only ValidateJob's rules judge them.
void ReadTrainer(const v1::TrainingInput& proto, JobSpec& job) {
  if (proto.has_use_chief_in_tf_config()) {
    job.use_chief_in_tf_config = proto.use_chief_in_tf_config();
  }
  job.module_name = proto.python_module();
  job.package_path = proto.package_path();
  job.package_uris.assign(proto.package_uris().begin(),
                          proto.package_uris().end());
  job.python_interpreter = proto.python_interpreter();
  job.command.assign(proto.command().begin(), proto.command().end());
  job.args.assign(proto.args().begin(), proto.args().end());
  job.job_dir = proto.job_dir();
  job.region = proto.region();
  // runtimeVersion and pythonVersion are accepted and ignored.
}

void ReadExtras(const v1::TrainingInput& proto, const std::string& path,
                ProtoErrors& errors, JobSpec& job) {
  job.display_name = proto.display_name();
  job.base_output_directory = proto.base_output_directory();
  switch (proto.dialect()) {
    case v1::TrainingInput::AI_PLATFORM:
      job.dialect = SpecDialect::kAiPlatform;
      break;
    case v1::TrainingInput::VERTEX:
      job.dialect = SpecDialect::kVertex;
      break;
    default:
      errors.Add(JoinPath(path, "dialect"), UnknownEnum(proto.dialect()));
  }
}

}  // namespace

absl::StatusOr<JobSpec> JobSpecFromProto(const v1::TrainingInput& proto,
                                         std::string_view job_id) {
  const std::string path = kTrainingInput;
  ProtoErrors errors;
  errors.PlaceRulesIn(proto, path);
  JobSpec job;
  job.job_id = std::string(job_id);
  proto_internal::ReadTierAndPools(proto, path, errors, job);
  ReadTrainer(proto, job);
  ReadScheduling(proto, path, errors, job.scheduling);
  ReadExtras(proto, path, errors, job);
  if (proto.has_hyperparameters()) {
    job.study = proto_internal::ReadStudySpec(
        proto.hyperparameters(), JoinPath(path, "hyperparameters"), errors);
  }
  errors.AddRules(ValidateJob(job));
  HPTUNE_RETURN_IF_ERROR(errors.ToStatus());
  return job;
}

}  // namespace hptune::api

#include "src/rest/log_routes.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "src/rest/log_filter.h"

namespace hptune::rest {
namespace {

using Json = nlohmann::json;

constexpr int kMaxPageSize = 1000;
// What one replica's log may contribute to one call.
constexpr int64_t kMaxLogBytes = int64_t{16} << 20;

struct Replica {
  std::string name;  // GetTrialLogs': "master-0", "worker-1", ...
  // Cloud Logging's task_name: AI Platform's "master-replica-0",
  // "worker-replica-1", ...; for a job written as Vertex's, its pools'
  // "workerpool0-0", "workerpool1-1", ...
  std::string task;
};

std::vector<Replica> ReplicasOf(const v1::TrainingInput& input) {
  const bool vertex = input.dialect() == v1::TrainingInput::VERTEX;
  std::vector<Replica> replicas;
  auto add = [&](const char* pool, const char* task, int vertex_pool,
                 int64_t count) {
    for (int64_t i = 0; i < count; ++i) {
      replicas.push_back({absl::StrCat(pool, "-", i),
                          vertex
                              ? absl::StrCat("workerpool", vertex_pool, "-", i)
                              : absl::StrCat(task, "-replica-", i)});
    }
  };
  add("master", "master", 0, 1);
  add("worker", "worker", 1, input.worker_count());
  add("ps", "ps", 2, input.parameter_server_count());
  add("evaluator", "evaluator", 3, input.evaluator_count());
  return replicas;
}

struct Entry {
  absl::Time time;
  std::string insert_id;
  Json json;
};

// The replica's whole log so far, up to kMaxLogBytes; empty when it has
// none (a replica that never started).
std::string ReadLog(const RestCall& call, const std::string& job_id,
                    int64_t trial, const std::string& replica) {
  std::string log;
  v1::GetTrialLogsRequest request;
  request.set_job_id(job_id);
  request.set_trial_id(trial);
  request.set_replica(replica);
  request.set_max_bytes(int64_t{4} << 20);
  while (static_cast<int64_t>(log.size()) < kMaxLogBytes) {
    request.set_offset(static_cast<int64_t>(log.size()));
    v1::LogChunk chunk;
    if (!CallService<v1::JobService>(call, &v1::JobService::Stub::GetTrialLogs,
                                     request, &chunk)
             .ok() ||
        chunk.data().empty()) {
      break;
    }
    log += chunk.data();
    if (chunk.end_of_log()) break;
  }
  return log;
}

// Each line of one replica's log that the filter admits.
void AddLines(const std::string& log, const v1::Job& job, int64_t trial,
              absl::Time start, const Replica& replica, const LogFilter& filter,
              std::vector<Entry>& entries) {
  size_t at = 0;
  while (at < log.size()) {
    size_t end = log.find('\n', at);
    if (end == std::string::npos) end = log.size();
    const absl::Time time = start + absl::Microseconds(at);
    std::string id = absl::StrFormat("%s-%d-%s-%012d", job.job_id(), trial,
                                     replica.name, at);
    if (filter.Admits(time, id)) {
      Json entry = {
          {"logName", "projects/hptune/logs/hptune"},
          {"resource",
           {{"type", "ml_job"},
            {"labels",
             {{"job_id", job.job_id()}, {"task_name", replica.task}}}}},
          {"labels", {{"trial_id", std::to_string(trial)}}},
          {"severity", "INFO"},
          {"timestamp", LogTimestamp(time)},
          {"insertId", id},
          {"textPayload", log.substr(at, end - at)}};
      entries.push_back({time, std::move(id), std::move(entry)});
    }
    at = end + 1;
  }
}

absl::Time TimeOf(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

}  // namespace

RestReply ListLogEntries(const RestCall& call, std::string_view body) {
  const Json request = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) {
    return ErrorReply(absl::InvalidArgumentError("the body is not JSON"));
  }
  const Json& text = request.contains("filter") ? request["filter"] : Json();
  absl::StatusOr<LogFilter> filter =
      ParseLogFilter(text.is_string() ? text.get<std::string>() : "");
  if (!filter.ok()) return ErrorReply(filter.status());
  const Json& size =
      request.contains("pageSize") ? request["pageSize"] : Json();
  const int page_size = size.is_number_integer()
                            ? static_cast<int>(std::clamp<int64_t>(
                                  size.get<int64_t>(), 1, kMaxPageSize))
                            : kMaxPageSize;
  const Json& order = request.contains("orderBy") ? request["orderBy"] : Json();
  const bool descending = order.is_string() && order == "timestamp desc";

  v1::GetJobRequest get;
  get.set_job_id(filter->job_id);
  v1::Job job;
  grpc::Status status = CallService<v1::JobService>(
      call, &v1::JobService::Stub::GetJob, get, &job);
  if (!status.ok()) return ReplyOfError(status);
  std::vector<Entry> entries;
  for (const v1::HyperparameterOutput& trial : job.training_output().trials()) {
    int64_t number = 0;
    if (!trial.has_start_time() || !absl::SimpleAtoi(trial.trial_id(), &number))
      continue;
    for (const Replica& replica : ReplicasOf(job.training_input())) {
      if (!filter->task_name.empty() && filter->task_name != replica.task) {
        continue;
      }
      AddLines(ReadLog(call, job.job_id(), number, replica.name), job, number,
               TimeOf(trial.start_time()), replica, *filter, entries);
    }
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.insert_id < b.insert_id;
  });
  if (descending) std::reverse(entries.begin(), entries.end());
  Json reply = {{"entries", Json::array()}};
  for (size_t i = 0; i < entries.size() && i < static_cast<size_t>(page_size);
       ++i) {
    reply["entries"].push_back(std::move(entries[i].json));
  }
  return {.http_status = 200,
          .json = reply.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

}  // namespace hptune::rest

#include "src/dashboard/trial_routes.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/runs_layout.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/env.h"
#include "src/dashboard/study_json.h"

namespace hptune::dashboard {
namespace {

// The most of a log one request reads.
constexpr int64_t kMaxLogChunk = 64 << 10;

// The regular files of the trial's directory that are replica logs; a link
// is not followed, even for its target's size.
Json ReplicaLogsJson(Env& env, const std::filesystem::path& state_dir,
                     const std::string& job_id, int64_t number) {
  Json logs = Json::array();
  absl::StatusOr<std::vector<DirectoryEntry>> entries =
      env.ListDirectory(RunsLayout(state_dir).TrialDir(job_id, number));
  if (!entries.ok()) return logs;
  for (const DirectoryEntry& entry : *entries) {
    const std::string replica = ReplicaOfLog(entry.name);
    if (replica.empty() || entry.type != FileType::kRegular) continue;
    logs.push_back({{"replica", replica}, {"size", entry.size}});
  }
  return logs;
}

absl::StatusOr<Json> TrialDetail(ChangeStream& changes, store::Store& store,
                                 Env& env,
                                 const std::filesystem::path& state_dir,
                                 const httplib::Request& req) {
  const std::string study = req.matches[1].str();
  int64_t number = 0;
  if (!absl::SimpleAtoi(req.matches[2].str(), &number)) {
    return absl::InvalidArgumentError("trial: not a number");
  }
  HPTUNE_ASSIGN_OR_RETURN(auto snapshot, changes.Snapshot(study));
  HPTUNE_ASSIGN_OR_RETURN(Trial trial, store.GetTrial(study, number));
  Json detail = TrialDetailJson(trial, snapshot->study.spec, 10000);
  Json events = Json::array();
  for (const TrialEvent& event : changes.events().Of(study, number)) {
    events.push_back({{"time", FormatRfc3339(event.time)},
                      {"kind", event.kind},
                      {"detail", event.detail}});
  }
  detail["events"] = std::move(events);
  detail["events_complete"] = changes.events().caught_up();
  detail["logs"] =
      snapshot->job && !state_dir.empty()
          ? ReplicaLogsJson(env, state_dir, snapshot->job->job_id, number)
          : Json::array();
  return detail;
}

// The request's replica (master-0 unless named) and offset (0 unless
// given), checked.
absl::StatusOr<std::pair<std::string, int64_t>> LogParams(
    const httplib::Request& req) {
  const std::string replica =
      req.has_param("replica") ? req.get_param_value("replica") : "master-0";
  if (!IsReplicaName(replica)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "replica \"", replica.substr(0, 64),
        "\": expected master-0, chief-0, worker-N, ps-N or evaluator-N"));
  }
  int64_t offset = 0;
  if (req.has_param("offset") &&
      (!absl::SimpleAtoi(req.get_param_value("offset"), &offset) ||
       offset < 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("offset \"", req.get_param_value("offset").substr(0, 64),
                     "\": expected an integer >= 0"));
  }
  return std::make_pair(replica, offset);
}

absl::StatusOr<Json> LogChunk(ChangeStream& changes, Env& env,
                              const std::filesystem::path& state_dir,
                              const httplib::Request& req) {
  const std::string study = req.matches[1].str();
  int64_t number = 0;
  (void)absl::SimpleAtoi(req.matches[2].str(), &number);
  HPTUNE_ASSIGN_OR_RETURN(auto params, LogParams(req));
  auto [replica, offset] = std::move(params);
  HPTUNE_ASSIGN_OR_RETURN(auto snapshot, changes.Snapshot(study));
  if (!snapshot->job || state_dir.empty()) {
    return absl::NotFoundError(
        absl::StrCat("study \"", study, "\" has no replica logs here"));
  }
  const std::filesystem::path path =
      RunsLayout(state_dir).ReplicaLog(snapshot->job->job_id, number, replica);
  absl::StatusOr<FileChunk> read =
      env.ReadFileChunk(path, offset, kMaxLogChunk, "log");
  if (absl::IsNotFound(read.status())) {
    return absl::NotFoundError(
        absl::StrCat("trial ", number, ": no log \"", replica, ".log\""));
  }
  HPTUNE_RETURN_IF_ERROR(read.status());
  const int64_t size = read->size;
  // Past a hole a capped log's cut punched (Env::ReadFileChunk).
  offset = std::min(std::max(offset, read->offset), size);
  std::string text = std::move(read->data);
  return Json{{"replica", replica},
              {"offset", offset},
              {"next_offset", offset + static_cast<int64_t>(text.size())},
              {"size", size},
              {"text", std::move(text)}};
}

}  // namespace

void AddTrialRoutes(ApiRoutes& routes, ChangeStream& changes,
                    store::Store& store, Env& env,
                    std::filesystem::path state_dir) {
  routes.Get(R"(/api/studies/([^/]+)/trials/(\d+))",
             [&changes, &store, &env, state_dir](const httplib::Request& req,
                                                 httplib::Response& res) {
               Answer(res, [&] {
                 return TrialDetail(changes, store, env, state_dir, req);
               });
             });
  routes.Get(R"(/api/studies/([^/]+)/trials/(\d+)/log)",
             [&changes, &env, state_dir](const httplib::Request& req,
                                         httplib::Response& res) {
               Answer(res,
                      [&] { return LogChunk(changes, env, state_dir, req); });
             });
}

}  // namespace hptune::dashboard

#include "src/dashboard/trial_result_routes.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::dashboard {
namespace {

// As the gRPC API's CompleteTrial takes them (src/server/request_limits.h).
constexpr size_t kMaxMetricName = 256;
constexpr size_t kMaxMetrics = 1000;
constexpr size_t kMaxReason = 4096;

struct TrialTarget {
  std::string study;
  int64_t trial = 0;
};

// The trial the path names, refused unless its study is ask/tell: a job's
// runner ends the trials it runs.
absl::StatusOr<TrialTarget> Target(store::Store& store,
                                   const httplib::Request& req) {
  TrialTarget target{.study = req.matches[1].str()};
  if (target.study.empty() || target.study.size() > kMaxStudyName) {
    return absl::InvalidArgumentError(
        absl::StrCat("study: a study name has 1 to ", kMaxStudyName,
                     " bytes, got ", target.study.size()));
  }
  if (!absl::SimpleAtoi(req.matches[2].str(), &target.trial) ||
      target.trial < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial \"", req.matches[2].str().substr(0, 100),
                     "\": expected a trial number"));
  }
  HPTUNE_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store.ListJobs());
  for (const JobRecord& job : jobs) {
    if (job.study_name != target.study) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "study \"", target.study, "\" is run by job \"", job.job_id,
        "\": its runner ends its trials; only an ask/tell trial is told "
        "here"));
  }
  return target;
}

Json Body(const httplib::Request& req) {
  return Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
}

// {"metrics": {name: finite number}}: the final measurement, step 0.
absl::StatusOr<Measurement> FinalMeasurement(const Json& body) {
  if (!body.is_object() || !body.contains("metrics") ||
      !body["metrics"].is_object() || body["metrics"].empty()) {
    return absl::InvalidArgumentError(
        "metrics: the body must be {\"metrics\": {name: number, ...}}");
  }
  if (body["metrics"].size() > kMaxMetrics) {
    return absl::InvalidArgumentError(absl::StrCat(
        "metrics: at most ", kMaxMetrics, ", got ", body["metrics"].size()));
  }
  Measurement final;
  for (const auto& [name, value] : body["metrics"].items()) {
    if (name.empty() || name.size() > kMaxMetricName) {
      return absl::InvalidArgumentError(
          absl::StrCat("metrics: a metric name has 1 to ", kMaxMetricName,
                       " bytes, got ", name.size()));
    }
    if (!value.is_number() || !std::isfinite(value.get<double>())) {
      return absl::InvalidArgumentError(
          absl::StrCat("metrics \"", name, "\": ", value.dump().substr(0, 100),
                       " is not a finite number"));
    }
    final.metrics[name] = value.get<double>();
  }
  return final;
}

absl::StatusOr<std::string> InfeasibleReason(const Json& body) {
  if (!body.is_object() || !body.contains("reason") ||
      !body["reason"].is_string() ||
      body["reason"].get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        "reason: the body must be {\"reason\": \"why it is infeasible\"}");
  }
  std::string reason = body["reason"].get<std::string>();
  if (reason.size() > kMaxReason) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reason: ", reason.size(), " bytes, at most ", kMaxReason));
  }
  return reason;
}

Json TrialStateJson(const Trial& trial) {
  return {{"trial", trial.number},
          {"state", std::string(ToString(trial.state))},
          {"reason", trial.reason}};
}

void SendReadOnly(httplib::Response& res) {
  SendError(res, 403,
            "this dashboard is read-only (hptune dashboard); tell results "
            "through hptune serve");
}

}  // namespace

void AddTrialResultRoutes(ApiRoutes& routes, ChangeStream& changes,
                          store::Store& store,
                          const DashboardActions& actions) {
  routes.Post(
      R"(/api/studies/([^/]+)/trials/([^/]+)/complete)",
      [&changes, &store, &actions](const httplib::Request& req,
                                   httplib::Response& res) {
        if (!actions.complete_trial) return SendReadOnly(res);
        Answer(res, [&]() -> absl::StatusOr<Json> {
          HPTUNE_ASSIGN_OR_RETURN(TrialTarget target, Target(store, req));
          HPTUNE_ASSIGN_OR_RETURN(Measurement final,
                                  FinalMeasurement(Body(req)));
          HPTUNE_ASSIGN_OR_RETURN(
              Trial trial,
              actions.complete_trial(target.study, target.trial, final));
          (void)changes.Refresh();
          return TrialStateJson(trial);
        });
      });
  routes.Post(
      R"(/api/studies/([^/]+)/trials/([^/]+)/infeasible)",
      [&changes, &store, &actions](const httplib::Request& req,
                                   httplib::Response& res) {
        if (!actions.mark_infeasible) return SendReadOnly(res);
        Answer(res, [&]() -> absl::StatusOr<Json> {
          HPTUNE_ASSIGN_OR_RETURN(TrialTarget target, Target(store, req));
          HPTUNE_ASSIGN_OR_RETURN(std::string reason,
                                  InfeasibleReason(Body(req)));
          HPTUNE_ASSIGN_OR_RETURN(
              Trial trial,
              actions.mark_infeasible(target.study, target.trial, reason));
          (void)changes.Refresh();
          return TrialStateJson(trial);
        });
      });
}

}  // namespace hptune::dashboard

#include "src/dashboard/action_routes.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace hptune::dashboard {
namespace {

void SendReadOnly(httplib::Response& res, const char* what) {
  SendError(res, 403,
            absl::StrCat("this dashboard is read-only (hptune dashboard); ",
                         what, " through hptune serve"));
}

void Cancel(const DashboardActions& actions, ChangeStream& changes,
            const std::string& job_id, httplib::Response& res) {
  if (!actions.cancel_job) return SendReadOnly(res, "cancel");
  absl::StatusOr<JobRecord> job = actions.cancel_job(job_id);
  if (!job.ok()) return SendStatus(res, job.status());
  (void)changes.Refresh();
  SendJson(res, {{"job", job->job_id},
                 {"state", std::string(ToString(job->state))}});
}

void DeleteStudy(const DashboardActions& actions, ChangeStream& changes,
                 const std::string& study, httplib::Response& res) {
  if (!actions.delete_study) return SendReadOnly(res, "delete studies");
  if (study.empty() || study.size() > kMaxStudyName) {
    return SendError(res, 400,
                     absl::StrCat("study \"", study.substr(0, 200),
                                  "\": a study name has 1 to ", kMaxStudyName,
                                  " bytes, got ", study.size()));
  }
  absl::Status deleted = actions.delete_study(study);
  if (!deleted.ok()) return SendStatus(res, deleted);
  // The open pages' event streams hear of it now, not at the next poll.
  (void)changes.Refresh();
  SendJson(res, {{"study", study}, {"deleted", true}});
}

}  // namespace

void AddActionRoutes(ApiRoutes& routes, ChangeStream& changes,
                     const DashboardActions& actions) {
  routes.Post(R"(/api/jobs/([^/]+)/cancel)",
              [&changes, &actions](const httplib::Request& req,
                                   httplib::Response& res) {
                Cancel(actions, changes, req.matches[1].str(), res);
              });
  routes.Post(R"(/api/studies/([^/]+)/delete)",
              [&changes, &actions](const httplib::Request& req,
                                   httplib::Response& res) {
                DeleteStudy(actions, changes, req.matches[1].str(), res);
              });
}

}  // namespace hptune::dashboard

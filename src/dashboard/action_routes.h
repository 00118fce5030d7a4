// The dashboard's write actions (docs/dashboard.md, "The HTTP API"):
// POST /api/jobs/J/cancel and POST /api/studies/S/delete here, notes
// (note_routes.h) and a manual tell (trial_result_routes.h), each through
// the function its owner gives in DashboardActions (`hptune serve`: its job
// manager, its engine and its store, the paths the gRPC API takes). Without
// one the action answers 403: the dashboard is read-only (`hptune
// dashboard`). The token and CSRF checks are DashboardServer's guard,
// before any route. Used by DashboardServer and those routes.
//
// Thread-safety: the handlers run on the server's threads; the functions
// must be thread-safe, and they and the ChangeStream must outlive the
// server.
#ifndef HPTUNE_SRC_DASHBOARD_ACTION_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_ACTION_ROUTES_H_

#include <functional>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/trial.h"
#include "hptune/store/store.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

struct DashboardActions {
  // Cancels a job: the job as it is then, or NotFound / FailedPrecondition.
  std::function<absl::StatusOr<JobRecord>(std::string_view job_id)> cancel_job;
  // Deletes a study with its trials: FailedPrecondition naming the job and
  // its state while the study's job has not ended.
  std::function<absl::Status(std::string_view study)> delete_study;
  // Ends an ACTIVE ask/tell trial (TuningEngine::CompleteTrial and
  // MarkTrialInfeasible, trial_result_routes.h).
  std::function<absl::StatusOr<Trial>(std::string_view study, int64_t trial,
                                      Measurement final)>
      complete_trial;
  std::function<absl::StatusOr<Trial>(std::string_view study, int64_t trial,
                                      std::string_view reason)>
      mark_infeasible;
  // Saves a note (Store::SetNote, note_routes.h).
  std::function<absl::Status(std::string_view study, int64_t trial,
                             std::string_view text, store::NoteEdit edit)>
      set_note;
};

void AddActionRoutes(ApiRoutes& routes, ChangeStream& changes,
                     const DashboardActions& actions);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_ACTION_ROUTES_H_

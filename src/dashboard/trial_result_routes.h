// The dashboard's manual tell (docs/dashboard.md, "Manual tell"): a person
// ends an ACTIVE ask/tell trial from its page. POST
// /api/studies/S/trials/N/complete with {"metrics": {name: number}} and
// POST .../infeasible with {"reason": "..."}, through
// DashboardActions::complete_trial and mark_infeasible (`hptune serve`:
// the engine's CompleteTrial and MarkTrialInfeasible, what the gRPC API's
// CompleteTrial uses). A trial of a study that a job runs is refused (409):
// its runner ends it. Without the actions a write answers 403 (read-only).
// Token and CSRF checks are DashboardServer's guard. Used by
// DashboardServer.
//
// Thread-safety: the handlers run on the server's threads; the store, the
// actions and the ChangeStream must be thread-safe and outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_TRIAL_RESULT_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_TRIAL_RESULT_ROUTES_H_

#include "hptune/store/store.h"
#include "src/dashboard/action_routes.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

void AddTrialResultRoutes(ApiRoutes& routes, ChangeStream& changes,
                          store::Store& store, const DashboardActions& actions);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_TRIAL_RESULT_ROUTES_H_

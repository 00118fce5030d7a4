// The dashboard's routes of one trial: GET /api/studies/S/trials/N (the
// trial, its events and the replica logs there are) and
// /api/studies/S/trials/N/log (a chunk of one replica's log, read from the
// state directory, for the trial page to follow). Used by DashboardServer.
//
// Thread-safety: the handlers run on the server's threads; the store and
// the ChangeStream, both thread-safe, must outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_TRIAL_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_TRIAL_ROUTES_H_

#include <filesystem>

#include "hptune/env/env.h"
#include "hptune/store/store.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

// `state_dir` is where the replica logs are, read through `env`, which must
// outlive the server; empty: none are listed or read.
void AddTrialRoutes(ApiRoutes& routes, ChangeStream& changes,
                    store::Store& store, Env& env,
                    std::filesystem::path state_dir);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_TRIAL_ROUTES_H_

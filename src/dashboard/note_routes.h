// The dashboard's routes of notes (docs/dashboard.md, "Notes"): GET and
// POST /api/studies/S/note and /api/studies/S/trials/N/note. A note is
// read from the store; it is written through DashboardActions::set_note
// (`hptune serve`: its store), with an audit row naming the peer address
// and the client as the dashboard knows it (`identify`). Without set_note
// a write answers 403: the dashboard is read-only. Token and CSRF checks
// are DashboardServer's guard, before any route. Used by DashboardServer.
//
// Thread-safety: the handlers run on the server's threads; the store, the
// actions and `identify` must be thread-safe and outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_NOTE_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_NOTE_ROUTES_H_

#include <functional>
#include <string>

#include "hptune/store/store.h"
#include "src/dashboard/action_routes.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

// Who sent a request, for a note's audit row: "session cookie (UA...)".
using IdentifyClient = std::function<std::string(const httplib::Request&)>;

void AddNoteRoutes(ApiRoutes& routes, store::Store& store,
                   const DashboardActions& actions, IdentifyClient identify);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_NOTE_ROUTES_H_

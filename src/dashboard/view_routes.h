// The dashboard's routes of its comparison views: GET /api/studies/S/edf
// (the EDF of S's objective), /api/studies/S/rank (the rank plot's points)
// and GET /api/compare?studies=A,B,... (each chosen study's history and
// EDF, for one plot over several studies). Every answer is as new as its
// request (ChangeStream::Snapshot). Used by DashboardServer.
//
// Thread-safety: the handlers run on the server's threads; the ChangeStream,
// thread-safe, must outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_VIEW_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_VIEW_ROUTES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

// At most this many studies in one comparison.
inline constexpr size_t kMaxComparedStudies = 8;

void AddViewRoutes(ApiRoutes& routes, ChangeStream& changes);

// The `studies` parameter of /api/compare: 1 to kMaxComparedStudies
// distinct comma-separated names; InvalidArgument naming the parameter and
// the value otherwise.
absl::StatusOr<std::vector<std::string>> ParseComparedStudies(
    const QueryParams& params);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_VIEW_ROUTES_H_

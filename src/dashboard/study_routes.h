// The dashboard's routes of studies: GET /api/studies (each study's
// summary), /api/studies/S (one study), and its trials (a filtered, sorted
// page), history, points, pareto, curves, importance and timeline as JSON,
// and its trials exported (trials.csv, trials.json). Every answer is as
// new as its request (ChangeStream::Snapshot). The best and optimal trials,
// the importance and what early stopping saved are the read side's
// (hptune/read/study_answers.h), as the CLI and the API give them. Used by
// DashboardServer.
//
// Thread-safety: the handlers run on the server's threads; the store, the
// ChangeStream and the answers, all thread-safe, must outlive the server.
#ifndef HPTUNE_SRC_DASHBOARD_STUDY_ROUTES_H_
#define HPTUNE_SRC_DASHBOARD_STUDY_ROUTES_H_

#include "hptune/env/clock.h"
#include "hptune/read/study_answers.h"
#include "hptune/store/store.h"
#include "src/dashboard/change_stream.h"
#include "src/dashboard/http_api.h"

namespace hptune::dashboard {

// `clock` places the timeline's running trials; it must outlive the server.
void AddStudyRoutes(ApiRoutes& routes, ChangeStream& changes,
                    store::Store& store, read::StudyAnswers& answers,
                    Clock& clock);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_STUDY_ROUTES_H_

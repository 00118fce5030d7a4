#include "src/dashboard/study_routes.h"

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/env/clock.h"
#include "src/dashboard/curve_choice.h"
#include "src/dashboard/pareto_json.h"
#include "src/dashboard/study_json.h"
#include "src/dashboard/trial_query.h"

namespace hptune::dashboard {
namespace {

using StudyHandler = std::function<absl::StatusOr<Json>(const StudySnapshot&,
                                                        const QueryParams&)>;

// GET /api/studies/S + `suffix`, answered by `handler` on S's snapshot.
void StudyRoute(ApiRoutes& routes, ChangeStream& changes,
                const std::string& suffix, StudyHandler handler) {
  routes.Get(
      "/api/studies/([^/]+)" + suffix,
      [&changes, handler](const httplib::Request& req, httplib::Response& res) {
        Answer(res, [&]() -> absl::StatusOr<Json> {
          HPTUNE_ASSIGN_OR_RETURN(auto snapshot,
                                  changes.Snapshot(req.matches[1].str()));
          return handler(*snapshot, Params(req));
        });
      });
}

absl::StatusOr<Json> StudiesJson(ChangeStream& changes) {
  HPTUNE_ASSIGN_OR_RETURN(Changes now, changes.Refresh());
  HPTUNE_ASSIGN_OR_RETURN(auto all, changes.cache().All());
  Json studies = Json::array();
  for (const auto& snapshot : all) {
    studies.push_back(StudySummaryJson(*snapshot));
  }
  return Json{{"studies", std::move(studies)}, {"event_id", now.event_id}};
}

// For a study of several objectives: the trials on its Pareto front
// (ListOptimalTrials' rule, as the Pareto answer marks them), by number.
// Empty otherwise: one objective's best is in the header.
std::set<int64_t> OptimalNumbers(const StudySnapshot& s) {
  const StudySpec& spec = s.study.spec;
  size_t objectives = 0;
  for (const MetricSpec& m : spec.AllMetrics()) {
    objectives += m.is_constraint() ? 0 : 1;
  }
  std::set<int64_t> numbers;
  if (objectives < 2) return numbers;
  std::vector<const Trial*> trials;
  for (const auto& trial : s.trials) {
    if (trial != nullptr) trials.push_back(trial.get());
  }
  for (size_t i : OptimalTrialIndices(spec, trials)) {
    numbers.insert(trials[i]->number);
  }
  return numbers;
}

absl::StatusOr<Json> TrialsPageJson(const StudySnapshot& s,
                                    const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(TrialQuery query,
                          ParseTrialQuery(params, s.study.spec));
  std::vector<const Trial*> selected =
      SelectTrials(s.trials, s.study.spec, query);
  Json rows = Json::array();
  for (size_t i = query.offset;
       i < selected.size() &&
       i < static_cast<size_t>(query.offset + query.limit);
       ++i) {
    rows.push_back(TrialRowJson(*selected[i], s.study.spec));
  }
  // Several objectives: each row says whether its trial is optimal.
  if (const std::set<int64_t> optimal = OptimalNumbers(s); !optimal.empty()) {
    for (Json& row : rows) {
      row["optimal"] = optimal.contains(row["number"].get<int64_t>());
    }
  }
  return Json{{"total", selected.size()},
              {"offset", query.offset},
              {"trials", std::move(rows)}};
}

absl::StatusOr<Json> CurvesJson(store::Store& store, const StudySnapshot& s,
                                const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(CurveChoice choice, ParseCurveChoice(params));
  HPTUNE_ASSIGN_OR_RETURN(size_t max_points,
                          SizeParam(params, "max_points", 500, 10000));
  const CurvePick pick = PickCurveTrials(s, choice);
  Json curves = Json::array();
  for (const Trial* trial : pick.trials) {
    HPTUNE_ASSIGN_OR_RETURN(
        std::vector<Measurement> measurements,
        store.ListMeasurements(s.study.name, trial->number, 0));
    curves.push_back(CurveJson(*trial, s.study.spec, measurements, max_points));
  }
  const bool best = choice.select == CurveSelect::kBest;
  return Json{{"metric", s.study.spec.metric_tag},
              {"total", s.trials.size()},
              {"select", std::string(ToString(choice.select))},
              {"matching", pick.matching},
              // best drops the worse trials on purpose; the others spread.
              {"downsampled", !best && pick.trials.size() < pick.matching},
              {"curves", std::move(curves)}};
}

absl::StatusOr<Json> ImportanceJson(const StudySnapshot& s) {
  std::vector<Trial> trials;
  trials.reserve(s.trials.size());
  for (const auto& trial : s.trials) {
    if (trial == nullptr || !IsTerminal(trial->state)) continue;
    // What the importance reads, without the learning curve's copy.
    Trial& copy = trials.emplace_back();
    copy.number = trial->number;
    copy.state = trial->state;
    copy.parameters = trial->parameters;
    copy.final_measurement = trial->final_measurement;
  }
  HPTUNE_ASSIGN_OR_RETURN(algorithms::ImportanceReport report,
                          algorithms::StudyImportance(s.study, trials));
  const std::vector<algorithms::ParameterImportance>& importances =
      report.importances;
  Json list = Json::array();
  for (const auto& importance : importances) {
    Json entry = {{"param", importance.parameter},
                  {"importance", importance.importance},
                  {"lower", importance.lower},
                  {"upper", importance.upper}};
    // A conditional parameter is judged over the trials where it is active.
    const ParameterSpec* spec =
        s.study.spec.search_space.Find(importance.parameter);
    if (spec != nullptr && spec->condition) {
      entry["active_trials"] = importance.active_trials;
    }
    list.push_back(std::move(entry));
  }
  return Json{{"method", "PED-ANOVA"},
              {"trials", report.trials},
              {"top_trials", report.top_trials},
              {"trials_needed", report.trials_needed},
              {"bootstrap_resamples", report.bootstrap_resamples},
              {"note", report.note},
              {"importances", std::move(list)}};
}

// Each study's importance, kept for its latest snapshot: PED-ANOVA with its
// bootstrap takes a few hundred milliseconds at 100,000 trials, and a
// snapshot is replaced only when its study changes. Thread-safe.
class ImportanceMemo {
 public:
  absl::StatusOr<Json> Get(const std::shared_ptr<const StudySnapshot>& now) {
    {
      MutexLock lock(&mu_);
      auto it = memo_.find(now->study.name);
      if (it != memo_.end() && it->second.snapshot.lock() == now) {
        return it->second.json;
      }
    }
    HPTUNE_ASSIGN_OR_RETURN(Json json, ImportanceJson(*now));
    MutexLock lock(&mu_);
    memo_[now->study.name] = Entry{now, json};
    return json;
  }

 private:
  struct Entry {
    std::weak_ptr<const StudySnapshot> snapshot;  // Not kept alive here.
    Json json;
  };
  Mutex mu_;
  std::map<std::string, Entry> memo_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<Json> TimelineWithRestartsJson(const TrialEvents& events,
                                              const StudySnapshot& s,
                                              const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(size_t max,
                          SizeParam(params, "max_trials", 2000, 20000));
  Json timeline = TimelineJson(s, max, SystemClock().Now());
  const std::map<int64_t, int> restarts = events.Restarts(s.study.name);
  for (Json& trial : timeline["trials"]) {
    auto it = restarts.find(trial["trial"].get<int64_t>());
    trial["restarts"] = it == restarts.end() ? 0 : it->second;
  }
  timeline["restarts_complete"] = events.caught_up();
  return timeline;
}

// A plot's points, at most max_points of them (5000 unless asked).
StudyHandler Thinned(Json (*json)(const StudySnapshot&, size_t)) {
  return [json](const StudySnapshot& s,
                const QueryParams& params) -> absl::StatusOr<Json> {
    HPTUNE_ASSIGN_OR_RETURN(size_t max,
                            SizeParam(params, "max_points", 5000, 100000));
    return json(s, max);
  };
}

// GET /api/studies/S/trials.FORMAT: every trial the filters select, as a
// download.
void ExportRoute(ApiRoutes& routes, ChangeStream& changes,
                 const std::string& format, const std::string& type) {
  routes.Get(
      "/api/studies/([^/]+)/trials\\." + format,
      [&changes, format, type](const httplib::Request& req,
                               httplib::Response& res) {
        const std::string study = req.matches[1].str();
        absl::StatusOr<std::shared_ptr<const StudySnapshot>> snapshot =
            changes.Snapshot(study);
        if (!snapshot.ok()) return SendStatus(res, snapshot.status());
        const StudySpec& spec = (*snapshot)->study.spec;
        QueryParams params = Params(req);
        params.erase("offset");
        params.erase("limit");
        absl::StatusOr<TrialQuery> query = ParseTrialQuery(params, spec);
        if (!query.ok()) return SendStatus(res, query.status());
        std::vector<const Trial*> selected =
            SelectTrials((*snapshot)->trials, spec, *query);
        std::string body;
        if (format == "csv") {
          body = TrialsCsv(selected, spec,
                           MetricColumns(spec, ExtraMetrics(**snapshot)));
        } else {
          Json rows = Json::array();
          for (const Trial* trial : selected) {
            rows.push_back(TrialRowJson(*trial, spec));
          }
          body = Json{{"study", study}, {"trials", std::move(rows)}}.dump(
              -1, ' ', false, Json::error_handler_t::replace);
        }
        res.set_header(
            "Content-Disposition",
            absl::StrCat("attachment; filename=\"trials.", format, "\""));
        res.set_content(body, type.c_str());
      });
}

}  // namespace

void AddStudyRoutes(ApiRoutes& routes, ChangeStream& changes,
                    store::Store& store) {
  routes.Get("/api/studies",
             [&changes](const httplib::Request&, httplib::Response& res) {
               Answer(res, [&] { return StudiesJson(changes); });
             });
  StudyRoute(
      routes, changes, "",
      [](const StudySnapshot& s, const QueryParams&) -> absl::StatusOr<Json> {
        return StudyDetailJson(s);
      });
  StudyRoute(routes, changes, "/trials", TrialsPageJson);
  StudyRoute(routes, changes, "/history", Thinned(HistoryJson));
  StudyRoute(routes, changes, "/points", Thinned(PointsJson));
  StudyRoute(routes, changes, "/pareto", Thinned(ParetoJson));
  StudyRoute(routes, changes, "/curves",
             [&store](const StudySnapshot& s, const QueryParams& params) {
               return CurvesJson(store, s, params);
             });
  routes.Get("/api/studies/([^/]+)/importance",
             [&changes, memo = std::make_shared<ImportanceMemo>()](
                 const httplib::Request& req, httplib::Response& res) {
               Answer(res, [&]() -> absl::StatusOr<Json> {
                 HPTUNE_ASSIGN_OR_RETURN(
                     auto snapshot, changes.Snapshot(req.matches[1].str()));
                 return memo->Get(snapshot);
               });
             });
  StudyRoute(routes, changes, "/timeline",
             [&changes](const StudySnapshot& s, const QueryParams& params) {
               return TimelineWithRestartsJson(changes.events(), s, params);
             });
  ExportRoute(routes, changes, "csv", "text/csv; charset=utf-8");
  ExportRoute(routes, changes, "json", "application/json");
}

}  // namespace hptune::dashboard

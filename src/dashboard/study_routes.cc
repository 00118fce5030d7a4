#include "src/dashboard/study_routes.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/status.h"
#include "hptune/env/clock.h"
#include "src/dashboard/curve_choice.h"
#include "src/dashboard/objective_choice.h"
#include "src/dashboard/pareto_json.h"
#include "src/dashboard/study_json.h"
#include "src/dashboard/thinning.h"
#include "src/dashboard/trial_query.h"
#include "src/dashboard/trials_csv.h"

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

bool SeveralObjectives(const StudySpec& spec) {
  return spec.Objectives().size() > 1;
}

// The numbers of the study's optimal trials (the read side's, as
// ListOptimalTrials gives them).
absl::StatusOr<std::set<int64_t>> OptimalNumbers(read::StudyAnswers& answers,
                                                 const std::string& study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                          answers.OptimalTrials(study));
  std::set<int64_t> numbers;
  for (const Trial& trial : optimal) numbers.insert(trial.number);
  return numbers;
}

absl::StatusOr<SummaryAnswers> SummaryAnswersOf(read::StudyAnswers& answers,
                                                const StudySnapshot& s) {
  const std::string& study = s.study.name;
  SummaryAnswers summary;
  HPTUNE_ASSIGN_OR_RETURN(summary.best, answers.BestTrial(study));
  HPTUNE_ASSIGN_OR_RETURN(summary.savings, answers.Savings(study));
  if (SeveralObjectives(s.study.spec)) {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                            answers.OptimalTrials(study));
    summary.optimal = static_cast<int64_t>(optimal.size());
  }
  return summary;
}

absl::StatusOr<Json> StudiesJson(ChangeStream& changes,
                                 read::StudyAnswers& answers) {
  HPTUNE_ASSIGN_OR_RETURN(Changes now, changes.Refresh());
  HPTUNE_ASSIGN_OR_RETURN(auto all, changes.cache().All());
  Json studies = Json::array();
  for (const auto& snapshot : all) {
    absl::StatusOr<SummaryAnswers> summary =
        SummaryAnswersOf(answers, *snapshot);
    // Deleted since the list was read: left out, as a later list would.
    if (absl::IsNotFound(summary.status())) continue;
    HPTUNE_RETURN_IF_ERROR(summary.status());
    studies.push_back(StudySummaryJson(*snapshot, *summary));
  }
  return Json{{"studies", std::move(studies)}, {"event_id", now.event_id}};
}

absl::StatusOr<Json> TrialsPageJson(read::StudyAnswers& answers,
                                    const StudySnapshot& s,
                                    const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(TrialQuery query,
                          ParseTrialQuery(params, s.study.spec));
  std::vector<const Trial*> selected =
      SelectTrials(s.trials, s.study.spec, query,
                   static_cast<size_t>(query.offset + query.limit));
  Json rows = Json::array();
  for (size_t i = query.offset;
       i < selected.size() &&
       i < static_cast<size_t>(query.offset + query.limit);
       ++i) {
    rows.push_back(TrialRowJson(*selected[i], s.study.spec));
  }
  // Several objectives: each row says whether its trial is optimal (one
  // objective's best is in the header).
  if (SeveralObjectives(s.study.spec)) {
    HPTUNE_ASSIGN_OR_RETURN(std::set<int64_t> optimal,
                            OptimalNumbers(answers, s.study.name));
    if (!optimal.empty()) {
      for (Json& row : rows) {
        row["optimal"] = optimal.contains(row["number"].get<int64_t>());
      }
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
  return Json{{"metric", s.study.spec.metric_tag()},
              {"total", s.trials.size()},
              {"select", std::string(ToString(choice.select))},
              {"matching", pick.matching},
              // best drops the worse trials on purpose; the others spread.
              {"downsampled", !best && pick.trials.size() < pick.matching},
              {"curves", std::move(curves)}};
}

// The importance of the parameters for the objective `params` names: the
// read side's cached answer for the first, computed here for another.
absl::StatusOr<algorithms::ImportanceReport> ImportanceFor(
    read::StudyAnswers& answers, const StudySnapshot& s,
    const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<StudySnapshot> chosen,
                          ChooseObjective(s, params));
  if (!chosen) return answers.Importance(s.study.name);
  std::vector<Trial> trials;
  trials.reserve(s.trials.size());
  for (const auto& trial : s.trials) {
    if (trial != nullptr) trials.push_back(*trial);
  }
  return algorithms::StudyImportance(chosen->study, trials);
}

absl::StatusOr<Json> ImportanceJson(read::StudyAnswers& answers,
                                    const StudySnapshot& s,
                                    const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(algorithms::ImportanceReport report,
                          ImportanceFor(answers, s, params));
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

absl::StatusOr<Json> TimelineWithRestartsJson(const TrialEvents& events,
                                              const StudySnapshot& s,
                                              const QueryParams& params,
                                              Clock& clock) {
  HPTUNE_ASSIGN_OR_RETURN(size_t max,
                          SizeParam(params, "max_trials", 2000, 20000));
  Json timeline = TimelineJson(s, max, clock.Now());
  const std::map<int64_t, int> restarts = events.Restarts(s.study.name);
  for (Json& trial : timeline["trials"]) {
    auto it = restarts.find(trial["trial"].get<int64_t>());
    trial["restarts"] = it == restarts.end() ? 0 : it->second;
  }
  timeline["restarts_complete"] = events.caught_up();
  return timeline;
}

// A plot's points, at most max_points of them (kPlotPoints unless asked), of
// the objective `objective` names.
StudyHandler Thinned(Json (*json)(const StudySnapshot&, size_t)) {
  return [json](const StudySnapshot& s,
                const QueryParams& params) -> absl::StatusOr<Json> {
    HPTUNE_ASSIGN_OR_RETURN(
        size_t max, SizeParam(params, "max_points", kPlotPoints, 100000));
    HPTUNE_ASSIGN_OR_RETURN(std::optional<StudySnapshot> chosen,
                            ChooseObjective(s, params));
    return json(chosen ? *chosen : s, max);
  };
}

// The export's body: every trial `params` selects.
absl::StatusOr<std::string> ExportBody(read::StudyAnswers& answers,
                                       const StudySnapshot& s,
                                       QueryParams params,
                                       const std::string& format) {
  const StudySpec& spec = s.study.spec;
  params.erase("offset");
  params.erase("limit");
  HPTUNE_ASSIGN_OR_RETURN(TrialQuery query, ParseTrialQuery(params, spec));
  std::vector<const Trial*> selected = SelectTrials(s.trials, spec, query);
  if (format == "csv") {
    std::set<int64_t> optimal;
    if (SeveralObjectives(spec)) {
      HPTUNE_ASSIGN_OR_RETURN(optimal, OptimalNumbers(answers, s.study.name));
    }
    return TrialsCsv(selected, spec, ExtraMetrics(s), optimal);
  }
  Json rows = Json::array();
  for (const Trial* trial : selected) {
    rows.push_back(TrialRowJson(*trial, spec));
  }
  return Json{{"study", s.study.name}, {"trials", std::move(rows)}}.dump(
      -1, ' ', false, Json::error_handler_t::replace);
}

// GET /api/studies/S/trials.FORMAT: every trial the filters select, as a
// download named from the study (S-trials.csv).
void ExportRoute(ApiRoutes& routes, ChangeStream& changes,
                 read::StudyAnswers& answers, const std::string& format,
                 const std::string& type) {
  routes.Get("/api/studies/([^/]+)/trials\\." + format,
             [&changes, &answers, format, type](const httplib::Request& req,
                                                httplib::Response& res) {
               const std::string study = req.matches[1].str();
               absl::StatusOr<std::shared_ptr<const StudySnapshot>> snapshot =
                   changes.Snapshot(study);
               if (!snapshot.ok()) return SendStatus(res, snapshot.status());
               absl::StatusOr<std::string> body =
                   ExportBody(answers, **snapshot, Params(req), format);
               if (!body.ok()) return SendStatus(res, body.status());
               res.set_header(
                   "Content-Disposition",
                   absl::StrCat("attachment; filename=\"",
                                ExportFileName(study, format), "\""));
               res.set_content(*body, type.c_str());
             });
}

}  // namespace

void AddStudyRoutes(ApiRoutes& routes, ChangeStream& changes,
                    store::Store& store, read::StudyAnswers& answers,
                    Clock& clock) {
  routes.Get("/api/studies", [&changes, &answers](const httplib::Request&,
                                                  httplib::Response& res) {
    Answer(res, [&] { return StudiesJson(changes, answers); });
  });
  StudyRoute(routes, changes, "",
             [&answers](const StudySnapshot& s,
                        const QueryParams&) -> absl::StatusOr<Json> {
               HPTUNE_ASSIGN_OR_RETURN(SummaryAnswers summary,
                                       SummaryAnswersOf(answers, s));
               return StudyDetailJson(s, summary);
             });
  StudyRoute(routes, changes, "/trials",
             [&answers](const StudySnapshot& s, const QueryParams& params) {
               return TrialsPageJson(answers, s, params);
             });
  StudyRoute(routes, changes, "/history", Thinned(HistoryJson));
  StudyRoute(routes, changes, "/points", Thinned(PointsJson));
  StudyRoute(routes, changes, "/pareto",
             [&answers](const StudySnapshot& s,
                        const QueryParams& params) -> absl::StatusOr<Json> {
               HPTUNE_ASSIGN_OR_RETURN(
                   size_t max,
                   SizeParam(params, "max_points", kPlotPoints, 100000));
               HPTUNE_ASSIGN_OR_RETURN(std::set<int64_t> optimal,
                                       OptimalNumbers(answers, s.study.name));
               return ParetoJson(s, max, optimal);
             });
  StudyRoute(routes, changes, "/curves",
             [&store](const StudySnapshot& s, const QueryParams& params) {
               return CurvesJson(store, s, params);
             });
  StudyRoute(routes, changes, "/importance",
             [&answers](const StudySnapshot& s, const QueryParams& params) {
               return ImportanceJson(answers, s, params);
             });
  StudyRoute(
      routes, changes, "/timeline",
      [&changes, &clock](const StudySnapshot& s, const QueryParams& params) {
        return TimelineWithRestartsJson(changes.events(), s, params, clock);
      });
  ExportRoute(routes, changes, answers, "csv", "text/csv; charset=utf-8");
  ExportRoute(routes, changes, answers, "json", "application/json");
}

}  // namespace hptune::dashboard

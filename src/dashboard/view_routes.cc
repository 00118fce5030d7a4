#include "src/dashboard/view_routes.h"

#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/status.h"
#include "src/dashboard/objective_choice.h"
#include "src/dashboard/study_json.h"
#include "src/dashboard/thinning.h"
#include "src/dashboard/view_json.h"

namespace hptune::dashboard {
namespace {

using ViewJson = Json (*)(const StudySnapshot&, size_t);

// GET /api/studies/S + `suffix`: `json` of S's snapshot, at most max_points
// (`fallback` unless asked, up to 100000), of the objective `objective`
// names (objective_choice.h).
void ThinnedViewRoute(ApiRoutes& routes, ChangeStream& changes,
                      const std::string& suffix, ViewJson json,
                      size_t fallback) {
  routes.Get("/api/studies/([^/]+)" + suffix, [&changes, json, fallback](
                                                  const httplib::Request& req,
                                                  httplib::Response& res) {
    Answer(res, [&]() -> absl::StatusOr<Json> {
      HPTUNE_ASSIGN_OR_RETURN(
          size_t max, SizeParam(Params(req), "max_points", fallback, 100000));
      HPTUNE_ASSIGN_OR_RETURN(auto snapshot,
                              changes.Snapshot(req.matches[1].str()));
      HPTUNE_ASSIGN_OR_RETURN(std::optional<StudySnapshot> chosen,
                              ChooseObjective(*snapshot, Params(req)));
      return json(chosen ? *chosen : *snapshot, max);
    });
  });
}

absl::StatusOr<Json> CompareJson(ChangeStream& changes,
                                 const QueryParams& params) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                          ParseComparedStudies(params));
  HPTUNE_ASSIGN_OR_RETURN(size_t max,
                          SizeParam(params, "max_points", 2000, 20000));
  Json studies = Json::array();
  for (const std::string& name : names) {
    HPTUNE_ASSIGN_OR_RETURN(auto snapshot, changes.Snapshot(name));
    const StudySpec& spec = snapshot->study.spec;
    studies.push_back({{"name", name},
                       {"metric", spec.metric_tag()},
                       {"goal", std::string(ToString(spec.goal()))},
                       {"history", HistoryJson(*snapshot, max)},
                       {"edf", EdfJson(*snapshot, max)}});
  }
  return Json{{"studies", std::move(studies)}};
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseComparedStudies(
    const QueryParams& params) {
  auto it = params.find("studies");
  if (it == params.end() || it->second.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("studies: give 1 to ", kMaxComparedStudies,
                     " comma-separated study names"));
  }
  const std::string shown = it->second.substr(0, 200);
  std::vector<std::string> names = absl::StrSplit(it->second, ',');
  if (names.size() > kMaxComparedStudies) {
    return absl::InvalidArgumentError(
        absl::StrCat("studies \"", shown, "\": at most ", kMaxComparedStudies,
                     " studies, got ", names.size()));
  }
  std::set<std::string> seen;
  for (const std::string& name : names) {
    if (name.empty() || name.size() > kMaxStudyName) {
      return absl::InvalidArgumentError(
          absl::StrCat("studies \"", shown, "\": a study name has 1 to ",
                       kMaxStudyName, " bytes"));
    }
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          "studies \"", shown, "\": \"", name, "\" is named twice"));
    }
  }
  return names;
}

void AddViewRoutes(ApiRoutes& routes, ChangeStream& changes) {
  ThinnedViewRoute(routes, changes, "/edf", EdfJson, 1000);
  ThinnedViewRoute(routes, changes, "/rank", RankJson, kPlotPoints);
  routes.Get("/api/compare",
             [&changes](const httplib::Request& req, httplib::Response& res) {
               Answer(res, [&] { return CompareJson(changes, Params(req)); });
             });
}

}  // namespace hptune::dashboard

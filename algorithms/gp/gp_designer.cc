#include "algorithms/gp/gp_designer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "algorithms/common/unique_sampler.h"
#include "algorithms/gp/gp_model.h"
#include "algorithms/gp/multi_metric_policy.h"
#include "algorithms/gp/streams.h"

namespace hptune::algorithms::gp {

GpDesigner::GpDesigner(Problem problem, DesignerOptions options, uint64_t seed,
                       FeatureEncoding encoding, ScrambledHalton halton,
                       std::optional<FiniteGrid> grid)
    : problem_(std::move(problem)),
      options_(options),
      seed_(seed),
      encoding_(std::move(encoding)),
      halton_(std::move(halton)),
      grid_(std::move(grid)) {
  builders_.push_back(std::make_unique<GpModelBuilder>());
}

GpDesigner::~GpDesigner() = default;

bool GpDesigner::last_suggest_refitted() const {
  return builders_[0]->refitted();
}

bool GpDesigner::last_model_extended() const {
  return builders_[0]->extended();
}

absl::StatusOr<std::unique_ptr<GpDesigner>> GpDesigner::Create(
    const Problem& problem, const DesignerOptions& options, uint64_t seed) {
  HPTUNE_ASSIGN_OR_RETURN(FeatureEncoding encoding,
                          FeatureEncoding::Create(problem.search_space));
  const size_t parameters = problem.search_space.parameters().size();
  if (parameters > ScrambledHalton::kMaxDimension) {
    return absl::InvalidArgumentError(
        absl::StrCat("Bayesian optimisation supports at most ",
                     ScrambledHalton::kMaxDimension, " parameters, got ",
                     parameters, "; use RANDOM_SEARCH"));
  }
  ScrambledHalton halton(static_cast<int>(parameters), seed);
  return std::unique_ptr<GpDesigner>(
      new GpDesigner(problem, options, seed, std::move(encoding),
                     std::move(halton), EnumerableGrid(problem.search_space)));
}

absl::Status GpDesigner::Update(const std::vector<Trial>& completed,
                                const std::vector<Trial>& active) {
  history_ = ReadHistory(problem_, encoding_, completed, active);
  return absl::OkStatus();
}

std::optional<Suggestion> GpDesigner::QuasiRandom(const std::string& origin,
                                                  AssignmentSet& used) {
  auto next_point = [&]() {
    UnitPoint point{halton_.Point(state_.halton_index), origin};
    ++state_.halton_index;
    return point;
  };
  std::vector<Suggestion> s =
      SampleUnique(problem_.search_space, grid_, used, 1, next_point);
  if (s.empty()) return std::nullopt;
  used.Insert(s.front().parameters);
  return std::move(s.front());
}

absl::StatusOr<std::unique_ptr<GpModel>> GpDesigner::BuildModel() {
  const auto n = static_cast<uint64_t>(history_.observations.size());
  const bool refit = NeedsRefit(state_, n);
  if (defer_) deferred_.assign(1, std::nullopt);
  absl::StatusOr<std::unique_ptr<GpModel>> model =
      builders_[0]->Build(history_, Targets(history_.observations), encoding_,
                          DeriveSeed(seed_, kFitSalt, n), refit, state_.theta,
                          defer_ ? &deferred_[0] : nullptr);
  if (builders_[0]->refitted()) state_.fit_rows = n;
  return model;
}

absl::StatusOr<std::vector<Suggestion>> GpDesigner::Suggest(int count) {
  if (count < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("GP designer: count must be >= 0, got ", count));
  }
  ++state_.suggest_calls;
  for (auto& builder : builders_) builder->ClearFlags();
  deferred_.clear();
  deferred_rows_ = history_.observations.size();
  const bool multi_metric = history_.columns() > 1;
  const int dimension = encoding_.dimension();
  const int initial_points = SeedingTrials(dimension, options_);
  const auto total = static_cast<int>(history_.observations.size());
  const int feasible = history_.feasible_count();
  const bool values_differ = history_.values_differ();
  const int tied_best = multi_metric ? 0 : history_.tied_best();
  AssignmentSet used = history_.used;
  auto quasi_random = [&](const std::string& origin) {
    return QuasiRandom(origin, used);
  };
  std::vector<Suggestion> suggestions;
  std::unique_ptr<GpModel> model;
  std::optional<MultiMetricModels> models;
  std::string model_error;
  int from_model = 0;
  for (int i = 0; i < count; ++i) {
    const int known = total + static_cast<int>(history_.pending.size()) + i;
    std::optional<Suggestion> s;
    switch (
        PickSource(dimension, initial_points, known, feasible, values_differ)) {
      case SuggestionSource::kSinglePoint:
        s = quasi_random("quasi_random:single_point_space");
        break;
      case SuggestionSource::kSeeding:
        s = quasi_random(absl::StrCat("gp:seeding(", known + 1, " of ",
                                      initial_points, ")"));
        break;
      case SuggestionSource::kNoFeasible:
        s = quasi_random(absl::StrCat("quasi_random:no_feasible_results(",
                                      total,
                                      " trials without a usable value)"));
        break;
      case SuggestionSource::kPlateau:
        s = quasi_random(absl::StrCat("quasi_random:plateau(", feasible,
                                      " results, all equal)"));
        break;
      case SuggestionSource::kModel:
        // One draw per (call, suggestion), reproducible on its own.
        if (LeavesTiedBest(tied_best, SplitMix64(seed_ ^ kTiedBestSalt,
                                                 state_.suggest_calls * 1024 +
                                                     static_cast<uint64_t>(i))
                                          .NextUnit())) {
          s = quasi_random(absl::StrCat("quasi_random:tied_best(", tied_best,
                                        " trials share the best value)"));
          break;
        }
        if (multi_metric) {
          if (!models && model_error.empty()) {
            absl::StatusOr<MultiMetricModels> built =
                BuildMultiMetricModels(history_, encoding_, seed_, builders_,
                                       state_, defer_ ? &deferred_ : nullptr);
            if (built.ok()) {
              models = *std::move(built);
            } else {
              model_error = std::string(built.status().message());
            }
          }
          s = models ? SuggestFromModels(*models, history_, encoding_, seed_,
                                         state_.suggest_calls, from_model++,
                                         used, quasi_random)
                     : quasi_random(absl::StrCat("quasi_random:", model_error));
          break;
        }
        if (model == nullptr && model_error.empty()) {
          absl::StatusOr<std::unique_ptr<GpModel>> built = BuildModel();
          if (built.ok()) {
            model = *std::move(built);
          } else {
            model_error = std::string(built.status().message());
          }
        }
        s = model != nullptr
                ? SuggestFromModel(*model, encoding_, state_.theta, seed_,
                                   state_.suggest_calls, from_model++, used,
                                   quasi_random)
                : quasi_random(absl::StrCat("quasi_random:", model_error));
        break;
    }
    if (!s.has_value()) break;  // The space is exhausted.
    suggestions.push_back(*std::move(s));
  }
  return suggestions;
}

std::string GpDesigner::SaveState() const { return FormatGpState(state_); }

std::optional<Designer::DeferredWork> GpDesigner::TakeDeferredWork() {
  const bool any = std::any_of(deferred_.begin(), deferred_.end(),
                               [](const auto& job) { return job.has_value(); });
  if (!any) return std::nullopt;
  DeferredWork work = [jobs = std::move(deferred_), rows = deferred_rows_](
                          const std::atomic<bool>& cancelled) -> std::string {
    GpFit fit{.rows = rows};
    for (const std::optional<FitJob>& job : jobs) {
      fit.thetas.emplace_back();
      if (!job.has_value()) continue;
      absl::StatusOr<std::vector<double>> theta = RunFitJob(*job, &cancelled);
      if (absl::IsCancelled(theta.status())) return "";
      // A failed fit keeps that column's saved hyperparameters.
      if (theta.ok()) fit.thetas.back() = *std::move(theta);
    }
    return FormatGpFit(fit);
  };
  deferred_.clear();
  return work;
}

absl::Status GpDesigner::AcceptDeferredResult(std::string_view result) {
  if (result.empty()) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(
      GpFit fit, ParseGpFit(result, PackedSize(encoding_.dimension())));
  if (fit.rows <= state_.fit_rows) return absl::OkStatus();  // Older.
  bool any = false;
  for (size_t c = 0; c < fit.thetas.size(); ++c) {
    if (fit.thetas[c].empty()) continue;
    any = true;
    if (c == 0) {
      state_.theta = std::move(fit.thetas[c]);
    } else {
      if (state_.other_thetas.size() < c) state_.other_thetas.resize(c);
      state_.other_thetas[c - 1] = std::move(fit.thetas[c]);
    }
  }
  if (any) state_.fit_rows = fit.rows;
  return absl::OkStatus();
}

absl::Status GpDesigner::RestoreState(std::string_view state) {
  HPTUNE_ASSIGN_OR_RETURN(
      state_, ParseGpState(state, PackedSize(encoding_.dimension())));
  return absl::OkStatus();
}

}  // namespace hptune::algorithms::gp

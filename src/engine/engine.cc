#include "hptune/engine/engine.h"

#include <algorithm>
#include <random>
#include <set>
#include <span>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/algorithms/registry.h"
#include "hptune/core/check.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"
#include "hptune/core/trial_resume.h"
#include "src/engine/background_work.h"
#include "src/engine/curve_cache.h"
#include "src/engine/leases.h"
#include "src/engine/resumption.h"
#include "src/engine/study_locks.h"
#include "src/engine/trial_history.h"

namespace hptune::engine {
namespace {

bool IsPending(const Trial& t) { return !IsTerminal(t.state); }

int PendingCount(const std::vector<Trial>& trials) {
  return static_cast<int>(
      std::count_if(trials.begin(), trials.end(), IsPending));
}

// A reported measurement as stored: stamped now when it has no time, then
// checked.
absl::Status StampAndValidate(Clock& clock, Measurement& measurement) {
  if (measurement.time == Timestamp{}) measurement.time = clock.Now();
  return ValidateMeasurement(measurement);
}

// Bounds the memory of TuningEngine::curves_ (24 bytes a point: 24 MB), with
// room for a thousand running curves of a thousand steps, which must not be
// read again on every check.
constexpr size_t kMaxCachedCurvePoints = 1'000'000;
// Bounds the memory of TuningEngine::history_ (about 0.5 KB a trial of a
// few parameters: 50 MB); a study above it is read whole, as without it.
constexpr size_t kMaxKeptTrials = 100'000;

std::string Quoted(std::string_view s) {
  return absl::StrCat("\"", std::string(s), "\"");
}

uint64_t DrawSeed() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

// The spec a designer plans with: its budget is every trial of the study,
// the resumed ones included, which count towards the GP's seeding.
StudySpec DesignerSpec(const StudyRecord& study) {
  StudySpec spec = study.spec;
  spec.max_trials = study.TrialBudget();
  return spec;
}

// The last intermediate measurement of the trial's last attempt (an attempt
// that did not end is no result) that reports every one of `metrics`, else
// the last that reports the first (the primary metric), if any.
std::optional<Measurement> LastWithMetrics(
    const Trial& trial, const std::vector<MetricSpec>& metrics) {
  std::optional<Measurement> with_primary;
  for (auto it = trial.measurements.rbegin(); it != trial.measurements.rend();
       ++it) {
    if (it->attempt < trial.attempt) break;
    if (!it->metrics.contains(metrics.front().id)) continue;
    if (!with_primary) with_primary = *it;
    if (std::all_of(metrics.begin(), metrics.end(), [&](const MetricSpec& m) {
          return it->metrics.contains(m.id);
        })) {
      return *it;
    }
  }
  return with_primary;
}

// The first of `metrics` that `m` has no value of.
const MetricSpec* MissingMetric(const Measurement& m,
                                const std::vector<MetricSpec>& metrics) {
  for (const MetricSpec& metric : metrics) {
    if (!m.metrics.contains(metric.id)) return &metric;
  }
  return nullptr;
}

// How many distinct assignments the subtree of parameter `i` (-1: the whole
// space) has, counting in a conditional space only active parameters: a
// value of a parent contributes the product of the subtrees it activates.
// Saturates at `cap`; nullopt when infinite (a DOUBLE).
std::optional<int64_t> PointCount(const SearchSpace& space, int i,
                                  int64_t cap) {
  const auto times = [cap](int64_t a, int64_t b) {
    return b != 0 && a > cap / b ? cap : std::min(a * b, cap);
  };
  const std::vector<int> children = space.ChildIndices(i);
  const auto product_of =
      [&](const std::vector<int>& subtrees) -> std::optional<int64_t> {
    int64_t product = 1;
    for (int c : subtrees) {
      std::optional<int64_t> n = PointCount(space, c, cap);
      if (!n) return std::nullopt;
      product = times(product, *n);
    }
    return product;
  };
  if (i < 0) return product_of(children);
  const ParameterSpec& p = space.parameters()[i];
  std::optional<int64_t> cardinality = p.Cardinality();
  if (!cardinality) return std::nullopt;
  if (children.empty()) return std::min(*cardinality, cap);
  // The values some child's condition names; every other value counts 1.
  std::vector<ParameterValue> named;
  for (int c : children) {
    const ParentCondition& condition = *space.parameters()[c].condition;
    for (const std::string& v : condition.categorical_values) {
      named.push_back(ParameterValue::Categorical(v));
    }
    for (int64_t v : condition.int_values) {
      named.push_back(ParameterValue::Integer(v));
    }
    for (double v : condition.discrete_values) {
      named.push_back(ParameterValue::Double(v));
    }
  }
  std::vector<ParameterValue> distinct;
  for (ParameterValue& v : named) {
    if (std::find(distinct.begin(), distinct.end(), v) == distinct.end()) {
      distinct.push_back(std::move(v));
    }
  }
  int64_t count = std::max<int64_t>(
      *cardinality - static_cast<int64_t>(distinct.size()), 0);
  for (const ParameterValue& v : distinct) {
    std::vector<int> activated;
    for (int c : children) {
      if (space.parameters()[c].condition->Matches(v)) activated.push_back(c);
    }
    std::optional<int64_t> n = product_of(activated);
    if (!n) return std::nullopt;
    count = std::min(count + *n, cap);
  }
  return std::min(count, cap);
}

// Whether `trials` trials could cover the space: it is finite and has at
// most that many points. Reads the spec alone.
bool MayBeExhausted(const SearchSpace& space, int64_t trials) {
  std::optional<int64_t> size = PointCount(space, -1, trials + 1);
  return size && *size <= trials;
}

// Whether every point of a finite search space is among `tried` (designers
// never repeat a point, so nothing is left to suggest). Cheap unless the
// space is small enough to have been covered.
bool SpaceExhausted(const SearchSpace& space,
                    const std::vector<const ParameterAssignment*>& tried) {
  const auto limit = static_cast<int64_t>(tried.size());
  std::optional<int64_t> size = PointCount(space, -1, limit + 1);
  if (!size || *size > limit) return false;
  std::set<std::string> distinct;
  for (const ParameterAssignment* a : tried) {
    std::string key;
    for (const auto& [name, value] : *a) {
      absl::StrAppend(&key, name, "=", value.ToString(), "\n");
    }
    distinct.insert(std::move(key));
  }
  return static_cast<int64_t>(distinct.size()) >= *size;
}

}  // namespace

TuningEngine::TuningEngine(store::Store& store, Clock& clock)
    : TuningEngine(store, EngineOptions{}, clock) {}

TuningEngine::TuningEngine(store::Store& store, EngineOptions options,
                           Clock& clock)
    : store_(store),
      clock_(clock),
      designers_(std::move(options.designers)),
      stopping_rules_(std::move(options.stopping_rules)),
      admit_measurement_(std::move(options.admit_measurement)),
      study_locks_(std::make_unique<StudyLocks>()),
      curves_(std::make_unique<CurveCache>(store, kMaxCachedCurvePoints)),
      history_(std::make_unique<TrialHistory>(store, kMaxKeptTrials)) {
  if (options.background_designer_work) {
    background_ = std::make_unique<BackgroundWork>();
  }
}

TuningEngine::~TuningEngine() = default;

namespace {

// What a study that CreateStudy would write holds.
StudyRecord NewStudy(std::string_view name, const StudySpec& spec,
                     uint64_t seed, Timestamp now, int resumed_trials,
                     int64_t owner_uid = -1) {
  return StudyRecord{.name = std::string(name),
                     .spec = spec,
                     .state = StudyState::kActive,
                     .reason = "",
                     .seed = spec.seed.value_or(seed),
                     .create_time = now,
                     .resumed_trials = resumed_trials,
                     .owner_uid = owner_uid};
}

}  // namespace

absl::Status TuningEngine::CheckNewStudy(std::string_view name,
                                         const StudySpec& spec) {
  std::vector<FieldError> errors = ValidateJobId(name, "study name");
  for (auto& e : ValidateStudySpec(spec, "study")) errors.push_back(e);
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(errors));
  // The designer must accept the space (GRID_SEARCH rejects DOUBLE).
  const StudyRecord study = NewStudy(name, spec, 0, clock_.Now(), 0);
  HPTUNE_RETURN_IF_ERROR(
      designers_.Create(DesignerSpec(study), study.seed).status());
  return CheckStoppingRule(spec);
}

absl::StatusOr<StudyRecord> TuningEngine::CreateStudy(std::string_view name,
                                                      const StudySpec& spec,
                                                      int resumed_trials,
                                                      int64_t owner_uid) {
  HPTUNE_RETURN_IF_ERROR(CheckNewStudy(name, spec));
  StudyRecord study =
      NewStudy(name, spec, DrawSeed(), clock_.Now(), resumed_trials, owner_uid);
  HPTUNE_RETURN_IF_ERROR(store_.CreateStudy(study));
  return study;
}

absl::StatusOr<StudyRecord> TuningEngine::OpenOrCreateStudy(
    std::string_view name, const StudySpec& spec) {
  auto existing = store_.GetStudy(name);
  if (absl::IsNotFound(existing.status())) return CreateStudy(name, spec);
  HPTUNE_RETURN_IF_ERROR(existing.status());
  StudySpec wanted = spec;
  if (!wanted.seed) wanted.seed = existing->spec.seed;
  if (!(existing->spec == wanted)) {
    return absl::FailedPreconditionError(
        absl::StrCat("study ", Quoted(name),
                     " exists with a different spec; use another name or "
                     "delete it first"));
  }
  return existing;
}

absl::StatusOr<StudyRecord> TuningEngine::GetStudy(std::string_view name) {
  return store_.GetStudy(name);
}

absl::StatusOr<StudyRecord> StudyAsShown(store::Store& store,
                                         StudyRecord study) {
  // A job's study is named by its job ID.
  absl::StatusOr<JobRecord> job = store.GetJob(study.name);
  if (absl::IsNotFound(job.status())) return study;
  HPTUNE_RETURN_IF_ERROR(job.status());
  if (job->study_name != study.name) return study;
  return WithJobOutcome(std::move(study), *job);
}

absl::StatusOr<StudyRecord> TuningEngine::GetStudyAsShown(
    std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(name));
  return StudyAsShown(store_, std::move(study));
}

absl::StatusOr<std::vector<StudyRecord>> TuningEngine::ListStudiesAsShown() {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies, ListStudies());
  for (StudyRecord& study : studies) {
    HPTUNE_ASSIGN_OR_RETURN(study, StudyAsShown(store_, std::move(study)));
  }
  return studies;
}

absl::StatusOr<std::vector<StudyRecord>> TuningEngine::ListStudies() {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies,
                          store_.ListStudies());
  std::sort(studies.begin(), studies.end(),
            [](const StudyRecord& a, const StudyRecord& b) {
              return a.name < b.name;
            });
  return studies;
}

absl::Status TuningEngine::DeleteStudy(std::string_view name) {
  HPTUNE_RETURN_IF_ERROR(store_.GetStudy(name).status());
  HPTUNE_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_.ListJobs());
  for (const JobRecord& job : jobs) {
    if (job.study_name == name && !IsTerminal(job.state)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "study ", Quoted(name), " belongs to job ", Quoted(job.job_id),
          ", which is ", std::string(ToString(job.state)),
          ": cancel the job first"));
    }
  }
  HPTUNE_RETURN_IF_ERROR(store_.DeleteStudy(name));
  history_->Forget(name);
  if (background_ != nullptr) background_->Forget(name);
  return absl::OkStatus();
}

absl::StatusOr<SuggestResponse> TuningEngine::SuggestTrials(
    std::string_view study_name, int count, std::string_view client_id,
    int lease_seconds) {
  if (count < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("suggestion count must be at least 1, got ", count));
  }
  if (lease_seconds < 0 || lease_seconds > kMaxLeaseSeconds) {
    return absl::InvalidArgumentError(
        absl::StrCat("lease must be 0 to ", kMaxLeaseSeconds, " seconds, got ",
                     lease_seconds));
  }
  StudyLock lock(*study_locks_, study_name);
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  lease_seconds = study.spec.trial_lease_seconds.value_or(lease_seconds);
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          history_->Summaries(study_name));
  // Before counting pending trials: a lapsed lease frees its slot.
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study_name, trials, &lock));

  SuggestResponse response;
  response.lease_seconds = lease_seconds;
  auto room = [&] { return count - static_cast<int>(response.trials.size()); };
  HPTUNE_RETURN_IF_ERROR(HandOutWaitingTrials(
      study_name, client_id, count, lease_seconds, trials, response.trials));
  if (room() == 0) return response;
  if (study.state == StudyState::kCompleted) {
    response.study_completed =
        std::none_of(trials.begin(), trials.end(), IsPending);
    response.note = absl::StrCat("the study is completed: ", study.reason);
    return response;
  }

  const StudySpec& spec = study.spec;
  const auto budget_trials = static_cast<int>(TrialsAgainstBudget(trials));
  int parallel_left = spec.max_parallel_trials - PendingCount(trials);
  // Paused trials the rule promotes go before new ones (freeze-thaw).
  HPTUNE_ASSIGN_OR_RETURN(
      const int resumed,
      ResumePausedTrials(store_, stopping_rules_, study,
                         std::min(room(), parallel_left), client_id,
                         lease_seconds, clock_.Now(), trials, response.trials));
  parallel_left -= resumed;
  if (resumed > 0 && room() == 0) return response;
  std::vector<Trial> completed, pending;
  for (Trial& t : trials) {
    (IsPending(t) ? pending : completed).push_back(std::move(t));
  }
  int budget_left = study.TrialBudget() - budget_trials;
  int to_make = std::min({room(), budget_left, parallel_left});
  if (to_make < room()) {
    response.note =
        budget_left <= parallel_left
            ? absl::StrCat(study.DescribeBudget(), " reached")
            : absl::StrCat("maxParallelTrials (", spec.max_parallel_trials,
                           ") trials are pending");
  }
  std::vector<Trial> fresh;
  if (to_make > 0) {
    HPTUNE_ASSIGN_OR_RETURN(
        fresh, DesignTrials(study, completed, pending, to_make, client_id,
                            lease_seconds));
    if (static_cast<int>(fresh.size()) < to_make) {
      response.note = "the search space is exhausted";
    }
  }
  std::vector<const ParameterAssignment*> tried;
  for (const auto* group : {&completed, &pending, &fresh}) {
    for (const Trial& t : *group) tried.push_back(&t.parameters);
  }
  HPTUNE_ASSIGN_OR_RETURN(
      response.study_completed,
      CompleteStudyIfDone(
          lock, study, static_cast<int64_t>(budget_trials + fresh.size()),
          static_cast<int64_t>(pending.size() + fresh.size()),
          [&] { return SpaceExhausted(spec.search_space, tried); }));
  for (Trial& t : fresh) response.trials.push_back(std::move(t));
  return response;
}

absl::Status TuningEngine::HandOutWaitingTrials(std::string_view study_name,
                                                std::string_view client_id,
                                                int count, int lease_seconds,
                                                std::vector<Trial>& trials,
                                                std::vector<Trial>& out) {
  auto room = [&] { return count - static_cast<int>(out.size()); };
  const Timestamp now = clock_.Now();
  // A client asking again gets its unfinished trials back first, their
  // leases renewed.
  for (Trial& t : trials) {
    if (room() == 0 || t.client_id != client_id ||
        t.state != TrialState::kActive) {
      continue;
    }
    if (lease_seconds > 0) {
      HPTUNE_ASSIGN_OR_RETURN(
          t, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
            RenewLease(u, lease_seconds, now);
            return absl::OkStatus();
          }));
      t.measurements.clear();  // Summaries only, like the rest of `trials`.
    }
    out.push_back(t);
  }
  // Then trials queued by users (CreateTrial in REQUESTED), oldest first.
  for (Trial& t : trials) {
    if (room() == 0 || t.state != TrialState::kRequested) continue;
    HPTUNE_ASSIGN_OR_RETURN(
        t, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
          u.client_id = std::string(client_id);
          RenewLease(u, lease_seconds, now);
          return u.TransitionTo(TrialState::kActive, now);
        }));
    t.measurements.clear();  // Summaries only, like the rest of `trials`.
    out.push_back(t);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Trial>> TuningEngine::DesignTrials(
    const StudyRecord& study, const std::vector<Trial>& completed,
    const std::vector<Trial>& pending, int count, std::string_view client_id,
    int lease_seconds) {
  const std::string& study_name = study.name;
  HPTUNE_ASSIGN_OR_RETURN(auto designer,
                          designers_.Create(DesignerSpec(study), study.seed));
  HPTUNE_ASSIGN_OR_RETURN(std::string state,
                          store_.GetDesignerState(study_name));
  HPTUNE_RETURN_IF_ERROR(designer->RestoreState(state));
  if (background_ != nullptr) {
    designer->DeferWork();
    // The newest fit since the last call (DeleteStudy forgets a study's).
    if (std::optional<std::string> result =
            background_->TakeResult(study_name)) {
      HPTUNE_RETURN_IF_ERROR(designer->AcceptDeferredResult(*result));
    }
  }
  HPTUNE_RETURN_IF_ERROR(designer->Update(completed, pending));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<algorithms::Suggestion> suggestions,
                          designer->Suggest(count));
  if (background_ != nullptr) {
    if (auto work = designer->TakeDeferredWork()) {
      background_->Submit(study_name, *std::move(work));
    }
  }
  std::vector<Trial> fresh;
  for (auto& s : suggestions) {
    HPTUNE_RETURN_IF_ERROR(
        study.spec.search_space.CheckAssignment(s.parameters));
    Trial t;
    t.parameters = std::move(s.parameters);
    t.origin = std::move(s.origin);
    t.client_id = std::string(client_id);
    t.state = TrialState::kActive;
    t.start_time = clock_.Now();
    RenewLease(t, lease_seconds, *t.start_time);
    fresh.push_back(std::move(t));
  }
  if (fresh.empty()) return fresh;
  return store_.AddTrials(study_name, std::move(fresh), designer->SaveState());
}

absl::StatusOr<Trial> TuningEngine::CreateTrial(std::string_view study_name,
                                                Trial trial) {
  // Serialised with the study's suggestions: a trial added between a
  // suggestion's read of the history and its write would break the budget
  // and the no-repeat rule.
  StudyLock lock(*study_locks_, study_name);
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_RETURN_IF_ERROR(
      study.spec.search_space.CheckAssignment(trial.parameters));
  if (!IsTerminal(trial.state)) {
    if (study.state == StudyState::kCompleted) {
      return absl::FailedPreconditionError(
          absl::StrCat("study ", Quoted(study_name), " is completed (",
                       study.reason, "); it runs no more trials"));
    }
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrialSummaries(study_name));
    if (TrialsAgainstBudget(trials) >= study.TrialBudget()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "study ", Quoted(study_name), ": ", study.DescribeBudget(),
          " reached; a trial to run cannot be added"));
    }
  }
  if (trial.final_measurement) {
    HPTUNE_RETURN_IF_ERROR(ValidateMeasurement(*trial.final_measurement));
  }
  if (trial.origin.empty()) trial.origin = "user";
  Timestamp now = clock_.Now();
  if (trial.state == TrialState::kActive && !trial.start_time) {
    trial.start_time = now;
  }
  if (trial.lease_seconds > 0) RenewLease(trial, trial.lease_seconds, now);
  if (IsTerminal(trial.state) && !trial.end_time) trial.end_time = now;
  HPTUNE_ASSIGN_OR_RETURN(
      std::vector<Trial> stored,
      store_.AddTrials(study_name, {std::move(trial)}, std::nullopt));
  return stored.front();
}

absl::Status TuningEngine::AddMeasurement(std::string_view study, int64_t trial,
                                          Measurement measurement) {
  HPTUNE_RETURN_IF_ERROR(StampAndValidate(clock_, measurement));
  if (admit_measurement_) {
    HPTUNE_RETURN_IF_ERROR(admit_measurement_(study, measurement));
  }
  return store_.AddMeasurement(study, trial, measurement);
}

void TuningEngine::AddMeasurementAsync(std::string_view study, int64_t trial,
                                       Measurement measurement,
                                       std::function<void(absl::Status)> done) {
  absl::Status valid = StampAndValidate(clock_, measurement);
  if (valid.ok() && admit_measurement_) {
    valid = admit_measurement_(study, measurement);
  }
  if (!valid.ok()) {
    done(valid);
    return;
  }
  store_.AddMeasurementAsync(study, trial, measurement, std::move(done));
}

absl::StatusOr<Trial> TuningEngine::CompleteTrial(
    std::string_view study_name, int64_t number,
    std::optional<Measurement> final) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  if (final) {
    if (final->time == Timestamp{}) final->time = clock_.Now();
    HPTUNE_RETURN_IF_ERROR(ValidateMeasurement(*final));
  }
  // The primary metric first: a report is a line that carries it.
  std::vector<MetricSpec> metrics = study.spec.Objectives();
  for (MetricSpec& m : study.spec.Constraints()) metrics.push_back(m);
  if (final) {
    if (const MetricSpec* missing = MissingMetric(*final, metrics)) {
      return absl::InvalidArgumentError(
          absl::StrCat("trial ", number, ": the final measurement has no ",
                       "value of the study's metric ", Quoted(missing->id)));
    }
  }
  Timestamp now = clock_.Now();
  HPTUNE_ASSIGN_OR_RETURN(
      Trial trial,
      store_.UpdateTrial(study_name, number, [&](Trial& t) -> absl::Status {
        std::optional<Measurement> result =
            final ? final : LastWithMetrics(t, metrics);
        t.final_measurement = result;
        if (!result) {
          t.reason = absl::StrCat("the trial reported no value of metric ",
                                  Quoted(metrics.front().id));
        } else if (const MetricSpec* missing =
                       MissingMetric(*result, metrics)) {
          t.reason = absl::StrCat(
              "the trial's last report of ", Quoted(metrics.front().id),
              " has no value of metric ", Quoted(missing->id),
              ": it is not a feasible result");
        }
        return t.TransitionTo(TrialState::kSucceeded, now);
      }));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return trial;
}

absl::StatusOr<Trial> TuningEngine::MarkTrialInfeasible(
    std::string_view study, int64_t trial, std::string_view reason) {
  return EndTrial(study, trial, TrialState::kInfeasible, reason);
}

absl::StatusOr<Trial> TuningEngine::MarkTrialFailed(std::string_view study,
                                                    int64_t trial,
                                                    std::string_view reason) {
  return EndTrial(study, trial, TrialState::kFailed, reason);
}

absl::StatusOr<Trial> TuningEngine::MarkTrialStarted(std::string_view study,
                                                     int64_t trial,
                                                     Timestamp started) {
  return store_.UpdateTrial(study, trial, [&](Trial& t) {
    if (t.state == TrialState::kActive) t.start_time = started;
    return absl::OkStatus();
  });
}

absl::StatusOr<Trial> TuningEngine::MarkTrialCancelled(
    std::string_view study, int64_t trial, std::string_view reason) {
  return EndTrial(study, trial, TrialState::kCancelled, reason);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 std::string_view rule,
                                 const std::set<int64_t>& only) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<algorithms::StoppingPolicy> policy,
                          stopping_rules_.Create(rule));
  return CheckEarlyStopping(study_name, *policy, only,
                            /*several_objectives_by_dominance=*/true);
}

absl::Status TuningEngine::CheckStoppingRule(const StudySpec& spec) const {
  const std::string& rule = spec.EffectiveStoppingRule();
  if (!spec.enable_early_stopping || stopping_rules_.Contains(rule)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "study.earlyStoppingRule: no early-stopping rule is registered as \"",
      rule, "\"; registered: ", absl::StrJoin(stopping_rules_.Names(), ", ")));
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 const std::set<int64_t>& only) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  return CheckEarlyStopping(study_name, study.spec.EffectiveStoppingRule(),
                            only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingRule rule,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStopping(study_name, algorithms::RuleName(rule), only);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingPolicy& policy,
                                 const std::set<int64_t>& only) {
  return CheckEarlyStopping(study_name, policy, only,
                            /*several_objectives_by_dominance=*/false);
}

absl::StatusOr<std::vector<algorithms::StoppingDecision>>
TuningEngine::CheckEarlyStopping(std::string_view study_name,
                                 algorithms::StoppingPolicy& policy,
                                 const std::set<int64_t>& only,
                                 bool several_objectives_by_dominance) {
  std::vector<algorithms::StoppingDecision> decisions;
  bool judged = false;
  if (auto* curve_policy =
          dynamic_cast<algorithms::CurveStoppingPolicy*>(&policy)) {
    // A curve rule judges each ACTIVE trial by its own curve against the
    // SUCCEEDED trials' curves alone, so the other trials can be left out,
    // and the curves kept between checks.
    HPTUNE_RETURN_IF_ERROR(curves_->WithCurves(
        study_name, only,
        [&](const StudySpec& spec,
            std::span<const algorithms::TrialCurve> trials) -> absl::Status {
          if (several_objectives_by_dominance && spec.Objectives().size() > 1) {
            return absl::OkStatus();
          }
          HPTUNE_ASSIGN_OR_RETURN(decisions,
                                  curve_policy->DecideOnCurves(spec, trials));
          judged = true;
          return absl::OkStatus();
        }));
  }
  if (!judged) {
    // Another rule (ASHA ranks every running trial against the others), or
    // the dominance rule for a study of several objectives
    // (CreateStoppingPolicy(spec, rule)), reads them all.
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            store_.ListTrials(study_name));
    trials = WithoutResumed(std::move(trials));
    std::unique_ptr<algorithms::StoppingPolicy> dominance;
    algorithms::StoppingPolicy* judge = &policy;
    if (several_objectives_by_dominance && study.spec.Objectives().size() > 1) {
      dominance = algorithms::CreateStoppingPolicy(
          study.spec, algorithms::StoppingRule::kMedian);
      judge = dominance.get();
    }
    HPTUNE_ASSIGN_OR_RETURN(decisions, judge->Decide(study.spec, trials));
  }
  if (!only.empty()) {
    std::erase_if(decisions, [&](const algorithms::StoppingDecision& d) {
      return !only.contains(d.trial);
    });
  }
  return decisions;
}

absl::StatusOr<Trial> TuningEngine::StopTrial(std::string_view study,
                                              int64_t number,
                                              std::string_view reason) {
  Timestamp now = clock_.Now();
  return store_.UpdateTrial(study, number, [&](Trial& t) {
    t.stopped_early = true;
    t.reason = std::string(reason);
    return t.TransitionTo(TrialState::kStopping, now);
  });
}

absl::StatusOr<Trial> TuningEngine::EndTrial(std::string_view study_name,
                                             int64_t number, TrialState state,
                                             std::string_view reason) {
  if (reason.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", number, ": a reason is required to mark it ",
                     std::string(ToString(state))));
  }
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  Timestamp now = clock_.Now();
  HPTUNE_ASSIGN_OR_RETURN(Trial trial,
                          store_.UpdateTrial(study_name, number, [&](Trial& t) {
                            t.reason = std::string(reason);
                            return t.TransitionTo(state, now);
                          }));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return trial;
}

absl::StatusOr<Trial> TuningEngine::GetTrial(std::string_view study,
                                             int64_t trial) {
  HPTUNE_ASSIGN_OR_RETURN(Trial read, store_.GetTrial(study, trial));
  std::vector<Trial> one = {std::move(read)};
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, one, nullptr));
  return std::move(one.front());
}

absl::StatusOr<std::vector<Trial>> TuningEngine::ListTrials(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials, store_.ListTrials(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  return trials;
}

absl::StatusOr<std::vector<Trial>> TuningEngine::ListTrialSummaries(
    std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  return trials;
}

absl::StatusOr<std::vector<Trial>> TuningEngine::RenewLeases(
    std::string_view study, std::string_view client_id) {
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          history_->Summaries(study));
  HPTUNE_RETURN_IF_ERROR(EndLapsedLeases(study, trials, nullptr));
  const Timestamp now = clock_.Now();
  std::vector<Trial> renewed;
  for (const Trial& t : trials) {
    if (t.client_id != client_id || IsTerminal(t.state) ||
        t.lease_seconds == 0) {
      continue;
    }
    // Checked again in the transaction: another call may have ended it.
    HPTUNE_ASSIGN_OR_RETURN(
        Trial u, store_.UpdateTrial(study, t.number, [&](Trial& u) {
          if (!IsTerminal(u.state) && !LeaseLapsed(u, now)) {
            RenewLease(u, u.lease_seconds, now);
          }
          return absl::OkStatus();
        }));
    if (IsTerminal(u.state) || u.heartbeat_time != now) continue;
    u.measurements.clear();
    renewed.push_back(std::move(u));
  }
  return renewed;
}

absl::Status TuningEngine::EndLapsedLeases(std::string_view study_name,
                                           std::vector<Trial>& trials,
                                           const StudyLock* lock) {
  const Timestamp now = clock_.Now();
  bool ended = false;
  for (Trial& t : trials) {
    if (!LeaseLapsed(t, now)) continue;
    HPTUNE_ASSIGN_OR_RETURN(
        Trial u, store_.UpdateTrial(study_name, t.number, [&](Trial& u) {
          return LeaseLapsed(u, now) ? EndLapsedTrial(u, now)
                                     : absl::OkStatus();
        }));
    if (t.measurements.empty()) u.measurements.clear();  // A summary.
    t = std::move(u);
    ended = true;
  }
  if (!ended || lock != nullptr) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  CompleteStudyIfDoneAfterTrialEnded(study);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<Trial>> TuningEngine::BestTrial(
    std::string_view study_name) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study_name));
  return hptune::BestTrial(study.spec, trials);
}

absl::StatusOr<std::vector<Trial>> TuningEngine::OptimalTrials(
    std::string_view study_name) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study_name));
  return hptune::OptimalTrials(study.spec, trials);
}

absl::StatusOr<algorithms::ImportanceReport> TuningEngine::ParameterImportance(
    std::string_view study_name) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, store_.GetStudy(study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          store_.ListTrialSummaries(study_name));
  return algorithms::StudyImportance(study, trials);
}

void TuningEngine::CompleteStudyIfDoneAfterTrialEnded(
    const StudyRecord& study) {
  StudyLock lock(*study_locks_, study.name);
  // Statuses, not summaries: most studies are decided by their counts, and
  // decoding every trial's parameters after each completion cost a fifth
  // of a busy server's CPU (benchmarks/RESULTS.md).
  auto statuses = store_.ListTrialStatuses(study.name);
  if (!statuses.ok()) return;
  auto trials = static_cast<int64_t>(statuses->trials.size());
  const auto pending = static_cast<int64_t>(std::count_if(
      statuses->trials.begin(), statuses->trials.end(),
      [](const store::TrialStatus& t) { return !IsTerminal(t.state); }));
  if (pending == 0) {
    // A study that resumes paused trials is not done while one deserves it,
    // and its continuations do not count against the budget.
    auto resuming = ResumingPolicy(stopping_rules_, study.spec);
    if (!resuming.ok()) return;
    if (*resuming != nullptr) {
      auto all = store_.ListTrials(study.name);
      if (!all.ok()) return;
      auto waiting = HasTrialToResume(**resuming, study.spec, *all);
      if (!waiting.ok() || *waiting) return;
      trials = TrialsAgainstBudget(*all);
    }
  }
  const SearchSpace& space = study.spec.search_space;
  auto space_exhausted = [&] {
    if (!MayBeExhausted(space, trials)) return false;
    auto summaries = store_.ListTrialSummaries(study.name);
    if (!summaries.ok()) return false;
    std::vector<const ParameterAssignment*> tried;
    for (const Trial& t : *summaries) tried.push_back(&t.parameters);
    return SpaceExhausted(space, tried);
  };
  // The trial's end is already committed. Completing the study is
  // bookkeeping that the next SuggestTrials derives again, so a failure here
  // must not turn this call into an error (a retry would then fail on the
  // ended trial).
  CompleteStudyIfDone(lock, study, trials, pending, space_exhausted)
      .status()
      .IgnoreError();
}

absl::StatusOr<bool> TuningEngine::CompleteStudyIfDone(
    const StudyLock& lock, const StudyRecord& study, int64_t trials,
    int64_t pending, absl::FunctionRef<bool()> space_exhausted) {
  HPTUNE_CHECK(lock.study() == study.name,
               "CompleteStudyIfDone: another study's lock is held");
  if (pending > 0) return false;
  if (study.state == StudyState::kCompleted) return true;
  std::string reason;
  if (trials >= study.TrialBudget()) {
    reason = absl::StrCat(study.DescribeBudget(), " reached");
  } else if (space_exhausted()) {
    reason =
        absl::StrCat("the search space is exhausted after ", trials, " trials");
  } else {
    return false;
  }
  HPTUNE_RETURN_IF_ERROR(
      store_.SetStudyState(study.name, StudyState::kCompleted, reason));
  return true;
}

}  // namespace hptune::engine

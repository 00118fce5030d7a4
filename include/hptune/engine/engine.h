// TuningEngine: the embeddable ask/tell API of hptune.
//
// A scheduler (or the hptune server and CLI) creates or opens a study on a
// Store, asks for trials, reports intermediate and final measurements, and
// reads the trials and the best one. The engine picks the designer for the
// study's algorithm, feeds it the history (pending trials included, so
// parallel suggestions differ), and persists new trials together with the
// designer's state in one transaction, so a restarted process continues the
// study exactly.
//
// Embedding: a scheduler plugs in its own search algorithm by registering a
// designer factory in EngineOptions::designers under a name of its own and
// setting StudySpec::custom_algorithm to that name; its own early-stopping
// rule is registered by name in EngineOptions::stopping_rules and checked
// with CheckEarlyStopping(study, name), or is any algorithms::StoppingPolicy
// passed to CheckEarlyStopping.
// Why a user's designer is named by custom_algorithm and not by
// `algorithm` itself: `algorithm` is AI Platform's enum, which config files
// and the v1 API carry and `hptune validate` checks (core's config parser
// refuses names AI Platform does not know); a user's designer exists only in
// the process that registered it, so only a StudySpec built in C++ can name
// it, and the engine that will run the study is what validates the name:
// CreateStudy refuses a name its registry does not know. A registry built
// without RegisterBuiltins() may also register hptune's names
// (ALGORITHM_UNSPECIFIED, ...), replacing a built-in designer for config
// files too.
//
// Thread-safe: calls may come from many threads. Suggestions and new trials
// of one study are serialised per TuningEngine (those of different studies
// run at once), so a process should use one engine per Store. Several
// processes may share one SQLite file; suggestions for a study should then
// come from one of them (the hptune server), the others only reporting
// results: two processes suggesting at once could repeat a point.
#ifndef HPTUNE_ENGINE_ENGINE_H_
#define HPTUNE_ENGINE_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/algorithms/importance.h"
#include "hptune/algorithms/registry.h"
#include "hptune/algorithms/stopping_policy.h"
#include "hptune/algorithms/stopping_registry.h"
#include "hptune/core/measurement.h"
#include "hptune/core/savings.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/store.h"

namespace hptune::engine {

class BackgroundWork;
class CurveCache;
class TrialHistory;
class StudyLock;
class StudyLocks;

struct SuggestResponse {
  // The client's unfinished trials first (oldest first), then new ones; all
  // ACTIVE and assigned to the client.
  std::vector<Trial> trials;
  // No trial will ever be suggested again: the budget is spent or the search
  // space exhausted, and nothing is pending.
  bool study_completed = false;
  // Why fewer trials than asked came back ("" when all did).
  std::string note;
  // The lease the trials carry: the study's trial_lease_seconds, else the
  // caller's.
  int lease_seconds = 0;
};

// The longest lease of an ask/tell trial (SuggestTrials): a day.
inline constexpr int kMaxLeaseSeconds = kMaxTrialLeaseSeconds;

struct EngineOptions {
  // The designers studies may name (StudySpec::algorithm and
  // custom_algorithm). hptune's own by default; add yours with
  // designers.Register(name, factory).
  algorithms::DesignerRegistry designers =
      algorithms::DesignerRegistry::WithBuiltins();
  // The early-stopping rules CheckEarlyStopping may name. hptune's own by
  // default (StoppingRuleRegistry::RegisterBuiltins); add yours with
  // stopping_rules.Register(name, factory).
  algorithms::StoppingRuleRegistry stopping_rules =
      algorithms::StoppingRuleRegistry::WithBuiltins();
  // Designers defer what only improves later suggestions (the GP's
  // hyperparameter refits, which take seconds on hundreds of trials) to one
  // worker thread of this engine, and suggest at once with what they have
  // (designer.h). Suggestions then depend on when that work finished. Off:
  // every suggestion is a function of the seed and the history (the quality
  // harness, reproducible runs); the hptune server and `hptune run` turn
  // it on.
  bool background_designer_work = false;
  // Asked before each intermediate measurement is stored (AddMeasurement,
  // AddMeasurementAsync, a job's reports): an error refuses it and is the
  // caller's answer. The server's per-user quota on stored bytes
  // (src/server/user_quotas.h); none when empty. Called on the caller's
  // thread; must be thread-safe.
  std::function<absl::Status(std::string_view study, const Measurement&)>
      admit_measurement;
  // Seeds a study created without spec.seed (Env::RandomSeed): the
  // server's and `hptune run`'s Env. Without one, such a seed is the
  // engine's clock in microseconds mixed with a count of this engine's
  // draws: distinct within the engine, but predictable, for tests and
  // embedders that seed their studies. Must outlive the engine.
  Env* env = nullptr;
};

class TuningEngine {
 public:
  // With hptune's designers (EngineOptions{}).
  explicit TuningEngine(store::Store& store, Clock& clock);
  TuningEngine(store::Store& store, EngineOptions options, Clock& clock);
  ~TuningEngine();

  // Creates study `name` after validating `spec`; AlreadyExists if the name
  // is taken; InvalidArgument naming the registered rules when the spec
  // turns early stopping on with a rule EngineOptions::stopping_rules lacks.
  // Without spec.seed a seed is drawn and recorded in the study.
  // `resumed_trials`: the trials a job resumes, which the caller adds next
  // (StudyRecord::resumed_trials); `owner_uid`: who makes it
  // (StudyRecord::owner_uid).
  absl::StatusOr<StudyRecord> CreateStudy(std::string_view name,
                                          const StudySpec& spec,
                                          int resumed_trials = 0,
                                          int64_t owner_uid = -1);
  // What CreateStudy checks before it writes (the name, the spec, that the
  // designer accepts the space, the stopping rule), writing nothing: a
  // caller that must record something first (a job, which owns its study
  // from its first row) refuses a bad spec before that.
  [[nodiscard]] absl::Status CheckNewStudy(std::string_view name,
                                           const StudySpec& spec);
  // The existing study `name` when its spec equals `spec` (ignoring an unset
  // seed), or a new one. FailedPrecondition when it exists with another spec.
  absl::StatusOr<StudyRecord> OpenOrCreateStudy(std::string_view name,
                                                const StudySpec& spec);
  absl::StatusOr<StudyRecord> GetStudy(std::string_view name);
  // Every study, by name.
  absl::StatusOr<std::vector<StudyRecord>> ListStudies();
  // The same as users are shown them (read::StudyAsShown,
  // hptune/read/study_answers.h): what the gRPC API answers.
  absl::StatusOr<StudyRecord> GetStudyAsShown(std::string_view name);
  absl::StatusOr<std::vector<StudyRecord>> ListStudiesAsShown();
  // Removes study `name` with its trials and designer state. NotFound when
  // there is none; FailedPrecondition while a job that is not finished runs
  // it (the job must be cancelled first).
  [[nodiscard]] absl::Status DeleteStudy(std::string_view name);
  // Removes ended job `job_id` with its study (Store::DeleteJob): NotFound
  // naming the job; FailedPrecondition naming its state until it has ended.
  [[nodiscard]] absl::Status DeleteJob(std::string_view job_id);

  // Up to `count` trials for `client_id`: the client's unfinished trials,
  // then trials users queued (REQUESTED, now ACTIVE for this client), then
  // new ones from the designer. Honours maxTrials (every trial counts, user
  // trials too) and maxParallelTrials (pending trials of all clients).
  // With `lease_seconds` > 0 the client's trials (those handed back too)
  // carry a lease of that many seconds from now (see RenewLeases).
  absl::StatusOr<SuggestResponse> SuggestTrials(std::string_view study,
                                                int count,
                                                std::string_view client_id,
                                                int lease_seconds = 0);

  // Leases of ask/tell trials (docs/api.md, "Leases"). A pending trial with
  // a lease whose client sent no heartbeat for longer than the lease is
  // ended as FAILED, with a reason naming the client, by the next call that
  // reads it: SuggestTrials (which frees its maxParallelTrials slot),
  // RenewLeases, GetTrial, ListTrials, ListTrialSummaries. RenewLeases is
  // that heartbeat: it ends the study's lapsed trials, then restarts the
  // lease of each of `client_id`'s pending trials that has one, and
  // returns those (without measurements). A lapsed lease is never revived.
  absl::StatusOr<std::vector<Trial>> RenewLeases(std::string_view study,
                                                 std::string_view client_id);

  // Adds a trial given by the user: REQUESTED to be run (the next
  // SuggestTrials hands it out), ACTIVE for its client_id, or already
  // SUCCEEDED (with final_measurement) or INFEASIBLE (with reason) to seed
  // the study with known results. A trial to run needs room in maxTrials
  // and an active study (FailedPrecondition otherwise).
  absl::StatusOr<Trial> CreateTrial(std::string_view study, Trial trial);

  // Define-by-run (docs/api.md, "Define-by-run"): the value of root
  // parameter `spec` in pending trial `trial`, whose client suggests it.
  // A parameter the study's space lacks joins it, with first_trial =
  // `trial` (trials may lack it); a trial without a value gets
  // algorithms::DrawJoiningValue's, one with a value keeps it
  // (Store::AddTrialParameter, whose errors these are too).
  // FailedPrecondition for a job's study (its trainers take the config's
  // flags) and a study of a custom designer, which may not read a grown
  // space.
  absl::StatusOr<Trial> AddTrialParameter(std::string_view study, int64_t trial,
                                          ParameterSpec spec);
  // Define-by-run: takes `unused` out of pending trial `trial`, the
  // parameters its client never suggested, so that designers see them
  // inactive there (a branch the trial did not take). Each must be one a
  // trial may lack (first_trial > 0); one the trial lacks already is
  // skipped, so a retried call changes nothing. InvalidArgument naming a
  // config's parameter; FailedPrecondition for an ended trial, and for the
  // studies AddTrialParameter refuses.
  absl::StatusOr<Trial> LeaveOutUnusedParameters(
      std::string_view study, int64_t trial,
      const std::vector<std::string>& unused);

  // An intermediate measurement of an ACTIVE or STOPPING trial. A zero time
  // is stamped with the clock.
  [[nodiscard]] absl::Status AddMeasurement(std::string_view study,
                                            int64_t trial,
                                            Measurement measurement);
  // The same, answered through `done` (Store::AddMeasurementAsync): for a
  // caller that must not wait for the commit.
  void AddMeasurementAsync(std::string_view study, int64_t trial,
                           Measurement measurement,
                           std::function<void(absl::Status)> done);

  // Ends a trial as SUCCEEDED. The final measurement is `final` when given,
  // else the last intermediate measurement that has the study's metric; a
  // trial that reported neither ends without one and with a reason saying so.
  absl::StatusOr<Trial> CompleteTrial(std::string_view study, int64_t trial,
                                      std::optional<Measurement> final);
  // Ends a trial as INFEASIBLE (the point cannot be evaluated).
  absl::StatusOr<Trial> MarkTrialInfeasible(std::string_view study,
                                            int64_t trial,
                                            std::string_view reason);
  // Ends a trial as FAILED (its training job failed).
  absl::StatusOr<Trial> MarkTrialFailed(std::string_view study, int64_t trial,
                                        std::string_view reason);

  // Moves an ACTIVE trial's start time to `started`, when its replicas left
  // the backend's queue (a Slurm job PENDING until then), so that its
  // startTime and its measurements' elapsed time count running, not
  // waiting. A trial in another state is returned unchanged.
  absl::StatusOr<Trial> MarkTrialStarted(std::string_view study, int64_t trial,
                                         Timestamp started);

  // Ends a trial as CANCELLED (its job was cancelled or failed first).
  absl::StatusOr<Trial> MarkTrialCancelled(std::string_view study,
                                           int64_t trial,
                                           std::string_view reason);

  // Early stopping. CheckEarlyStopping asks the policy of the rule
  // registered as `rule` (EngineOptions::stopping_rules), with the study's
  // settings when it is the study's own rule, or for a study of several
  // objectives of the dominance rule (StoppingRuleRegistry::CreateForStudy),
  // about every ACTIVE trial of the study, or only those in `only` when
  // it is not empty (other trials are left out of the reply); StopTrial moves
  // one ACTIVE trial to STOPPING with stopped_early set and the reason. Its
  // runner then ends it with CompleteTrial, whose final measurement is its last
  // one. CheckEarlyStopping is on clients' hot path (after every measurement):
  // for the median rules it reads only the curves they need, and of those only
  // what was reported since the last check (src/engine/curve_cache.h).
  // InvalidArgument when no rule is registered as `rule`.
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> CheckEarlyStopping(
      std::string_view study, std::string_view rule,
      const std::set<int64_t>& only = {});
  // The same with the study's own rule (StudySpec::EffectiveStoppingRule):
  // what runners and the API use.
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> CheckEarlyStopping(
      std::string_view study, const std::set<int64_t>& only = {});
  // The same with a policy of the caller's, e.g. its own rule. A
  // CurveStoppingPolicy gets the cached curves; any other policy every trial
  // of the study with its measurements. `policy` is used during the call
  // only, from the calling thread.
  absl::StatusOr<std::vector<algorithms::StoppingDecision>> CheckEarlyStopping(
      std::string_view study, algorithms::StoppingPolicy& policy,
      const std::set<int64_t>& only = {});
  absl::StatusOr<Trial> StopTrial(std::string_view study, int64_t trial,
                                  std::string_view reason);

  absl::StatusOr<Trial> GetTrial(std::string_view study, int64_t trial);
  absl::StatusOr<std::vector<Trial>> ListTrials(std::string_view study);
  // The same without their intermediate measurements (cheaper to read).
  absl::StatusOr<std::vector<Trial>> ListTrialSummaries(std::string_view study);
  // The feasible result with the best final objective (ties: the earlier
  // trial); nullopt when no trial has one yet (core's BestTrial).
  absl::StatusOr<std::optional<Trial>> BestTrial(std::string_view study);
  // The best trial, or with several objectives the feasible Pareto front, in
  // trial order (core's OptimalTrials).
  absl::StatusOr<std::vector<Trial>> OptimalTrials(std::string_view study);
  // How much each parameter mattered for reaching the best trials
  // (algorithms::StudyImportance, PED-ANOVA), from the trials so far.
  absl::StatusOr<algorithms::ImportanceReport> ParameterImportance(
      std::string_view study);
  // What early stopping saved (core's ShownStoppingSavings, with the
  // footprint of the study's job); nullopt when the study does not stop
  // trials early and none was stopped. These four are the read side's
  // answers (hptune/read/study_answers.h), computed at each call.
  absl::StatusOr<std::optional<hptune::StoppingSavings>> EarlyStoppingSavings(
      std::string_view study);

 private:
  // CheckEarlyStopping by `rule`, or the study's own rule when nullopt: the
  // policy is built from the spec the curve cache holds, so a check by a
  // curve rule reads no spec from the store.
  absl::StatusOr<std::vector<algorithms::StoppingDecision>>
  CheckEarlyStoppingBy(std::string_view study,
                       std::optional<std::string_view> rule,
                       const std::set<int64_t>& only);
  absl::StatusOr<Trial> EndTrial(std::string_view study, int64_t trial,
                                 TrialState state, std::string_view reason);
  // Ends `trials`' lapsed leases (see RenewLeases) in the store and in
  // `trials`. Under the study's lock (`lock`), the caller completes the
  // study if need be; without it, this does.
  absl::Status EndLapsedLeases(std::string_view study,
                               std::vector<Trial>& trials,
                               const StudyLock* lock);
  // SuggestTrials' steps, under suggest_mutex_. First the trials that wait
  // for a client, to `out` while it has fewer than `count`: `client_id`'s
  // own ACTIVE ones, then REQUESTED ones, which become its (in `trials`
  // too); all with a lease of `lease_seconds` when it is not 0.
  absl::Status HandOutWaitingTrials(std::string_view study,
                                    std::string_view client_id, int count,
                                    int lease_seconds,
                                    std::vector<Trial>& trials,
                                    std::vector<Trial>& out);
  // Then up to `count` new trials from the study's designer, stored ACTIVE
  // for `client_id` (with that lease) with the designer's state in the same
  // call; fewer when the space is exhausted.
  absl::StatusOr<std::vector<Trial>> DesignTrials(
      const StudyRecord& study, const std::vector<Trial>& completed,
      const std::vector<Trial>& pending, int count, std::string_view client_id,
      int lease_seconds);
  // Marks the study COMPLETED, and says so, when nothing more can run in it:
  // no trial is pending and maxTrials is reached or every point of a finite
  // space has been tried. `trials` and `pending` count its trials, read
  // under `lock`, the study's; `space_exhausted` tells whether their
  // parameters cover the space, asked only when the budget is not reached.
  absl::StatusOr<bool> CompleteStudyIfDone(
      const StudyLock& lock, const StudyRecord& study, int64_t trials,
      int64_t pending, absl::FunctionRef<bool()> space_exhausted);
  // The same after a trial ended, reading the trial statuses from the store
  // (the parameters only when a finite space could be covered); never fails
  // the caller (see the definition).
  void CompleteStudyIfDoneAfterTrialEnded(const StudyRecord& study);
  // OK unless `spec` stops early by a rule that is not registered, or gives
  // it settings its factory refuses.
  absl::Status CheckStoppingRule(const StudySpec& spec) const;

  // A seed for a study created without one (EngineOptions::env).
  uint64_t DrawSeed();

  store::Store& store_;
  Clock& clock_;
  Env* const env_;
  std::atomic<uint64_t> seeds_drawn_{0};
  const algorithms::DesignerRegistry designers_;
  const algorithms::StoppingRuleRegistry stopping_rules_;
  const std::function<absl::Status(std::string_view, const Measurement&)>
      admit_measurement_;
  // Serialises each study's suggestions and new trials, so concurrent
  // clients never get the same point (src/engine/study_locks.h).
  std::unique_ptr<StudyLocks> study_locks_;

  // The median rules' curves between checks (src/engine/curve_cache.h).
  std::unique_ptr<CurveCache> curves_;
  // The ended trials between suggestions (src/engine/trial_history.h).
  std::unique_ptr<TrialHistory> history_;
  // Designers' deferred work, with background_designer_work; destroyed
  // first, which cancels it (src/engine/background_work.h).
  std::unique_ptr<BackgroundWork> background_;
};

}  // namespace hptune::engine

#endif  // HPTUNE_ENGINE_ENGINE_H_

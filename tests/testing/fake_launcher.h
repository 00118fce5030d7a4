// FakeLauncher: a Launcher whose replicas are scripted instead of run, on a
// simulated clock (FakeEnv's), for fast unit tests of the job runner's
// lifecycle logic: restarts, re-runs, failures, limits, early stopping.
//
// Its clock and files are `env`'s (a FakeEnv: the master's reports go to
// its in-memory hypertune file).
//
// Each start of a replica asks the test's Script how that start behaves:
// when it exits and with what, and (for the master) which reports it writes
// to the trial's hypertune file, at which times after its start. Exits and
// reports happen when the runner polls at or after their time. Placements
// hand out GPUs from a count (no ports). Everything the runner did is in
// log(), one line per start ("trial 1 worker-0 start 2") and per terminate.
// Thread-compatible: one runner thread.
#ifndef HPTUNE_TESTS_TESTING_FAKE_LAUNCHER_H_
#define HPTUNE_TESTS_TESTING_FAKE_LAUNCHER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hptune/core/measurement.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::testing {

// One report of a scripted master: written `after` its start.
struct FakeReport {
  std::chrono::milliseconds after{0};
  int64_t step = 0;
  double value = 0;
};

// How one start of a replica behaves.
struct FakeReplica {
  // When it exits after its start; nullopt: it runs until terminated.
  std::optional<std::chrono::milliseconds> exits_after;
  int exit_code = 0;
  bool cannot_start = false;        // Launcher::Start (or Restart) fails.
  std::vector<FakeReport> reports;  // Master only: to the hypertune file.
};

// Which start is asked about: `start` counts this replica's starts in this
// trial, across attempts (1, 2, ...).
struct FakeStart {
  int64_t trial = 0;
  std::string name;  // "master-0", "worker-1".
  int start = 1;
};

using FakeScript = std::function<FakeReplica(const FakeStart&)>;

class FakeLauncher : public launch::Launcher {
 public:
  // `metric` is the tag reports are written under.
  FakeLauncher(Env& env, FakeScript script, std::string metric, int gpus = 0);
  ~FakeLauncher() override;

  [[nodiscard]] absl::Status CheckFits(
      const std::vector<launch::ReplicaRequest>& requests) const override;
  absl::StatusOr<std::unique_ptr<launch::Placement>> Reserve(
      const std::vector<launch::ReplicaRequest>& requests) override;
  absl::StatusOr<std::unique_ptr<launch::TrialRun>> Start(
      const launch::TrialLaunch& launch) override;

  // While held, every run is Queued() (a Slurm job PENDING) and its
  // replicas' time does not start: their scripts run from the release on.
  void HoldInQueue(bool held) { queue_held_ = held; }
  // Holds `count` GPUs as if another job used them, until ReleaseGpus().
  void HoldGpus(int count) { held_ += count; }
  void ReleaseGpus(int count) { held_ -= count; }

  const std::vector<std::string>& log() const { return log_; }
  // How often replica `name` of `trial` was started.
  int starts(int64_t trial, const std::string& name) const;

  class Run;

 private:
  friend class Run;
  FakeReplica StartReplica(int64_t trial, const std::string& name);

  Env& env_;
  FakeScript script_;
  std::string metric_;
  int gpus_ = 0;
  int held_ = 0;  // GPUs in use: placements alive, or HoldGpus.
  bool queue_held_ = false;
  std::map<std::pair<int64_t, std::string>, int> starts_;
  std::vector<std::string> log_;
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_FAKE_LAUNCHER_H_

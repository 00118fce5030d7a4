#include "tests/testing/fake_launcher.h"

#include <fstream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hptune/core/status.h"
#include "hptune/env/env.h"

namespace hptune::testing {
namespace {

class FakePlacement : public launch::Placement {
 public:
  FakePlacement(int& held, int gpus, size_t replicas)
      : held_(held), gpus_(gpus), replicas_(replicas) {
    held_ += gpus_;
  }
  ~FakePlacement() override { held_ -= gpus_; }
  const std::vector<launch::ReplicaPlacement>& replicas() const override {
    return replicas_;
  }

 private:
  int& held_;
  int gpus_;
  std::vector<launch::ReplicaPlacement> replicas_;
};

int GpusOf(const std::vector<launch::ReplicaRequest>& requests) {
  int gpus = 0;
  for (const auto& r : requests) gpus += r.gpu_count;
  return gpus;
}

}  // namespace

class FakeLauncher::Run : public launch::TrialRun {
 public:
  Run(FakeLauncher& owner, const launch::TrialLaunch& launch)
      : owner_(owner), launch_(launch), replicas_(launch.replicas.size()) {
    metric_file_ = launch.replicas.front().metrics_path;
  }

  absl::Status StartReplica(int i) {
    Replica& r = replicas_[i];
    r.behaviour = owner_.StartReplica(launch_.trial, Name(i));
    if (r.behaviour.cannot_start) {
      return absl::FailedPreconditionError(
          absl::StrCat(Name(i), ": cannot start (scripted)"));
    }
    r.running = true;
    r.started = owner_.env_.Now();
    r.next_report = 0;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<launch::ReplicaExit>> Poll() override {
    const Timestamp now = owner_.env_.Now();
    std::vector<launch::ReplicaExit> exits;
    if (owner_.queue_held_) {
      was_held_ = true;
      return exits;
    }
    if (was_held_) {  // Released: the replicas start now.
      was_held_ = false;
      for (Replica& r : replicas_) r.started = now;
    }
    for (int i = 0; i < static_cast<int>(replicas_.size()); ++i) {
      Replica& r = replicas_[i];
      if (!r.running) continue;
      WriteDueReports(r, now);
      if (r.behaviour.exits_after &&
          now >= r.started + *r.behaviour.exits_after) {
        r.running = false;
        exits.push_back({.replica = i, .exit_code = r.behaviour.exit_code});
      }
    }
    return exits;
  }
  absl::Status Restart(int replica) override {
    if (replicas_.at(replica).running) {
      return absl::FailedPreconditionError("still running");
    }
    return StartReplica(replica);
  }
  bool IsRunning(int replica) const override {
    return replicas_.at(replica).running;
  }
  bool Queued() const override { return owner_.queue_held_; }
  void Terminate(std::chrono::milliseconds) override {
    for (int i = 0; i < static_cast<int>(replicas_.size()); ++i) {
      if (!replicas_[i].running) continue;
      replicas_[i].running = false;
      owner_.log_.push_back(
          absl::StrCat("trial ", launch_.trial, " ", Name(i), " terminated"));
    }
  }

 private:
  struct Replica {
    FakeReplica behaviour;
    bool running = false;
    Timestamp started{};
    size_t next_report = 0;
  };

  std::string Name(int i) const {
    return launch_.replicas[i].log_path.stem().string();
  }

  // cloudml-hypertune's format: the whole file rewritten on each report.
  void WriteDueReports(Replica& r, Timestamp now) {
    bool wrote = false;
    while (r.next_report < r.behaviour.reports.size()) {
      const FakeReport& report = r.behaviour.reports[r.next_report];
      const Timestamp due = r.started + report.after;
      if (due > now) break;
      lines_ += absl::StrFormat(
          "{\"global_step\": \"%d\", \"%s\": \"%.17g\", \"timestamp\": "
          "%.6f}\n",
          report.step, owner_.metric_, report.value,
          static_cast<double>(ToUnixMicros(due)) / 1e6);
      ++r.next_report;
      wrote = true;
    }
    if (wrote) {
      owner_.env_.WriteFileAtomically(metric_file_, lines_).IgnoreError();
    }
  }

  FakeLauncher& owner_;
  const launch::TrialLaunch launch_;
  std::vector<Replica> replicas_;
  std::filesystem::path metric_file_;
  std::string lines_;
  bool was_held_ = false;
};

FakeLauncher::FakeLauncher(Env& env, FakeScript script, std::string metric,
                           int gpus)
    : env_(env),
      script_(std::move(script)),
      metric_(std::move(metric)),
      gpus_(gpus) {}

FakeLauncher::~FakeLauncher() = default;

absl::Status FakeLauncher::CheckFits(
    const std::vector<launch::ReplicaRequest>& requests) const {
  if (GpusOf(requests) > gpus_) {
    return absl::FailedPreconditionError(absl::StrCat(
        "a trial asks for ", GpusOf(requests), " GPUs; there are ", gpus_));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<launch::Placement>> FakeLauncher::Reserve(
    const std::vector<launch::ReplicaRequest>& requests) {
  HPTUNE_RETURN_IF_ERROR(CheckFits(requests));
  if (held_ + GpusOf(requests) > gpus_) {
    return absl::ResourceExhaustedError("GPUs busy");
  }
  return std::make_unique<FakePlacement>(held_, GpusOf(requests),
                                         requests.size());
}

absl::StatusOr<std::unique_ptr<launch::TrialRun>> FakeLauncher::Start(
    const launch::TrialLaunch& launch) {
  auto run = std::make_unique<Run>(*this, launch);
  for (int i = 0; i < static_cast<int>(launch.replicas.size()); ++i) {
    HPTUNE_RETURN_IF_ERROR(run->StartReplica(i));
  }
  return std::unique_ptr<launch::TrialRun>(std::move(run));
}

FakeReplica FakeLauncher::StartReplica(int64_t trial, const std::string& name) {
  const int start = ++starts_[{trial, name}];
  log_.push_back(absl::StrCat("trial ", trial, " ", name, " start ", start));
  return script_({.trial = trial, .name = name, .start = start});
}

int FakeLauncher::starts(int64_t trial, const std::string& name) const {
  auto it = starts_.find({trial, name});
  return it == starts_.end() ? 0 : it->second;
}

}  // namespace hptune::testing

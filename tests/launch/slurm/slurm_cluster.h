// Test helpers of the Slurm tests: whether the Slurm test cluster
// (scripts/start-slurm, started by ctest's slurm fixture) can be used, and
// why not; a fixture that skips or fails on that; a controller that does
// not answer. ClusterUsable sets SLURM_CONF to the cluster's config when it
// is unset, so the launcher and the Slurm commands of a test find it.
#ifndef HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_
#define HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_

#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::testing_slurm {

// `scontrol ping` says the controller is up; *why_not otherwise.
bool ClusterUsable(std::string* why_not);
// True (with the reason) where start-slurm cannot run at all: not root, or
// the Slurm and munge daemons are not installed. Anything else is a failure.
bool ClusterCannotRunHere(std::string* why);
bool SlurmCommandsInstalled();
// ${HPTUNE_SLURM_DIR:-the CMake cache's HPTUNE_SLURM_DIR}/etc/slurm.conf
std::string ClusterConfig();
// squeue's lines (in `format`) for the jobs named `name` that have not
// ended: one per job, or per component of a heterogeneous job.
std::vector<std::string> QueuedJobs(const std::string& name,
                                    const std::string& format = "%i %T");

// The --begin option that keeps a job PENDING (reason BeginTime) until
// StartHeldJobs lets it go.
inline constexpr char kHoldOption[] = "--begin=now+3600";
// Lets the jobs named `name` that wait for their --begin time start now;
// false (with the reason in *error) when scontrol refused.
bool StartHeldJobs(const std::string& name, std::string* error);

// Skips where the cluster cannot run here (ClusterCannotRunHere), fails
// where it should but is not up. Derived fixtures call it first and return
// when the test is skipped or has failed.
class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// Points SLURM_CONF, while it lives, at a config in `dir` whose controller
// (127.0.0.1 port 9) never answers; restores the previous value after.
class UnreachableController {
 public:
  explicit UnreachableController(const std::string& dir);
  ~UnreachableController();
  UnreachableController(const UnreachableController&) = delete;
  UnreachableController& operator=(const UnreachableController&) = delete;

  const std::string& config() const { return config_; }

 private:
  std::string config_;
  std::optional<std::string> saved_;
};

// Runs `argv` (the hptune binary first) under an UnreachableController in
// `dir` and expects what a user sees: exit 69 (EX_UNAVAILABLE), "`command`:
// the Slurm controller is unreachable" with `scontrol ping`'s answer, and
// the SLURM_CONF that was used.
void ExpectUnreachableControllerExits69(const std::string& dir,
                                        const std::vector<std::string>& argv,
                                        const std::string& command);

// The re-attach tests' job: `backend: slurm`, a master and one worker
// running `trainer` (tests/launch/testdata/dump_trainer.py), one trial,
// maximising "accuracy". Written to `path`.
void WriteReattachJob(const std::string& path, const std::string& trainer);

// dump_trainer.py's settings while it lives (the environment reaches the
// replicas through sbatch --export=ALL): dumps into `dir`, the master
// sleeps `master_sleep` seconds and reports `metric`.
class DumpTrainerEnvironment {
 public:
  DumpTrainerEnvironment(const std::string& dir,
                         const std::string& master_sleep,
                         const std::string& metric);
  ~DumpTrainerEnvironment();
  DumpTrainerEnvironment(const DumpTrainerEnvironment&) = delete;
  DumpTrainerEnvironment& operator=(const DumpTrainerEnvironment&) = delete;
};

}  // namespace hptune::testing_slurm

#endif  // HPTUNE_TESTS_LAUNCH_SLURM_SLURM_CLUSTER_H_

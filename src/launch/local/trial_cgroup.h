// One trial's replicas in a cgroup v2 subtree of their own, so that ending
// the trial ends every process it started: also those that left their
// process group and session (setsid), ignore SIGTERM and cleaned their
// environment of the HPTUNE_REPLICA marker.
//
// Layout: <parent>/hptune-<pid>-<n>/ for the trial, with a child cgroup for
// each start of each replica ("worker-1.0", then "worker-1.1" after a
// restart), so a restart kills what the replica's earlier run left without
// touching the other replicas. A cgroup is never used again once killed:
// Linux 6.18 was seen to SIGKILL a process cloned into a cgroup that had been
// killed before. <parent> is the cgroup this process runs in, usable when it
// may create cgroups there and move processes into them: root, or a delegated
// subtree (systemd's Delegate=yes, a user's user@.service). No controller is
// enabled: this is containment, not resource limits. The trial cgroup's path is
// recorded in <trial_dir>/replicas.cgroup, so a later hptune process can kill
// what a killed one left running (KillRecordedCgroup).
//
// Where cgroups cannot be used, the launcher falls back to process groups and
// the marker scan (replica_process.h); ReplicaContainment() (local_launcher.h)
// says which is in use.
// Internal to the local launcher. Thread-safe: detection happens once; a
// TrialCgroup is used by one thread at a time (the TrialRun's).
#ifndef HPTUNE_SRC_LAUNCH_LOCAL_TRIAL_CGROUP_H_
#define HPTUNE_SRC_LAUNCH_LOCAL_TRIAL_CGROUP_H_

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::launch {

// How this process contains replicas, detected once by creating a probe
// cgroup and starting a process in it.
struct CgroupSupport {
  bool usable = false;
  std::filesystem::path parent;  // Where trial cgroups go, when usable.
  // "cgroup v2 (/sys/fs/cgroup/system.slice/hptune.service)" or
  // "process groups (cannot create a cgroup under ...: Permission denied)".
  std::string description;
  // When usable: what a replica's child enters before it execs, on a hybrid
  // cgroup v1/v2 host (v1_replica_cgroups.h); open for the process's life.
  std::vector<int> v1_replica_procs;
};
const CgroupSupport& DetectCgroupSupport();

// The file in a trial directory that names the trial's cgroup.
inline constexpr char kCgroupRecordFile[] = "replicas.cgroup";

class TrialCgroup {
 public:
  // Creates the trial's cgroup for replicas named `replicas` ("master-0")
  // and records its path in `trial_dir` (written atomically, before any
  // process is started in it). nullptr when DetectCgroupSupport() found none
  // usable. The cgroups are worked in through `env`'s directory handles,
  // and `env` must outlive the TrialCgroup.
  static absl::StatusOr<std::unique_ptr<TrialCgroup>> Create(
      Env& env, const std::filesystem::path& trial_dir,
      const std::vector<std::string>& replicas);
  // As above, under `support.parent` when `support.usable`: what a test on
  // FakeEnv names.
  static absl::StatusOr<std::unique_ptr<TrialCgroup>> Create(
      Env& env, const CgroupSupport& support,
      const std::filesystem::path& trial_dir,
      const std::vector<std::string>& replicas);
  // Kills whatever is left, removes the cgroups and the record.
  ~TrialCgroup();
  TrialCgroup(const TrialCgroup&) = delete;
  TrialCgroup& operator=(const TrialCgroup&) = delete;

  // A new cgroup for the next start of replica `replica`, as an O_DIRECTORY
  // descriptor to start its process in (clone3's CLONE_INTO_CGROUP), valid
  // until the next call for that replica. Its earlier cgroups that are
  // empty are removed.
  absl::StatusOr<int> NextReplicaCgroup(int replica);
  // SIGKILL to every process in replica `replica`'s cgroups (cgroup.kill).
  void KillReplica(int replica) const;
  void KillAll() const;
  // Whether any process lives in replica `replica`'s cgroups. Zombies do
  // not count: a process leaves its cgroup when it exits.
  bool ReplicaPopulated(int replica) const;

 private:
  TrialCgroup(Env& env, std::unique_ptr<DirectoryHandle> parent,
              std::unique_ptr<DirectoryHandle> dir,
              std::filesystem::path record)
      : env_(env),
        parent_(std::move(parent)),
        dir_(std::move(dir)),
        record_(std::move(record)) {}
  [[nodiscard]] absl::Status WriteRecord();

  struct ReplicaCgroup {
    std::string name;  // "worker-1.0", in the trial's cgroup.
    std::unique_ptr<DirectoryHandle> dir;
  };
  struct Replica {
    std::string name;
    // One per start, oldest first; the last one's descriptor is what the
    // replica's process was started in.
    std::vector<ReplicaCgroup> cgroups;
  };

  Env& env_;
  std::unique_ptr<DirectoryHandle> parent_;  // Where the trial's cgroup is.
  std::unique_ptr<DirectoryHandle> dir_;     // The trial's cgroup.
  std::filesystem::path record_;
  std::vector<Replica> replicas_;
  int next_start_ = 0;  // Numbers the replica cgroups.
};

// Kills every process in the cgroup that `trial_dir` records (a trial of an
// hptune process that was killed), waits up to `wait` for it to empty, and
// removes it and the record. Returns how many processes it held; 0 when
// nothing is recorded. A record, or a cgroup it names, that another user
// owns is not followed (a trial directory may be its job owner's), nor is
// a link in place of either.
int KillRecordedCgroup(Env& env, const std::filesystem::path& trial_dir,
                       std::chrono::milliseconds wait);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_LOCAL_TRIAL_CGROUP_H_

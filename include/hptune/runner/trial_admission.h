// TrialAdmission: the running trials each user may have at once, across
// all the jobs of one server (`hptune serve --max-running-trials-per-user`,
// docs/operations.md "Quotas").
//
// The server makes one and hands it to every JobRunner it starts
// (JobRunnerOptions::admission). A job's runner asks for a place before it
// starts a trial's replicas and gives it back when that trial's execution
// ends, however it ends; a trial refused a place waits, as one waiting for
// GPUs does, and the runner asks again at its next step. Users are uids;
// an unknown owner (< 0), root (0) and the server's own user are not
// limited.
//
// Thread-safety: thread-safe; the job runners of a server call it from
// their own threads. A Ticket belongs to the runner that holds it.
#ifndef HPTUNE_RUNNER_TRIAL_ADMISSION_H_
#define HPTUNE_RUNNER_TRIAL_ADMISSION_H_

#include <cstdint>
#include <map>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"

namespace hptune::runner {

class TrialAdmission {
 public:
  // One running trial's place: given back when destroyed.
  class Ticket {
   public:
    Ticket() = default;  // Holds no place.
    Ticket(Ticket&& other) noexcept;
    Ticket& operator=(Ticket&& other) noexcept;
    ~Ticket();

   private:
    friend class TrialAdmission;
    Ticket(TrialAdmission* admission, int64_t uid)
        : admission_(admission), uid_(uid) {}
    void Release();

    // Null when it holds no place: given back, moved from, or of a user
    // not limited.
    TrialAdmission* admission_ = nullptr;
    int64_t uid_ = -1;
  };

  // `max_per_user`: 0 for no limit. `unlimited_uid`: the server's own user
  // (its administrator's jobs), not limited; -1: none.
  explicit TrialAdmission(int64_t max_per_user, int64_t unlimited_uid = -1)
      : max_per_user_(max_per_user), unlimited_uid_(unlimited_uid) {}
  TrialAdmission(const TrialAdmission&) = delete;
  TrialAdmission& operator=(const TrialAdmission&) = delete;

  // A place for one more running trial of `uid`, or nullopt while `uid`
  // runs max_per_user trials already. Outlives no Ticket it hands out.
  std::optional<Ticket> TryAdmit(int64_t uid);

  // The trials of `uid` holding a place now (0 for a user not limited).
  int64_t Running(int64_t uid) const;
  int64_t max_per_user() const { return max_per_user_; }
  bool Limits(int64_t uid) const {
    return max_per_user_ > 0 && uid > 0 && uid != unlimited_uid_;
  }

 private:
  const int64_t max_per_user_;
  const int64_t unlimited_uid_;
  mutable Mutex mu_;
  // Users with a running trial only.
  std::map<int64_t, int64_t> running_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::runner

#endif  // HPTUNE_RUNNER_TRIAL_ADMISSION_H_

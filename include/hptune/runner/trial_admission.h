// TrialAdmission: the running trials each user may have at once, across
// all the jobs of one server (`hptune serve --max-running-trials-per-user`,
// docs/operations.md "Quotas").
//
// The server makes one and hands it to every JobRunner it starts
// (JobRunnerOptions::admission). A job's runner asks for a place, through
// its Waiter, before it starts a trial's replicas and gives it back when
// that trial's execution ends, however it ends; a trial refused a place
// waits, as one waiting for GPUs does, and the runner asks again at its
// next step. Runners refused wait in line: a place that frees goes to the
// one that has waited longest, not back to the job whose trial ended, so
// one job cannot keep its user's other jobs waiting until it is done.
// Users are uids; an unknown owner (< 0), root (0) and the server's own
// user are not limited.
//
// Thread-safety: thread-safe; the job runners of a server call it from
// their own threads. A Ticket or Waiter belongs to the runner that holds
// it; the TrialAdmission outlives both.
#ifndef HPTUNE_RUNNER_TRIAL_ADMISSION_H_
#define HPTUNE_RUNNER_TRIAL_ADMISSION_H_

#include <cstdint>
#include <deque>
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

  // One job runner's turn in its user's line: refused a place, it is
  // queued, and keeps its turn until admitted or destroyed.
  class Waiter {
   public:
    // `admission` null: every trial is admitted.
    Waiter(TrialAdmission* admission, int64_t uid)
        : admission_(admission), uid_(uid) {}
    Waiter(const Waiter&) = delete;
    Waiter& operator=(const Waiter&) = delete;
    ~Waiter();

    // A place for one more running trial, or nullopt while the user runs
    // as many as allowed or runners that waited longer are owed the free
    // places.
    std::optional<Ticket> TryAdmit();

   private:
    TrialAdmission* const admission_;
    const int64_t uid_;
  };

  // `max_per_user`: 0 for no limit. `unlimited_uid`: the server's own user
  // (its administrator's jobs), not limited; -1: none.
  explicit TrialAdmission(int64_t max_per_user, int64_t unlimited_uid = -1)
      : max_per_user_(max_per_user), unlimited_uid_(unlimited_uid) {}
  TrialAdmission(const TrialAdmission&) = delete;
  TrialAdmission& operator=(const TrialAdmission&) = delete;

  // A place for `uid` outside the line: only one no waiter is owed.
  std::optional<Ticket> TryAdmit(int64_t uid) { return Admit(nullptr, uid); }

  // The trials of `uid` holding a place now (0 for a user not limited).
  int64_t Running(int64_t uid) const;
  // The runners of `uid` waiting in line.
  int64_t Waiting(int64_t uid) const;
  int64_t max_per_user() const { return max_per_user_; }
  bool Limits(int64_t uid) const {
    return max_per_user_ > 0 && uid > 0 && uid != unlimited_uid_;
  }

 private:
  struct User {
    int64_t running = 0;
    std::deque<const Waiter*> waiting;  // Longest waiting first.
  };

  // `who` null: outside the line.
  std::optional<Ticket> Admit(const Waiter* who, int64_t uid);
  void Leave(const Waiter* who, int64_t uid);
  void Give(int64_t uid);
  // Forgets a user with nothing running and no one waiting.
  void Tidy(int64_t uid) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const int64_t max_per_user_;
  const int64_t unlimited_uid_;
  mutable Mutex mu_;
  std::map<int64_t, User> users_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hptune::runner

#endif  // HPTUNE_RUNNER_TRIAL_ADMISSION_H_

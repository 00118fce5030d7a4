// StudyLocks and StudyLock: a lock per study name, which TuningEngine holds
// while it reads a study's history and writes what it decided from it
// (SuggestTrials, CreateTrial, completing a study). Calls for one study take
// turns, so its designer sees every trial suggested before and the budget
// counts them all; calls for different studies run at once. Internal to
// the engine.
//
// A study's entry exists only while a thread holds its lock or waits for
// it: the table never has more entries than threads inside the engine,
// however many studies are created, ended or deleted. Why a table and not a
// fixed array of mutexes hashed by name: two busy studies sharing a slot
// would take turns for nothing, and the table's own lock is held for a map
// lookup, nothing beside a suggestion's store reads and commit.
//
// Thread-safe.
#ifndef HPTUNE_SRC_ENGINE_STUDY_LOCKS_H_
#define HPTUNE_SRC_ENGINE_STUDY_LOCKS_H_

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "hptune/core/mutex.h"

namespace hptune::engine {

class StudyLocks {
 public:
  StudyLocks() = default;
  StudyLocks(const StudyLocks&) = delete;
  StudyLocks& operator=(const StudyLocks&) = delete;

  // Entries in the table, and the threads holding or waiting for the lock of
  // `study` (for tests).
  size_t size() const;
  int users(std::string_view study) const;

 private:
  friend class StudyLock;
  struct Entry {
    Mutex mu;
    int users = 0;  // Under StudyLocks::mu_.
  };
  using Entries = std::map<std::string, Entry, std::less<>>;

  Entries::iterator Enter(std::string_view study);
  void Leave(Entries::iterator entry);

  mutable Mutex mu_;
  Entries entries_ ABSL_GUARDED_BY(mu_);
};

// Holds the lock of one study for its lifetime. A function that must run
// under a study's lock takes a `const StudyLock&`.
class StudyLock {
 public:
  // The study's mutex is found at run time and held across the
  // StudyLock's lifetime, which clang's analysis cannot follow; the table
  // that keeps it while it has users is checked (Enter, Leave).
  StudyLock(StudyLocks& locks,
            std::string_view study) ABSL_NO_THREAD_SAFETY_ANALYSIS;
  ~StudyLock() ABSL_NO_THREAD_SAFETY_ANALYSIS;
  StudyLock(const StudyLock&) = delete;
  StudyLock& operator=(const StudyLock&) = delete;

  const std::string& study() const { return entry_->first; }

 private:
  StudyLocks& locks_;
  const StudyLocks::Entries::iterator entry_;
};

}  // namespace hptune::engine

#endif  // HPTUNE_SRC_ENGINE_STUDY_LOCKS_H_

#!/usr/bin/env bash
# Shows that clang's thread-safety analysis sees hptune::Mutex
# (include/hptune/core/mutex.h): a guarded member read without its lock, or
# a helper that needs the lock called without it, fails to compile under
# -Wthread-safety -Werror, and the same code holding a MutexLock compiles.
# Without this, a Mutex that lost its annotations would let `make
# check-thread-safety` pass while checking nothing. Exits 77 (skipped),
# saying so, where clang++ is not installed (scripts/setup --clang).
set -u
root=${1:?usage: thread_safety_test.sh SOURCE_DIR}
clang=${CLANG:-clang++}
if ! command -v "$clang" >/dev/null; then
  echo "thread_safety: skipped: no $clang here (scripts/setup --clang installs it)"
  exit 77
fi

# compile HOLD: a class whose methods read a guarded member and call a
# helper that needs the lock, each after HOLD.
compile() {
  sed "s|@HOLD@|$1|g" <<'CC' | "$clang" -std=c++20 -fsyntax-only -Wthread-safety \
    -Werror -I"$root/include" -x c++ - 2>&1
#include "hptune/core/mutex.h"
class Counter {
 public:
  int Get() { @HOLD@ return n_; }
  void Bump() { @HOLD@ Add(1); }
 private:
  void Add(int k) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { n_ += k; }
  hptune::Mutex mu_;
  int n_ ABSL_GUARDED_BY(mu_) = 0;
};
int main() { Counter c; c.Bump(); return c.Get(); }
CC
}

failed=0
if ! out=$(compile 'hptune::MutexLock lock(\&mu_);'); then
  echo "thread_safety: the code holding its lock does not compile:"
  echo "$out"
  failed=1
fi
out=$(compile '')
for expected in "reading variable 'n_' requires holding mutex 'mu_'" \
                "calling function 'Add' requires holding mutex 'mu_'"; do
  if ! grep -qF "$expected" <<<"$out"; then
    echo "thread_safety: clang did not say \"$expected\" of code without its lock; it said:"
    echo "$out"
    failed=1
  fi
done
if [ "$failed" -eq 0 ]; then echo "thread_safety: unguarded accesses fail to compile"; fi
exit "$failed"

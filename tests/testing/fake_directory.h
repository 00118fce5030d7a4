// FakeEnv's DirectoryHandle: a directory of an Env's file system, worked in
// through that Env's path calls (tests/testing/fake_env.h). There is no
// descriptor (-1) and no race to close: FakeEnv's files cannot be swapped
// under a name, so a handle is its path. What it refuses is what a real
// handle refuses: a write to a file that is not there (a control file is
// never created), a subdirectory taken or not empty. Thread-safety: as the
// Env's.
#ifndef HPTUNE_TESTS_TESTING_FAKE_DIRECTORY_H_
#define HPTUNE_TESTS_TESTING_FAKE_DIRECTORY_H_

#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"
#include "hptune/env/env.h"

namespace hptune::testing {

// A handle of the directory at `path` in `env`, which must outlive it;
// NotFound when no directory is there.
absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenFakeDirectory(
    Env& env, const std::filesystem::path& path);

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_FAKE_DIRECTORY_H_

// Test helper: runs a program (no shell) and captures its exit code, stdout
// and stderr. Used by integration tests that drive the real binaries.
#ifndef HPTUNE_TESTS_TESTING_RUN_PROCESS_H_
#define HPTUNE_TESTS_TESTING_RUN_PROCESS_H_

#include <string>
#include <vector>

namespace hptune::testing {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal.
  std::string out;
  std::string err;
};

// Runs argv[0] (a path) with `argv`, waits for it, and returns what it did.
ProcessResult RunProcess(const std::vector<std::string>& argv);

// A fresh empty directory under the test temp dir.
std::string MakeTempDir();

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_RUN_PROCESS_H_

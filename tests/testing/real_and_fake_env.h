// A fixture for tests of Env that run twice: on the real machine, in a
// fresh temporary directory, and on FakeEnv, in "/fake/dir" (the
// parameter: true for FakeEnv). Instantiate with ::testing::Bool(). Used by
// tests/env. Not thread-safe: one test's fixture.
#ifndef HPTUNE_TESTS_TESTING_REAL_AND_FAKE_ENV_H_
#define HPTUNE_TESTS_TESTING_REAL_AND_FAKE_ENV_H_

#include <filesystem>
#include <memory>

#include "gtest/gtest.h"
#include "hptune/env/env.h"
#include "tests/testing/fake_env.h"
#include "tests/testing/run_process.h"

namespace hptune::testing {

class RealAndFakeEnvTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      fake_ = std::make_unique<FakeEnv>();
      dir_ = "/fake/dir";
    } else {
      dir_ = MakeTempDir();
    }
  }
  Env& env() { return fake_ ? *fake_ : DefaultEnv(); }

  std::unique_ptr<FakeEnv> fake_;  // Null on the real machine.
  std::filesystem::path dir_;      // The test's own directory.
};

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_REAL_AND_FAKE_ENV_H_

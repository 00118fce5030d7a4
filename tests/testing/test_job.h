// The tuning job the job runner's tests run: a CUSTOM scale tier of one
// master, `workers` workers and `ps` parameter servers, maximising
// "accuracy" by random search over lr (DOUBLE) and layers (INTEGER), with
// --user-flag=1 among its args; `extra_yaml` is more trainingInput YAML.
// Header-only; for tests.
#ifndef HPTUNE_TESTS_TESTING_TEST_JOB_H_
#define HPTUNE_TESTS_TESTING_TEST_JOB_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune::testing {

inline JobSpec TestJob(const std::string& id, int workers, int ps,
                       int max_trials, int parallel,
                       const std::string& extra_yaml,
                       std::vector<std::string> command) {
  const std::string yaml = absl::StrCat(
      "trainingInput:\n  scaleTier: CUSTOM\n  masterType: n1-standard-4\n",
      workers > 0
          ? absl::StrCat(
                "  workerType: n1-standard-4\n  workerCount: ", workers, "\n")
          : "",
      ps > 0 ? absl::StrCat("  parameterServerType: n1-standard-4\n"
                            "  parameterServerCount: ",
                            ps, "\n")
             : "",
      extra_yaml,
      "  args: [--user-flag=1]\n"
      "  hyperparameters:\n    goal: MAXIMIZE\n"
      "    hyperparameterMetricTag: accuracy\n    maxTrials: ",
      max_trials, "\n    maxParallelTrials: ", parallel,
      "\n    algorithm: RANDOM_SEARCH\n    params:\n"
      "    - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 0.1}\n"
      "    - {parameterName: layers, type: INTEGER, minValue: 1, maxValue: "
      "4}\n");
  ConfigParseResult parsed = ParseJobConfig(yaml, ConfigFormat::kYaml, id);
  EXPECT_TRUE(parsed.errors.empty())
      << FieldErrorsToStatus(parsed.errors).message();
  JobSpec job = *parsed.job;
  job.command = std::move(command);
  return job;
}

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_TESTING_TEST_JOB_H_

// Polling helpers shared by the launcher tests of every backend
// (local_launcher_test.cc, slurm/slurm_launcher_test.cc): wait, with a
// deadline, for a TrialRun's replica exits and for the dumps
// testdata/dump_trainer.py writes. Header-only test support.
#ifndef HPTUNE_TESTS_LAUNCH_TRIAL_RUN_WAITS_H_
#define HPTUNE_TESTS_LAUNCH_TRIAL_RUN_WAITS_H_

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "hptune/launch/launcher.h"
#include "nlohmann/json.hpp"

namespace hptune::launch::testing_waits {

inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The first `count` replica exits `run` reports, each checked to be reported
// once; a failure when they do not come before `deadline`.
inline std::map<int, ReplicaExit> WaitForExits(
    TrialRun& run, size_t count, std::chrono::milliseconds deadline,
    std::chrono::milliseconds poll) {
  std::map<int, ReplicaExit> exits;
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (exits.size() < count && std::chrono::steady_clock::now() < until) {
    absl::StatusOr<std::vector<ReplicaExit>> polled = run.Poll();
    EXPECT_TRUE(polled.ok()) << polled.status();
    if (!polled.ok()) break;
    for (const ReplicaExit& exit : *polled) {
      EXPECT_EQ(exits.count(exit.replica), 0u) << "reported twice";
      exits[exit.replica] = exit;
    }
    std::this_thread::sleep_for(poll);
  }
  EXPECT_EQ(exits.size(), count);
  return exits;
}

// The dump replica `name` wrote into `dump_dir` once it is the one of
// attempt `attempt`.
inline nlohmann::json WaitForDump(const std::filesystem::path& dump_dir,
                                  const std::string& name, int attempt,
                                  std::chrono::milliseconds deadline,
                                  std::chrono::milliseconds poll) {
  const std::filesystem::path path = dump_dir / (name + ".json");
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < until) {
    if (std::filesystem::exists(path)) {
      nlohmann::json dump = nlohmann::json::parse(ReadFile(path));
      if (dump["attempt"] == attempt) return dump;
    }
    std::this_thread::sleep_for(poll);
  }
  ADD_FAILURE() << "no dump " << path << " of attempt " << attempt;
  return nlohmann::json::object();
}

}  // namespace hptune::launch::testing_waits

#endif  // HPTUNE_TESTS_LAUNCH_TRIAL_RUN_WAITS_H_

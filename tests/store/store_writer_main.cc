// store_writer: a child process for store_process_test; writes to a
// SqliteStore file the way a server or engine process would.
//
//   store_writer measure DB STUDY TRIAL FIRST_STEP
//     Until killed: appends a measurement at steps FIRST_STEP, FIRST_STEP+1,
//     ... to the (ACTIVE) trial, printing each step on stdout once its
//     commit returned; every 10th step also adds a batch of 20 trials in one
//     call, so a kill can land inside a large transaction.
//   store_writer trials DB STUDY THREADS TRIALS MEASUREMENTS
//     Creates the study unless it exists, then runs RunTrialWorkload
//     (store_workload.h) from THREADS threads; prints "ok" when every call
//     succeeded, the first error otherwise.
//
// Exit code 0 on success, 1 on a store error, 2 on bad usage.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "src/store/sqlite_store.h"
#include "tests/store/store_workload.h"

namespace hptune::store {
namespace {

// Writes `line` to stdout with one write(2): no stdio buffer, so what the
// parent reads was printed after the commit and nothing is held back.
void Report(const std::string& line) {
  const std::string text = line + "\n";
  if (write(STDOUT_FILENO, text.data(), text.size()) !=
      static_cast<ssize_t>(text.size())) {
    std::_Exit(1);  // The parent went away.
  }
}

int Fail(const absl::Status& status) {
  Report("error: " + status.ToString());
  return 1;
}

int Measure(Store& store, const std::string& study, int64_t trial,
            int64_t first_step) {
  constexpr int64_t kMaxSteps = 1'000'000;  // Stops a writer left orphaned.
  for (int64_t step = first_step; step < first_step + kMaxSteps; ++step) {
    Measurement m;
    m.step = step;
    m.metrics = {{"objective", static_cast<double>(step) / 7}};
    if (absl::Status s = store.AddMeasurement(study, trial, m); !s.ok()) {
      return Fail(s);
    }
    if (step % 10 == 0) {
      Trial batch_trial;
      batch_trial.parameters = {{"x", ParameterValue::Integer(step)}};
      std::vector<Trial> batch(20, batch_trial);
      if (auto s =
              store.AddTrials(study, batch, "step=" + std::to_string(step));
          !s.ok()) {
        return Fail(s.status());
      }
    }
    Report(std::to_string(step));
  }
  return 0;
}

int Trials(Store& store, const std::string& study, int threads, int trials,
           int measurements) {
  // Writers may start together on a fresh file: whoever comes first creates
  // the study.
  StudyRecord record;
  record.name = study;
  // The smallest spec a store keeps: one parameter.
  record.spec.search_space = SearchSpace({{.name = "x",
                                           .type = ParameterType::kDouble,
                                           .min_value = 0,
                                           .max_value = 1}});
  if (absl::Status s = store.CreateStudy(record);
      !s.ok() && !absl::IsAlreadyExists(s)) {
    return Fail(s);
  }
  std::vector<absl::Status> results(threads);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&, i] {
      const std::string client =
          "pid" + std::to_string(getpid()) + "-thread" + std::to_string(i);
      results[i] =
          test::RunTrialWorkload(store, study, client, trials, measurements);
    });
  }
  for (std::thread& worker : workers) worker.join();
  for (const absl::Status& result : results) {
    if (!result.ok()) return Fail(result);
  }
  Report("ok");
  return 0;
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const bool measure = !args.empty() && args[0] == "measure";
  const bool trials = !args.empty() && args[0] == "trials";
  std::vector<int64_t> numbers(args.size() > 3 ? args.size() - 3 : 0);
  bool numbers_ok = true;
  for (size_t i = 0; i < numbers.size(); ++i) {
    numbers_ok = numbers_ok && absl::SimpleAtoi(args[i + 3], &numbers[i]);
  }
  if (!((measure && args.size() == 5) || (trials && args.size() == 6)) ||
      !numbers_ok) {
    std::fprintf(stderr,
                 "usage: store_writer measure DB STUDY TRIAL FIRST_STEP\n"
                 "       store_writer trials DB STUDY THREADS TRIALS "
                 "MEASUREMENTS\n");
    return 2;
  }
  auto store = SqliteStore::Open(args[1], hptune::SystemClock());
  if (!store.ok()) return Fail(store.status());
  if (measure) return Measure(**store, args[2], numbers[0], numbers[1]);
  return Trials(**store, args[2], static_cast<int>(numbers[0]),
                static_cast<int>(numbers[1]), static_cast<int>(numbers[2]));
}

}  // namespace
}  // namespace hptune::store

int main(int argc, char** argv) { return hptune::store::Main(argc, argv); }

// BackgroundWork (the engine's worker for designers' deferred work), and a
// GP study on an engine with background_designer_work: its refits land
// from the worker and are saved with the designer's state.
#include "src/engine/background_work.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>

#include "gtest/gtest.h"
#include "hptune/engine/engine.h"
#include "src/store/memory_store.h"
#include "tests/testing/status_matchers.h"

namespace hptune::engine {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point Deadline() { return Clock::now() + std::chrono::minutes(2); }

// A gate that work can wait at until the test opens it.
class Gate {
 public:
  void Open() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  void Arrive() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_ = true;
    changed_.notify_all();
    changed_.wait(lock, [&] { return open_; });
  }
  bool WaitArrived() {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_until(lock, Deadline(), [&] { return arrived_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
  bool arrived_ = false;
};

algorithms::Designer::DeferredWork Returns(std::string value) {
  return [value](const std::atomic<bool>&) { return value; };
}

// Keeps the worker busy with work that waits at `gate`; true once it does.
bool Occupy(BackgroundWork& work, Gate& gate) {
  return work.Submit("busy", [&gate](const std::atomic<bool>&) {
    gate.Arrive();
    return std::string("done");
  }) && gate.WaitArrived();
}

TEST(BackgroundWorkTest, AResultIsTakenOnce) {
  BackgroundWork work;
  ASSERT_TRUE(work.Submit("a", Returns("fit of a")));
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_EQ(work.TakeResult("a"), "fit of a");
  EXPECT_EQ(work.TakeResult("a"), std::nullopt);
  EXPECT_EQ(work.TakeResult("b"), std::nullopt);
}

TEST(BackgroundWorkTest, NewerWorkReplacesQueuedWorkOfTheSameKey) {
  BackgroundWork work;
  Gate gate;
  ASSERT_TRUE(Occupy(work, gate));
  std::atomic<int> runs{0};
  for (std::string fit : {"fit at 20", "fit at 22", "fit at 24"}) {
    ASSERT_TRUE(work.Submit("s", [&runs, fit](const std::atomic<bool>&) {
      ++runs;
      return fit;
    }));
  }
  gate.Open();
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(work.TakeResult("s"), "fit at 24");
}

TEST(BackgroundWorkTest, AKeyWhoseWorkRunsOrWhoseResultWaitsTakesNoMore) {
  BackgroundWork work;
  Gate gate;
  ASSERT_TRUE(work.Submit("s", [&gate](const std::atomic<bool>&) {
    gate.Arrive();
    return std::string("fit at 22");
  }));
  ASSERT_TRUE(gate.WaitArrived());
  EXPECT_FALSE(work.Submit("s", Returns("fit at 23"))) << "running";
  EXPECT_TRUE(work.Submit("t", Returns("fit of t"))) << "another key";
  gate.Open();
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_FALSE(work.Submit("s", Returns("fit at 24"))) << "result waits";
  EXPECT_EQ(work.TakeResult("s"), "fit at 22");
  EXPECT_TRUE(work.Submit("s", Returns("fit at 25")));
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_EQ(work.TakeResult("s"), "fit at 25");
  EXPECT_EQ(work.TakeResult("t"), "fit of t");
}

TEST(BackgroundWorkTest, TheQueueIsBounded) {
  BackgroundWork work(/*max_queued=*/1);
  Gate gate;
  ASSERT_TRUE(Occupy(work, gate));
  EXPECT_TRUE(work.Submit("a", Returns("1")));
  EXPECT_FALSE(work.Submit("b", Returns("2"))) << "one key waits already";
  EXPECT_TRUE(work.Submit("a", Returns("3"))) << "replacing is not growing";
  gate.Open();
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_EQ(work.TakeResult("a"), "3");
  EXPECT_EQ(work.TakeResult("b"), std::nullopt);
}

TEST(BackgroundWorkTest, ForgettingAKeyDropsItsRunningWorksResult) {
  BackgroundWork work;
  Gate gate;
  ASSERT_TRUE(work.Submit("deleted", [&](const std::atomic<bool>&) {
    gate.Arrive();
    return std::string("stale fit");
  }));
  ASSERT_TRUE(gate.WaitArrived());
  work.Forget("deleted");
  gate.Open();
  ASSERT_TRUE(work.WaitIdle(Deadline()));
  EXPECT_EQ(work.TakeResult("deleted"), std::nullopt);
}

TEST(BackgroundWorkTest, DestroyingCancelsRunningWork) {
  std::atomic<bool> saw_cancel{false};
  Gate started;
  {
    BackgroundWork work;
    ASSERT_TRUE(work.Submit("long", [&](const std::atomic<bool>& cancelled) {
      started.Open();  // Lets WaitArrived below through.
      started.Arrive();
      while (!cancelled) std::this_thread::yield();
      saw_cancel = true;
      return std::string();
    }));
    ASSERT_TRUE(started.WaitArrived());
  }  // Would never return if the work were not told to stop.
  EXPECT_TRUE(saw_cancel);
}

// A 3-D GP study, each suggestion completed at once, on an engine that
// defers refits: the saved state's fit_rows moves past the first fit only
// when a background fit has come back.
TEST(EngineBackgroundWorkTest, GpRefitsLandFromTheWorkerAndAreSaved) {
  store::MemoryStore store{hptune::SystemClock()};
  TuningEngine engine(store, EngineOptions{.background_designer_work = true},
                      hptune::SystemClock());
  StudySpec spec;
  std::vector<ParameterSpec> params;
  for (const char* name : {"a", "b", "c"}) {
    params.push_back({.name = name,
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 1});
  }
  spec.search_space = SearchSpace(params);
  spec.SetSingleMetric("loss", Goal::kMinimize);
  spec.max_trials = 1000;
  spec.seed = 5;
  ASSERT_OK(engine.CreateStudy("s", spec));
  auto fit_rows = [&]() -> std::string {
    const std::string state = store.GetDesignerState("s").value_or("");
    const size_t at = state.find("fit_rows=");
    return state.substr(at, state.find(';', at) - at);
  };
  std::string first_fit;
  const auto deadline = Deadline();
  int trials = 0;
  while (Clock::now() < deadline && trials < 1000) {
    auto response = engine.SuggestTrials("s", 1, "client");
    ASSERT_OK(response);
    for (const Trial& t : response->trials) {
      double loss = 0;
      for (const auto& [name, value] : t.parameters) {
        loss += (value.AsDouble() - 0.4) * (value.AsDouble() - 0.4);
      }
      ASSERT_OK(engine.CompleteTrial(
          "s", t.number, Measurement{.step = 1, .metrics = {{"loss", loss}}}));
      ++trials;
    }
    const std::string rows = fit_rows();
    if (rows != "fit_rows=0" && first_fit.empty()) first_fit = rows;
    if (!first_fit.empty() && rows != first_fit) {
      // An inline refit on R rows would show right after the call that saw
      // R trials (trials == R + 1 here); one from the worker, a call later.
      const int fitted_on = std::stoi(rows.substr(rows.find('=') + 1));
      EXPECT_GT(trials, fitted_on + 1) << rows << " after " << trials;
      return;
    }
  }
  FAIL() << "no background fit landed in " << trials
         << " trials; first fit: " << first_fit;
}

}  // namespace
}  // namespace hptune::engine

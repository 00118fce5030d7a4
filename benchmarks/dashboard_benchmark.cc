// How long the dashboard takes to open a large study: a SQLite file with
// N trials (default 100,000) of 6 parameters, each with 20 intermediate
// measurements, a start and an end on one of 8 parallel slots, written
// through the Store; a DashboardServer on 127.0.0.1; and the requests the
// study page makes when it opens (the study, the first trials page) and
// those of each of its plot tabs (history, points for parallel coordinates,
// slice and contour, learning curves, importance, timeline), timed over
// HTTP. "cold" is the first opening (the
// server reads the study from the file); "warm" every later one.
//
//   build/benchmarks/dashboard_benchmark [--trials=100000] [--keep-db=FILE]
//
// --keep-db writes the study to FILE and leaves it there, for
// benchmarks/dashboard_browser_benchmark.py to open in a browser.
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>

#include "absl/strings/numbers.h"
#include "hptune/env/clock.h"
#include "hptune/store/open_store.h"
#include "src/dashboard/dashboard_server.h"

namespace {

using Clock = std::chrono::steady_clock;

hptune::StudyRecord Study() {
  hptune::StudyRecord study;
  study.name = "large";
  study.spec.SetSingleMetric("loss", hptune::Goal::kMinimize);
  study.spec.max_trials = 1000000;
  study.spec.max_parallel_trials = 8;
  std::vector<hptune::ParameterSpec> params;
  for (int i = 0; i < 5; ++i) {
    params.push_back({.name = "x" + std::to_string(i),
                      .type = hptune::ParameterType::kDouble,
                      .min_value = 1e-4,
                      .max_value = 1,
                      .scale = hptune::ScaleType::kLog});
  }
  params.push_back({.name = "opt",
                    .type = hptune::ParameterType::kCategorical,
                    .categorical_values = {"adam", "sgd", "rmsprop"}});
  study.spec.search_space = hptune::SearchSpace(params);
  return study;
}

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int64_t trials = 100000;
  std::filesystem::path db =
      std::filesystem::temp_directory_path() /
      ("dashboard_benchmark_" + std::to_string(::getpid()) + ".db");
  bool keep_db = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.starts_with("--trials=") &&
        absl::SimpleAtoi(arg.substr(9), &trials) && trials > 0) {
      continue;
    }
    if (arg.starts_with("--keep-db=") && arg.size() > 10 &&
        !std::filesystem::exists(arg.substr(10))) {
      db = arg.substr(10);
      keep_db = true;
      continue;
    }
    std::cerr
        << "usage: dashboard_benchmark [--trials=N] [--keep-db=NEW_FILE]\n";
    return 64;
  }
  auto store =
      hptune::store::OpenSqliteStore(db.string(), hptune::SystemClock());
  if (!store.ok()) return 1;
  if (!(*store)->CreateStudy(Study()).ok()) return 1;
  uint64_t state = 12345;
  auto uniform = [&state] {  // xorshift64*: reproducible data.
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return static_cast<double>((state * 2685821657736338717ull) >> 11) /
           9007199254740992.0;
  };
  const hptune::Timestamp t0 = hptune::FromUnixMicros(1'790'000'000'000'000);
  Clock::time_point start = Clock::now();
  for (int64_t done = 0; done < trials;) {
    std::vector<hptune::Trial> batch;
    for (; done < trials && batch.size() < 1000; ++done) {
      hptune::Trial trial;
      trial.state = hptune::TrialState::kSucceeded;
      double loss = 0;
      for (int i = 0; i < 5; ++i) {
        const double x = std::pow(10.0, -4 * uniform());
        trial.parameters["x" + std::to_string(i)] =
            hptune::ParameterValue::Double(x);
        loss += (i + 1) * std::abs(std::log10(x) + 2);
      }
      const char* opts[] = {"adam", "sgd", "rmsprop"};
      trial.parameters["opt"] = hptune::ParameterValue::Categorical(
          opts[static_cast<int>(uniform() * 3) % 3]);
      // Slot k runs trials k, k + 8, ... one minute each.
      trial.client_id = "large/slot-" + std::to_string(done % 8);
      trial.start_time = t0 + std::chrono::minutes(done / 8);
      trial.end_time = *trial.start_time + std::chrono::seconds(59);
      for (int step = 1; step <= 20; ++step) {
        trial.measurements.push_back(
            {.step = step * 5,
             .time = *trial.start_time + std::chrono::seconds(step),
             .metrics = {{"loss", loss * (1 + 2.0 / step)}}});
      }
      trial.final_measurement =
          hptune::Measurement{.step = 100, .metrics = {{"loss", loss}}};
      batch.push_back(std::move(trial));
    }
    if (!(*store)->AddTrials("large", std::move(batch), std::nullopt).ok()) {
      return 1;
    }
  }
  std::cout << "wrote " << trials << " trials in " << Seconds(start) << " s\n";
  hptune::dashboard::DashboardOptions options;
  options.env = &hptune::DefaultEnv();
  options.address = "127.0.0.1:0";
  options.token = "benchmark";
  auto server =
      hptune::dashboard::DashboardServer::Start(**store, std::move(options));
  if (!server.ok()) {
    std::cerr << server.status() << "\n";
    return 1;
  }
  const char* requests[] = {
      "/api/studies/large", "/api/studies/large/trials?limit=50",
      "/api/studies/large/history", "/api/studies/large/points",
      "/api/studies/large/curves", "/api/studies/large/importance",
      "/api/studies/large/timeline",
      // The table sorted by a metric, and the curves of every trial (an
      // even spread of 50).
      "/api/studies/large/trials?limit=50&sort=metric:loss&order=desc",
      "/api/studies/large/curves?select=all"};
  httplib::Client client("127.0.0.1", (*server)->port());
  client.set_read_timeout(120, 0);
  client.set_decompress(false);
  // As a browser asks; the sizes below are as sent.
  const httplib::Headers auth = {{"Authorization", "Bearer benchmark"},
                                 {"Accept-Encoding", "gzip, deflate, br"}};
  // The page shows once the study and the first trials page are in; each
  // plot tab then makes one request.
  for (const char* round : {"cold", "warm", "warm"}) {
    std::cout << round << ":";
    double page_open = 0;
    for (int i = 0; i < std::ssize(requests); ++i) {
      Clock::time_point one = Clock::now();
      auto res = client.Get(requests[i], auth);
      if (!res || res->status != 200) {
        std::cerr << requests[i] << " failed\n";
        return 1;
      }
      const double seconds = Seconds(one);
      if (i < 2) page_open += seconds;
      const std::string name = std::string(requests[i]).substr(18);
      std::cout << " " << (name.empty() ? "/study" : name) << " "
                << static_cast<int>(seconds * 1000) << " ms ("
                << res->body.size() / 1024 << " KiB sent);";
    }
    std::cout << " study page open " << static_cast<int>(page_open * 1000)
              << " ms\n";
  }
  (*server)->Stop();
  if (keep_db) return 0;
  std::filesystem::remove(db);
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
  return 0;
}

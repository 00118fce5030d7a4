// Suggestions across many studies (the architecture issue, item 5): trials
// per second and the latency of SuggestTrials when --clients threads ask for
// and complete trials of --studies studies at once, against a real server
// with a SQLite file. With --turn=N all clients work on one study at a
// time (N trials, then the next study), as on a server with one study,
// whose suggestions are serialised by design. N must be well above
// --clients, or the clients' pairs span several studies at once; the
// studies whose turn came then grow by N trials.
//
// Setup: an in-process HptuneServer (src/server/server.h, the same
// composition root as `hptune serve`) on 127.0.0.1 with an ephemeral port
// and a database in a fresh temp dir; --studies studies of one spec (four
// parameters, --algorithm, maxParallelTrials = --clients, no seed given, so
// each study draws its own); each study then gets --history trials asked
// for and completed, spread over the clients. Then each of --clients
// threads, with its own channel (its own TCP connection), loops:
//   SuggestTrials(a study drawn at random, or with --turn=N the study whose
//                 turn it is, count 1, client_id "client-<k>")
//   CompleteTrial(that study, the trial, final_measurement {m: f(params)})
// One trial = that pair. The clients run --warmup_seconds unmeasured, then
// --seconds measured; only trials whose two calls start and end inside the
// measured window count, and only suggestions inside it give latencies. Any
// RPC error aborts the run. Each study's history grows by one trial per
// pair, and a suggestion and the completion check each read their study's
// whole history, so the more trials a study takes in the run (--studies=1:
// hundreds a second) the more each costs: compare runs of the same flags,
// and read the history sizes printed.
//
// Printed: trials/s, p50/p90/p99/max latency of SuggestTrials and p50/p99
// of CompleteTrial, the process's CPU time (server + clients) per trial
// over the window, each study's trials at the start and the end, and the
// load average.
//
//   many_studies_benchmark [--studies=200] [--clients=32] [--seconds=10]
//                          [--warmup_seconds=2] [--history=20] [--turn=N]
//                          [--algorithm=RANDOM_SEARCH|GP] [--db=URL]
//                          [--servers=N]
//
// --db=URL: the store (default a SQLite file in the temp dir). --servers=N
// starts N servers in this process on that one store (then a postgresql://
// URL: docs/operations.md, "Several servers"), client k calling server
// k mod N.
//
// --algorithm=GP is hptune's default designer, with its refits on the
// engine's worker as the server runs them; a suggestion then costs
// milliseconds of model work, growing with the history.
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "benchmarks/server/bench_support.h"
#include "hptune/core/study.h"
#include "hptune/store/open_store.h"
#include "hptune/v1/study_service.grpc.pb.h"
#include "src/server/server.h"

namespace hptune {
namespace {

using bench::Connect;
using bench::LoadAverage;
using bench::Percentile;
using bench::ProcessCpuSeconds;

using SteadyClock = std::chrono::steady_clock;

constexpr char kProgram[] = "many_studies_benchmark";

constexpr char kMetric[] = "m";
constexpr char kToken[] = "many-studies-benchmark-token";

struct Flags {
  int studies = 200;
  int clients = 32;
  double seconds = 10;
  double warmup_seconds = 2;
  int history = 20;
  int turn = 0;  // Trials per study's turn; 0: studies drawn at random.
  std::string algorithm = "RANDOM_SEARCH";
  std::string db;  // Empty: a SQLite file in the temp dir.
  int servers = 1;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value_of = [&](std::string_view name) -> const char* {
      const std::string prefix = "--" + std::string(name) + "=";
      return arg.rfind(prefix, 0) == 0 ? argv[i] + prefix.size() : nullptr;
    };
    if (const char* v = value_of("studies")) {
      flags.studies = std::atoi(v);
    } else if (const char* v = value_of("clients")) {
      flags.clients = std::atoi(v);
    } else if (const char* v = value_of("seconds")) {
      flags.seconds = std::atof(v);
    } else if (const char* v = value_of("warmup_seconds")) {
      flags.warmup_seconds = std::atof(v);
    } else if (const char* v = value_of("history")) {
      flags.history = std::atoi(v);
    } else if (const char* v = value_of("turn")) {
      flags.turn = std::atoi(v);
    } else if (const char* v = value_of("algorithm")) {
      flags.algorithm = v;
    } else if (const char* v = value_of("db")) {
      flags.db = v;
    } else if (const char* v = value_of("servers")) {
      flags.servers = std::atoi(v);
    } else {
      bench::Die(
          kProgram,
          "unknown flag " + arg +
              " (flags: --studies=N --clients=N --seconds=S --warmup_seconds=S "
              "--history=N --turn=N --algorithm=RANDOM_SEARCH|GP --db=URL "
              "--servers=N)");
    }
  }
  if (flags.studies < 1 || flags.clients < 1 || flags.seconds <= 0 ||
      flags.warmup_seconds < 0 || flags.history < 0 || flags.turn < 0 ||
      flags.servers < 1 ||
      (flags.algorithm != "RANDOM_SEARCH" && flags.algorithm != "GP")) {
    bench::Die(
        kProgram,
        "flags out of range: need studies >= 1, clients >= 1, seconds > 0, "
        "warmup_seconds >= 0, history >= 0, turn >= 0, servers >= 1, "
        "algorithm RANDOM_SEARCH or GP");
  }
  return flags;
}

std::string StudyName(int i) {
  char name[32];
  std::snprintf(name, sizeof(name), "study_%03d", i);
  return name;
}

v1::StudySpec Spec(const Flags& flags) {
  v1::StudySpec spec;
  spec.set_goal(v1::StudySpec::MINIMIZE);
  spec.set_hyperparameter_metric_tag(kMetric);
  spec.set_max_trials(kMaxTrials);
  spec.set_max_parallel_trials(flags.clients);
  spec.set_algorithm(flags.algorithm == "GP"
                         ? v1::StudySpec::ALGORITHM_UNSPECIFIED
                         : v1::StudySpec::RANDOM_SEARCH);
  auto add = [&](const char* name, v1::ParameterSpec::Type type, double lo,
                 double hi, v1::ParameterSpec::ScaleType scale) {
    v1::ParameterSpec* p = spec.add_params();
    p->set_parameter_name(name);
    p->set_type(type);
    p->set_min_value(lo);
    p->set_max_value(hi);
    p->set_scale_type(scale);
  };
  add("lr", v1::ParameterSpec::DOUBLE, 1e-5, 1e-1,
      v1::ParameterSpec::UNIT_LOG_SCALE);
  add("dropout", v1::ParameterSpec::DOUBLE, 0, 0.5,
      v1::ParameterSpec::UNIT_LINEAR_SCALE);
  add("hidden", v1::ParameterSpec::INTEGER, 40, 400,
      v1::ParameterSpec::UNIT_LINEAR_SCALE);
  v1::ParameterSpec* cell = spec.add_params();
  cell->set_parameter_name("cell");
  cell->set_type(v1::ParameterSpec::CATEGORICAL);
  cell->add_categorical_values("GRU");
  cell->add_categorical_values("LSTM");
  return spec;
}

// A smooth objective of the four parameters, minimal at lr 1e-3, dropout
// 0.2, 200 hidden units, GRU.
double Objective(const v1::Trial& trial) {
  const auto& p = trial.parameters();
  auto number = [&](const char* name) {
    auto it = p.find(name);
    if (it == p.end()) return 0.0;
    return it->second.has_int_value()
               ? static_cast<double>(it->second.int_value())
               : it->second.double_value();
  };
  const double lr = std::log10(std::max(number("lr"), 1e-12)) + 3;
  const double dropout = number("dropout") - 0.2;
  const double hidden = (number("hidden") - 200) / 200;
  auto cell = p.find("cell");
  const double gru =
      cell != p.end() && cell->second.string_value() == "GRU" ? 0 : 0.1;
  return lr * lr + dropout * dropout + hidden * hidden + gru;
}

// One trial asked for and completed; the two calls' times.
struct Timed {
  SteadyClock::time_point begin, suggested, end;
};

Timed AskAndComplete(v1::StudyService::Stub& stub, const std::string& study,
                     const std::string& client) {
  Timed timed;
  timed.begin = SteadyClock::now();
  v1::Trial trial;
  {
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::SuggestTrialsRequest request;
    request.set_study(study);
    request.set_suggestion_count(1);
    request.set_client_id(client);
    v1::SuggestTrialsResponse reply;
    bench::DieUnlessOk(kProgram, stub.SuggestTrials(&context, request, &reply),
                       "SuggestTrials for " + study);
    if (reply.trials_size() != 1) {
      bench::Die(kProgram, "SuggestTrials for " + study +
                               " gave no trial: " + reply.note());
    }
    trial = reply.trials(0);
  }
  timed.suggested = SteadyClock::now();
  grpc::ClientContext context;
  bench::Authorize(context, kToken);
  v1::CompleteTrialRequest request;
  request.set_study(study);
  request.set_trial_id(trial.id());
  (*request.mutable_final_measurement()->mutable_metrics())[kMetric] =
      Objective(trial);
  v1::Trial reply;
  bench::DieUnlessOk(kProgram, stub.CompleteTrial(&context, request, &reply),
                     "CompleteTrial in " + study);
  timed.end = SteadyClock::now();
  return timed;
}

struct Window {
  SteadyClock::time_point start;
  SteadyClock::time_point end;
};

struct ClientResult {
  std::vector<int64_t> suggest_ns;   // Suggestions inside the window.
  std::vector<int64_t> complete_ns;  // Completions inside the window.
  int64_t trials = 0;                // Pairs inside the window.
  int64_t all_trials = 0;            // Pairs in the whole run.
};

int64_t Nanoseconds(SteadyClock::duration d) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
}

// `started` counts the pairs of all clients, for --turn.
void RunClient(v1::StudyService::Stub& stub, int k, const Flags& flags,
               const Window& window, std::atomic<int64_t>& started,
               ClientResult& result) {
  std::mt19937_64 random(static_cast<uint64_t>(k) + 1);
  std::uniform_int_distribution<int> pick(0, flags.studies - 1);
  const std::string client = "client-" + std::to_string(k);
  result.suggest_ns.reserve(1 << 14);
  result.complete_ns.reserve(1 << 14);
  while (SteadyClock::now() < window.end) {
    const int64_t n = started.fetch_add(1);
    const int study = flags.turn > 0
                          ? static_cast<int>((n / flags.turn) % flags.studies)
                          : pick(random);
    const Timed t = AskAndComplete(stub, StudyName(study), client);
    ++result.all_trials;
    if (t.begin >= window.start && t.suggested <= window.end) {
      result.suggest_ns.push_back(Nanoseconds(t.suggested - t.begin));
    }
    if (t.suggested >= window.start && t.end <= window.end) {
      result.complete_ns.push_back(Nanoseconds(t.end - t.suggested));
    }
    if (t.begin >= window.start && t.end <= window.end) ++result.trials;
  }
}

// Creates the studies and gives each `flags.history` trials, the clients
// sharing the work.
void Prepare(const Flags& flags,
             std::vector<std::unique_ptr<v1::StudyService::Stub>>& stubs) {
  for (int i = 0; i < flags.studies; ++i) {
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::CreateStudyRequest request;
    request.set_name(StudyName(i));
    *request.mutable_spec() = Spec(flags);
    v1::Study reply;
    bench::DieUnlessOk(kProgram,
                       stubs[0]->CreateStudy(&context, request, &reply),
                       "CreateStudy");
  }
  std::vector<std::thread> threads;
  for (int k = 0; k < flags.clients; ++k) {
    threads.emplace_back([&, k] {
      for (int i = k; i < flags.studies; i += flags.clients) {
        for (int n = 0; n < flags.history; ++n) {
          AskAndComplete(*stubs[k], StudyName(i), "history");
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

void Print(const Flags& flags, int port, const Window& window,
           const std::vector<ClientResult>& results, double cpu_s,
           const std::string& load_before) {
  std::vector<int64_t> suggest, complete;
  int64_t trials = 0, all_trials = 0;
  for (const ClientResult& r : results) {
    suggest.insert(suggest.end(), r.suggest_ns.begin(), r.suggest_ns.end());
    complete.insert(complete.end(), r.complete_ns.begin(), r.complete_ns.end());
    trials += r.trials;
    all_trials += r.all_trials;
  }
  std::sort(suggest.begin(), suggest.end());
  std::sort(complete.begin(), complete.end());
  const double measured_s =
      std::chrono::duration<double>(window.end - window.start).count();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const double cpu_ms =
      trials == 0 ? 0 : 1e3 * cpu_s / static_cast<double>(trials);
  std::printf("hptune SuggestTrials + CompleteTrial across studies\n");
  std::printf(
      "  server      %d in-process HptuneServer(s), the first on "
      "127.0.0.1:%d (clients in the same process), %u hardware threads\n",
      flags.servers, port, cores);
  std::printf("  store       %s\n",
              flags.db.empty() ? "SQLite WAL file in a temp dir"
                               : store::PrintableStoreUrl(flags.db).c_str());
  std::printf("  studies     %d, %s, each with %d trials first\n",
              flags.studies, flags.algorithm.c_str(), flags.history);
  std::printf(
      "  clients     %d threads, blocking calls, a channel each; each pair "
      "on %s\n",
      flags.clients,
      flags.turn > 0
          ? ("the study whose turn it is (" + std::to_string(flags.turn) +
             " trials each, one study at a time)")
                .c_str()
          : "a study drawn at random");
  std::printf("  window      %.1f s measured after %.1f s warm-up\n",
              measured_s, flags.warmup_seconds);
  std::printf(
      "  trials      %lld in the window; per study %d at the start, "
      "%.1f at the end on average\n",
      static_cast<long long>(trials), flags.history,
      flags.history + static_cast<double>(all_trials) / flags.studies);
  std::printf("  throughput  %.1f trials/s\n",
              static_cast<double>(trials) / measured_s);
  std::printf("  suggest ms  p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n",
              Percentile(suggest, 0.50), Percentile(suggest, 0.90),
              Percentile(suggest, 0.99), Percentile(suggest, 1.0));
  std::printf("  complete ms p50 %.2f  p99 %.2f\n", Percentile(complete, 0.50),
              Percentile(complete, 0.99));
  std::printf(
      "  cpu         %.2f ms per trial (server + clients, user + sys): at "
      "most %.0f trials/s on %u idle cores\n",
      cpu_ms, cpu_ms > 0 ? 1e3 * cores / cpu_ms : 0.0, cores);
  std::printf("  load avg    %s before, %s after (1, 5, 15 min)\n",
              load_before.c_str(), LoadAverage().c_str());
}

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  char dir_template[] = "/tmp/hptune-many-studies-XXXXXX";
  if (mkdtemp(dir_template) == nullptr)
    bench::Die(kProgram, "cannot create a temp dir");
  const std::filesystem::path dir = dir_template;

  const std::string db =
      flags.db.empty() ? (dir / "hptune.db").string() : flags.db;
  std::vector<std::unique_ptr<server::HptuneServer>> servers =
      bench::StartServers(kProgram, db, dir, kToken, flags.servers);
  const int port = servers[0]->port();

  std::vector<std::unique_ptr<v1::StudyService::Stub>> stubs;
  for (int k = 0; k < flags.clients; ++k) {
    stubs.push_back(Connect(servers[k % flags.servers]->port(), k));
  }
  Prepare(flags, stubs);

  const auto to_duration = [](double s) {
    return std::chrono::duration_cast<SteadyClock::duration>(
        std::chrono::duration<double>(s));
  };
  const std::string load_before = LoadAverage();
  Window window;
  window.start = SteadyClock::now() + to_duration(flags.warmup_seconds);
  window.end = window.start + to_duration(flags.seconds);
  std::vector<ClientResult> results(flags.clients);
  std::vector<std::thread> threads;
  std::atomic<int64_t> started{0};
  for (int k = 0; k < flags.clients; ++k) {
    threads.emplace_back([&, k] {
      RunClient(*stubs[k], k, flags, window, started, results[k]);
    });
  }
  // CPU of the whole process over the window: less dependent than the
  // wall-clock figures on what else the machine runs.
  std::this_thread::sleep_until(window.start);
  const double cpu_start_s = ProcessCpuSeconds();
  std::this_thread::sleep_until(window.end);
  const double cpu_s = ProcessCpuSeconds() - cpu_start_s;
  for (std::thread& t : threads) t.join();

  Print(flags, port, window, results, cpu_s, load_before);
  for (auto& server : servers) server->Drain(std::chrono::milliseconds(100));
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  std::fflush(stdout);
  // Drain leaves the job runner threads parked: the process must _Exit.
  std::_Exit(0);
}

}  // namespace
}  // namespace hptune

int main(int argc, char** argv) { return hptune::Main(argc, argv); }

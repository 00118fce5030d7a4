// Throughput of the study service's hot path (issue 5): round trips per
// second of AddMeasurement + CheckEarlyStopping from concurrent clients, and
// the latency of one round trip, against a real server with a SQLite file.
//
// Setup: an in-process HptuneServer (src/server/server.h, the same
// composition root as `hptune serve`) on 127.0.0.1 with an ephemeral port
// and a database in a fresh temp dir; a RANDOM_SEARCH study with four
// parameters and early stopping on (the server's default rule); a history of
// --completed_trials SUCCEEDED trials with --curve_length measurements each,
// so the stopping rule has curves to judge against. Then --clients threads,
// each with its own channel (a distinct channel argument, so gRPC opens a
// separate connection per client) and its own ACTIVE trial from
// SuggestTrials(client_id "client-<k>"), loop:
//   AddMeasurement(study, trial, step++, {m: value})
//   CheckEarlyStopping(study, [trial])
// One round trip = that pair. The clients run --warmup_seconds unmeasured,
// then --seconds measured; only pairs that start and end inside the
// measured window count. Any RPC error aborts the run. Each client's curve
// grows by one point per round trip and CheckEarlyStopping reads the judged
// trial's whole curve, so longer runs give lower figures: compare runs of the
// same --warmup_seconds and --seconds.
//
// Printed: round trips/s, p50/p90/p99/max latency of one pair, and the
// process's CPU time (server + clients) per round trip over the window,
// which depends far less than the wall-clock figures on other load, with
// the throughput it would allow on the machine's cores if nothing else ran.
//
// Durable: the store is SqliteStore (WAL, synchronous=NORMAL), and each
// AddMeasurement is one committed transaction before its OK: it survives a
// crash or SIGKILL of the server; an OS crash may lose the last commits
// (see src/store/sqlite_store.h).
//
// Plain main rather than Google Benchmark: the figure is one fixed-time run
// of many threads with their own channels, and its percentiles.
//
//   throughput_benchmark [--clients=16] [--seconds=10] [--warmup_seconds=2]
//                        [--completed_trials=10] [--curve_length=100]
//                        [--keep_db] [--baseline] [--db=URL] [--servers=N]
//
// --db names the store (a URL as `hptune serve --db` takes it, e.g.
// postgresql:///hp?host=/run/postgresql); default a SQLite file in the temp
// dir. The CPU figure counts this process only: a PostgreSQL server's own
// CPU is not in it.
//
// --servers=N starts N servers in this process on the one --db (which must
// then be a PostgreSQL store: docs/operations.md, "Several servers"), each
// with its own store connections, and spreads the clients over them (client
// k to server k mod N).
//
// --baseline replaces each round trip by two GetStudy calls (same number of
// RPCs, a one-row store read each): the floor that gRPC, the threads and the
// machine set, to compare the real figure with.
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <latch>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "benchmarks/server/bench_support.h"
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

constexpr char kProgram[] = "throughput_benchmark";

constexpr char kStudy[] = "throughput";
constexpr char kMetric[] = "m";

struct Flags {
  int clients = 16;
  double seconds = 10;
  double warmup_seconds = 2;
  int completed_trials = 10;
  int curve_length = 100;
  bool keep_db = false;
  bool baseline = false;
  bool sync_clients = false;
  std::string db;  // A store URL; "" for a SQLite file in the temp dir.
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
    if (const char* v = value_of("clients")) {
      flags.clients = std::atoi(v);
    } else if (const char* v = value_of("seconds")) {
      flags.seconds = std::atof(v);
    } else if (const char* v = value_of("warmup_seconds")) {
      flags.warmup_seconds = std::atof(v);
    } else if (const char* v = value_of("completed_trials")) {
      flags.completed_trials = std::atoi(v);
    } else if (const char* v = value_of("curve_length")) {
      flags.curve_length = std::atoi(v);
    } else if (const char* v = value_of("db")) {
      flags.db = v;
    } else if (const char* v = value_of("servers")) {
      flags.servers = std::atoi(v);
    } else if (arg == "--keep_db") {
      flags.keep_db = true;
    } else if (arg == "--baseline") {
      flags.baseline = true;
    } else if (arg == "--sync_clients") {
      flags.sync_clients = true;
    } else {
      bench::Die(
          kProgram,
          "unknown flag " + arg +
              " (flags: --clients=N --seconds=S --warmup_seconds=S "
              "--completed_trials=N --curve_length=N --keep_db --baseline "
              "--sync_clients --db=URL --servers=N)");
    }
  }
  if (flags.clients < 1 || flags.seconds <= 0 || flags.warmup_seconds < 0 ||
      flags.completed_trials < 0 || flags.curve_length < 1 ||
      flags.servers < 1) {
    bench::Die(kProgram,
               "flags out of range: need clients >= 1, seconds > 0, "
               "warmup_seconds >= 0, completed_trials >= 0, curve_length >= 1");
  }
  return flags;
}

v1::StudySpec Spec(const Flags& flags) {
  v1::StudySpec spec;
  spec.set_goal(v1::StudySpec::MINIMIZE);
  spec.set_hyperparameter_metric_tag(kMetric);
  spec.set_max_trials(flags.completed_trials + flags.clients);
  spec.set_max_parallel_trials(flags.clients);
  spec.set_enable_trial_early_stopping(true);
  spec.set_algorithm(v1::StudySpec::RANDOM_SEARCH);
  spec.set_seed(1);
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

// Every call carries the bearer token, as every client of `hptune serve`
// must: the server checks it on the hot path too.
constexpr char kToken[] = "throughput-benchmark-token";
// A decaying loss curve, offset per trial so the trials differ.
double Loss(int trial_offset, int64_t step) {
  return 1.0 / (1.0 + 0.01 * static_cast<double>(step)) + 0.001 * trial_offset;
}

int64_t SuggestOne(v1::StudyService::Stub& stub, const std::string& client) {
  grpc::ClientContext context;
  bench::Authorize(context, kToken);
  v1::SuggestTrialsRequest request;
  request.set_study(kStudy);
  request.set_suggestion_count(1);
  request.set_client_id(client);
  v1::SuggestTrialsResponse reply;
  bench::DieUnlessOk(kProgram, stub.SuggestTrials(&context, request, &reply),
                     "SuggestTrials for " + client);
  if (reply.trials_size() != 1) {
    bench::Die(kProgram, "SuggestTrials for " + client +
                             " gave no trial: " + reply.note());
  }
  return reply.trials(0).id();
}

void AddMeasurement(v1::StudyService::Stub& stub, int64_t trial, int64_t step,
                    double value) {
  grpc::ClientContext context;
  bench::Authorize(context, kToken);
  v1::AddMeasurementRequest request;
  request.set_study(kStudy);
  request.set_trial_id(trial);
  request.mutable_measurement()->set_step(step);
  (*request.mutable_measurement()->mutable_metrics())[kMetric] = value;
  v1::AddMeasurementResponse reply;
  bench::DieUnlessOk(kProgram, stub.AddMeasurement(&context, request, &reply),
                     "AddMeasurement");
}

// SUCCEEDED trials with whole curves, for the stopping rule to compare with.
void AddHistory(v1::StudyService::Stub& stub, const Flags& flags) {
  for (int k = 0; k < flags.completed_trials; ++k) {
    const int64_t trial = SuggestOne(stub, "history-" + std::to_string(k));
    for (int64_t step = 1; step <= flags.curve_length; ++step) {
      AddMeasurement(stub, trial, step, Loss(k, step));
    }
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::CompleteTrialRequest request;
    request.set_study(kStudy);
    request.set_trial_id(trial);
    v1::Trial reply;
    bench::DieUnlessOk(kProgram, stub.CompleteTrial(&context, request, &reply),
                       "CompleteTrial");
  }
}

struct ClientResult {
  std::vector<int64_t> latencies_ns;  // Of pairs inside the measured window.
  int64_t stop_advice = 0;            // Decisions that said stop.
};

struct Window {
  SteadyClock::time_point start;
  SteadyClock::time_point end;
};

// Two GetStudy calls: the same number of RPCs as a round trip, each with
// one small store read, to show what gRPC and the threads cost on their own.
void GetStudyTwice(v1::StudyService::Stub& stub) {
  for (int i = 0; i < 2; ++i) {
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::GetStudyRequest request;
    request.set_name(kStudy);
    v1::Study reply;
    bench::DieUnlessOk(kProgram, stub.GetStudy(&context, request, &reply),
                       "GetStudy");
  }
}

void RunClient(v1::StudyService::Stub& stub, int64_t trial, int offset,
               bool baseline, const Window& window, ClientResult& result) {
  result.latencies_ns.reserve(1 << 16);
  int64_t step = 1;
  while (true) {
    const auto begin = SteadyClock::now();
    if (begin >= window.end) return;
    if (baseline) {
      GetStudyTwice(stub);
      const auto end = SteadyClock::now();
      if (begin >= window.start && end <= window.end) {
        result.latencies_ns.push_back(
            std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin)
                .count());
      }
      continue;
    }
    AddMeasurement(stub, trial, step, Loss(offset, step));
    ++step;
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::CheckEarlyStoppingRequest request;
    request.set_study(kStudy);
    request.add_trial_ids(trial);
    v1::CheckEarlyStoppingResponse reply;
    bench::DieUnlessOk(kProgram,
                       stub.CheckEarlyStopping(&context, request, &reply),
                       "CheckEarlyStopping");
    if (reply.decisions_size() != 1 || reply.decisions(0).trial_id() != trial) {
      bench::Die(kProgram,
                 "CheckEarlyStopping: expected one decision for trial " +
                     std::to_string(trial) + ", got " +
                     std::to_string(reply.decisions_size()));
    }
    const auto end = SteadyClock::now();
    if (begin >= window.start && end <= window.end) {
      result.latencies_ns.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin)
              .count());
      if (reply.decisions(0).should_stop()) ++result.stop_advice;
    }
  }
}

// The same loop on gRPC's callback API: each reply starts the next call
// from gRPC's own threads, so the clients need no thread each and cost the
// shared cores less than blocking calls do (gRPC's own QPS benchmarks drive
// their load the same way). Each client still has its own connection and
// one pair in flight at a time.
class CallbackClient {
 public:
  CallbackClient(v1::StudyService::Stub& stub, int64_t trial, int offset,
                 bool baseline, const Window& window, ClientResult& result,
                 std::latch& finished)
      : stub_(stub),
        trial_(trial),
        offset_(offset),
        baseline_(baseline),
        window_(window),
        result_(result),
        finished_(finished) {
    result_.latencies_ns.reserve(1 << 16);
  }

  void StartPair() {
    begin_ = SteadyClock::now();
    if (begin_ >= window_.end) {
      finished_.count_down();
      return;
    }
    if (baseline_) {
      GetStudy([this] { GetStudy([this] { EndPair(false); }); });
      return;
    }
    first_ = std::make_unique<grpc::ClientContext>();
    bench::Authorize(*first_, kToken);
    add_request_.set_study(kStudy);
    add_request_.set_trial_id(trial_);
    add_request_.mutable_measurement()->set_step(step_);
    (*add_request_.mutable_measurement()->mutable_metrics())[kMetric] =
        Loss(offset_, step_);
    ++step_;
    stub_.async()->AddMeasurement(
        first_.get(), &add_request_, &add_reply_, [this](grpc::Status status) {
          bench::DieUnlessOk(kProgram, status, "AddMeasurement");
          Check();
        });
  }

 private:
  void Check() {
    second_ = std::make_unique<grpc::ClientContext>();
    bench::Authorize(*second_, kToken);
    check_request_.set_study(kStudy);
    check_request_.clear_trial_ids();
    check_request_.add_trial_ids(trial_);
    stub_.async()->CheckEarlyStopping(
        second_.get(), &check_request_, &check_reply_,
        [this](grpc::Status status) {
          bench::DieUnlessOk(kProgram, status, "CheckEarlyStopping");
          if (check_reply_.decisions_size() != 1 ||
              check_reply_.decisions(0).trial_id() != trial_) {
            bench::Die(kProgram,
                       "CheckEarlyStopping: expected one decision for trial " +
                           std::to_string(trial_) + ", got " +
                           std::to_string(check_reply_.decisions_size()));
          }
          EndPair(check_reply_.decisions(0).should_stop());
        });
  }

  template <typename Then>
  void GetStudy(Then then) {
    first_ = std::make_unique<grpc::ClientContext>();
    bench::Authorize(*first_, kToken);
    study_request_.set_name(kStudy);
    stub_.async()->GetStudy(first_.get(), &study_request_, &study_reply_,
                            [then](grpc::Status status) {
                              bench::DieUnlessOk(kProgram, status, "GetStudy");
                              then();
                            });
  }

  void EndPair(bool stop_advised) {
    const auto end = SteadyClock::now();
    if (begin_ >= window_.start && end <= window_.end) {
      result_.latencies_ns.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - begin_)
              .count());
      if (stop_advised) ++result_.stop_advice;
    }
    StartPair();
  }

  v1::StudyService::Stub& stub_;
  const int64_t trial_;
  const int offset_;
  const bool baseline_;
  const Window& window_;
  ClientResult& result_;
  std::latch& finished_;
  int64_t step_ = 1;
  SteadyClock::time_point begin_;
  // A ClientContext serves one call: each call gets a fresh one.
  std::unique_ptr<grpc::ClientContext> first_, second_;
  v1::AddMeasurementRequest add_request_;
  v1::AddMeasurementResponse add_reply_;
  v1::CheckEarlyStoppingRequest check_request_;
  v1::CheckEarlyStoppingResponse check_reply_;
  v1::GetStudyRequest study_request_;
  v1::Study study_reply_;
};

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  char dir_template[] = "/tmp/hptune-throughput-XXXXXX";
  if (mkdtemp(dir_template) == nullptr)
    bench::Die(kProgram, "cannot create a temp dir");
  const std::filesystem::path dir = dir_template;

  const std::string db =
      flags.db.empty() ? (dir / "hptune.db").string() : flags.db;
  const std::string store = store::PrintableStoreUrl(db);
  std::vector<std::unique_ptr<server::HptuneServer>> servers =
      bench::StartServers(kProgram, db, dir, kToken, flags.servers);
  std::vector<int> ports;
  for (const auto& server : servers) ports.push_back(server->port());
  const int port = ports[0];

  {
    std::unique_ptr<v1::StudyService::Stub> admin = Connect(port, -1);
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::CreateStudyRequest request;
    request.set_name(kStudy);
    *request.mutable_spec() = Spec(flags);
    v1::Study reply;
    bench::DieUnlessOk(kProgram, admin->CreateStudy(&context, request, &reply),
                       "CreateStudy");
    AddHistory(*admin, flags);
  }

  std::vector<std::unique_ptr<v1::StudyService::Stub>> stubs;
  std::vector<int64_t> trials;
  for (int k = 0; k < flags.clients; ++k) {
    stubs.push_back(Connect(ports[k % flags.servers], k));
    trials.push_back(SuggestOne(*stubs.back(), "client-" + std::to_string(k)));
  }

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
  std::latch finished(flags.sync_clients ? 0 : flags.clients);
  std::vector<std::unique_ptr<CallbackClient>> callback_clients;
  for (int k = 0; k < flags.clients; ++k) {
    if (flags.sync_clients) {
      threads.emplace_back([&, k] {
        RunClient(*stubs[k], trials[k], flags.completed_trials + k,
                  flags.baseline, window, results[k]);
      });
    } else {
      callback_clients.push_back(std::make_unique<CallbackClient>(
          *stubs[k], trials[k], flags.completed_trials + k, flags.baseline,
          window, results[k], finished));
      callback_clients.back()->StartPair();
    }
  }
  // CPU of the whole process (server and clients) over the window: unlike
  // the wall-clock figures it hardly depends on what else the machine runs.
  std::this_thread::sleep_until(window.start);
  const double cpu_start_s = ProcessCpuSeconds();
  std::this_thread::sleep_until(window.end);
  const double cpu_s = ProcessCpuSeconds() - cpu_start_s;
  for (std::thread& t : threads) t.join();
  finished.wait();

  std::vector<int64_t> latencies;
  int64_t stop_advice = 0;
  for (const ClientResult& r : results) {
    latencies.insert(latencies.end(), r.latencies_ns.begin(),
                     r.latencies_ns.end());
    stop_advice += r.stop_advice;
  }
  std::sort(latencies.begin(), latencies.end());
  const double measured_s =
      std::chrono::duration<double>(window.end - window.start).count();
  const double per_second = static_cast<double>(latencies.size()) / measured_s;

  std::printf("hptune StudyService throughput: %s\n",
              flags.baseline ? "BASELINE GetStudy + GetStudy"
                             : "AddMeasurement + CheckEarlyStopping");
  std::printf(
      "  server      %d in-process HptuneServer(s), the first on "
      "127.0.0.1:%d (clients in the same process), %u hardware threads\n",
      flags.servers, port, std::thread::hardware_concurrency());
  std::printf("  store       %s\n", store.c_str());
  std::printf(
      "  durable     %s, one committed transaction per AddMeasurement "
      "before its OK (survives a server crash)\n",
      flags.db.empty() ? "SQLite WAL, synchronous=NORMAL (not fsync'd per "
                         "commit)"
                       : "the store's own commit rule");
  std::printf(
      "  clients     %d (one channel/connection and one ACTIVE "
      "trial each; %s)\n",
      flags.clients,
      flags.sync_clients ? "a thread each, blocking calls"
                         : "callback API, one pair in flight each");
  std::printf(
      "  history     %d SUCCEEDED trials x %d measurements; stopping rule: "
      "server default (median at step)\n",
      flags.completed_trials, flags.curve_length);
  std::printf("  window      %.1f s measured after %.1f s warm-up\n",
              measured_s, flags.warmup_seconds);
  std::printf("  round trips %zu (%lld advised stop)\n", latencies.size(),
              static_cast<long long>(stop_advice));
  std::printf("  throughput  %.0f round trips/s\n", per_second);
  std::printf(
      "  latency ms  p50 %.3f  p90 %.3f  p99 %.3f  max %.3f  (one "
      "%s pair)\n",
      Percentile(latencies, 0.50), Percentile(latencies, 0.90),
      Percentile(latencies, 0.99), Percentile(latencies, 1.0),
      flags.baseline ? "GetStudy + GetStudy"
                     : "AddMeasurement + CheckEarlyStopping");
  const double cpu_us =
      latencies.empty() ? 0
                        : 1e6 * cpu_s / static_cast<double>(latencies.size());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf(
      "  cpu         %.0f us per round trip (server + clients, user + sys): "
      "at most %.0f round trips/s on %u idle cores\n",
      cpu_us, cpu_us > 0 ? 1e6 * cores / cpu_us : 0.0, cores);
  std::printf("  load avg    %s before, %s after (1, 5, 15 min)\n",
              load_before.c_str(), LoadAverage().c_str());

  for (auto& server : servers) server->Drain(std::chrono::milliseconds(100));
  if (flags.keep_db) {
    std::printf("  database    %s (kept)\n", store.c_str());
  } else {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::fflush(stdout);
  // Drain leaves the job runner threads parked: the process must _Exit.
  std::_Exit(0);
}

}  // namespace
}  // namespace hptune

int main(int argc, char** argv) { return hptune::Main(argc, argv); }

// The REST front beside gRPC (issue 87): how long `hptune serve --rest`
// takes to answer what gcloud calls, next to the same call on the gRPC
// port, against one real server with a SQLite file.
//
// Setup: an in-process HptuneServer (src/server/server.h, as `hptune
// serve` composes it) on 127.0.0.1 with an ephemeral port, its local
// launcher and a database in a fresh temp dir, and a RestGateway
// (src/rest/rest_gateway.h) on its in-process channel, plain HTTP on
// loopback. One client of each: a JobService stub on its own TCP
// connection, and an httplib client keeping its connection alive.
//
// Measured, one call at a time, alternating REST and gRPC:
//   describe:      --describes GetJob calls of a finished job (with its
//                  trial) per front: gRPC GetJob, REST GET
//                  /v1/projects/p1/jobs/ID (JSON written by the gateway).
//   create->trial: --jobs tuning jobs of one trial (/bin/true) per
//                  front: from the create call (gRPC SubmitJob, REST POST
//                  /v1/projects/p1/jobs) until a gRPC GetJob poll (every
//                  millisecond, the same for both) shows the job's trial
//                  started; and the create call alone.
// Printed: p50/p90/p99/max in milliseconds for each, and the load average.
//
//   rest_latency_benchmark [--describes=500] [--jobs=20]
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/server/bench_support.h"
#include "google/protobuf/util/json_util.h"
#include "hptune/env/env.h"
#include "hptune/v1/job_service.grpc.pb.h"
#include "src/rest/rest_gateway.h"
#include "src/server/server.h"

namespace hptune {
namespace {

constexpr char kProgram[] = "rest_latency_benchmark";
constexpr char kToken[] = "rest-latency-benchmark-token";
using SteadyClock = std::chrono::steady_clock;
// One trial of /bin/true (it reports no metric: only its start is timed).
constexpr char kTrainingInput[] =
    R"({"command":["/bin/true"],"region":"us-central1","hyperparameters":)"
    R"({"goal":"MINIMIZE","hyperparameterMetricTag":"loss","maxTrials":1,)"
    R"("maxParallelTrials":1,"algorithm":"RANDOM_SEARCH","params":)"
    R"([{"parameterName":"x","type":"DOUBLE","minValue":0,"maxValue":1}]}})";

struct Flags {
  int describes = 500;
  int jobs = 20;
};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.starts_with("--describes=")) {
      flags.describes = std::stoi(arg.substr(12));
    } else if (arg.starts_with("--jobs=")) {
      flags.jobs = std::stoi(arg.substr(7));
    } else {
      bench::Die(kProgram, "unknown flag " + arg);
    }
  }
  return flags;
}

int64_t NanosSince(SteadyClock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             SteadyClock::now() - start)
      .count();
}

class Fronts {
 public:
  Fronts(int grpc_port, int rest_port)
      : stub_(v1::JobService::NewStub(
            grpc::CreateChannel("127.0.0.1:" + std::to_string(grpc_port),
                                grpc::InsecureChannelCredentials()))),
        http_("127.0.0.1", rest_port) {
    http_.set_keep_alive(true);
    // A POST goes out as headers, then body: with Nagle's algorithm the
    // body waits for the server's delayed ACK (40 ms), a cost of this
    // client, not of the front. gcloud's Python client sends both at once.
    http_.set_tcp_nodelay(true);
    http_.set_read_timeout(std::chrono::seconds(60));
  }

  v1::Job GrpcGet(const std::string& id) {
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::GetJobRequest request;
    request.set_job_id(id);
    v1::Job job;
    bench::DieUnlessOk(kProgram, stub_->GetJob(&context, request, &job),
                       "GetJob");
    return job;
  }

  void RestGet(const std::string& id) {
    Check(http_.Get("/v1/projects/p1/jobs/" + id, Headers()), "GET");
  }

  void GrpcCreate(const std::string& id) {
    grpc::ClientContext context;
    bench::Authorize(context, kToken);
    v1::SubmitJobRequest request;
    request.set_job_id(id);
    if (!google::protobuf::util::JsonStringToMessage(
             kTrainingInput, request.mutable_training_input())
             .ok()) {
      bench::Die(kProgram, "the training input does not parse");
    }
    v1::Job job;
    bench::DieUnlessOk(kProgram, stub_->SubmitJob(&context, request, &job),
                       "SubmitJob");
  }

  void RestCreate(const std::string& id) {
    const std::string body =
        "{\"jobId\":\"" + id + "\",\"trainingInput\":" + kTrainingInput + "}";
    Check(
        http_.Post("/v1/projects/p1/jobs", Headers(), body, "application/json"),
        "POST");
  }

  // Polls GetJob until the job's trial has started.
  void AwaitFirstTrial(const std::string& id) {
    for (;;) {
      const v1::Job job = GrpcGet(id);
      const auto& trials = job.training_output().trials();
      if (!trials.empty() && trials[0].has_start_time()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

 private:
  static httplib::Headers Headers() {
    return {{"Authorization", std::string("Bearer ") + kToken}};
  }
  static void Check(const httplib::Result& result, const char* what) {
    if (!result) bench::Die(kProgram, std::string(what) + ": no reply");
    if (result->status != 200) {
      bench::Die(kProgram, std::string(what) + ": " + result->body);
    }
  }

  std::unique_ptr<v1::JobService::Stub> stub_;
  httplib::Client http_;
};

void PrintRow(const char* what, std::vector<int64_t> nanos) {
  std::sort(nanos.begin(), nanos.end());
  std::printf("%-24s n=%-4zu p50 %7.3f  p90 %7.3f  p99 %7.3f  max %7.3f ms\n",
              what, nanos.size(), bench::Percentile(nanos, 0.5),
              bench::Percentile(nanos, 0.9), bench::Percentile(nanos, 0.99),
              bench::Percentile(nanos, 1.0));
}

void MeasureDescribe(Fronts& fronts, const Flags& flags) {
  fronts.GrpcCreate("described");
  fronts.AwaitFirstTrial("described");
  std::vector<int64_t> grpc, rest;
  for (int i = 0; i < flags.describes; ++i) {
    SteadyClock::time_point start = SteadyClock::now();
    fronts.GrpcGet("described");
    grpc.push_back(NanosSince(start));
    start = SteadyClock::now();
    fronts.RestGet("described");
    rest.push_back(NanosSince(start));
  }
  PrintRow("describe gRPC GetJob", grpc);
  PrintRow("describe REST GET", rest);
}

void MeasureCreate(Fronts& fronts, const Flags& flags) {
  std::vector<int64_t> grpc_call, rest_call, grpc_trial, rest_trial;
  for (int i = 0; i < flags.jobs; ++i) {
    for (bool rest : {false, true}) {
      const std::string id = (rest ? "rest_" : "grpc_") + std::to_string(i);
      const SteadyClock::time_point start = SteadyClock::now();
      if (rest) {
        fronts.RestCreate(id);
      } else {
        fronts.GrpcCreate(id);
      }
      (rest ? rest_call : grpc_call).push_back(NanosSince(start));
      fronts.AwaitFirstTrial(id);
      (rest ? rest_trial : grpc_trial).push_back(NanosSince(start));
    }
  }
  PrintRow("create gRPC SubmitJob", grpc_call);
  PrintRow("create REST POST", rest_call);
  PrintRow("create->trial gRPC", grpc_trial);
  PrintRow("create->trial REST", rest_trial);
}

int Main(int argc, char** argv) {
  const Flags flags = ParseFlags(argc, argv);
  char dir_template[] = "/tmp/hptune-rest-latency-XXXXXX";
  if (mkdtemp(dir_template) == nullptr)
    bench::Die(kProgram, "cannot create a temp dir");
  const std::filesystem::path dir = dir_template;
  Env& env = DefaultEnv();
  server::ServerOptions options;
  options.env = &env;
  options.listen_address = "127.0.0.1:0";
  options.db_path = (dir / "hptune.db").string();
  options.state_dir = dir / "runs";
  options.token = kToken;
  // The benchmark's jobs run as whoever runs it (root on a CI machine).
  options.allow_root_trials = true;
  auto server = server::HptuneServer::Start(std::move(options));
  if (!server.ok())
    bench::Die(kProgram, "starting the server: " + server.status().ToString());
  auto rest =
      rest::RestGateway::Start({.channel = (*server)->InProcessChannel(),
                                .now = [&env] { return env.Now(); }});
  if (!rest.ok())
    bench::Die(kProgram, "starting the gateway: " + rest.status().ToString());
  Fronts fronts((*server)->port(), (*rest)->port());
  MeasureDescribe(fronts, flags);
  MeasureCreate(fronts, flags);
  std::printf("load average %s\n", bench::LoadAverage().c_str());
  (*rest)->Stop();
  (*server)->Drain(std::chrono::seconds(5));
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace hptune

int main(int argc, char** argv) { return hptune::Main(argc, argv); }

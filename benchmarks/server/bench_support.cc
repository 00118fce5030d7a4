#include "benchmarks/server/bench_support.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "hptune/env/env.h"

namespace hptune::bench {

void Die(std::string_view program, const std::string& message) {
  std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(program.size()),
               program.data(), message.c_str());
  std::exit(1);
}

void DieUnlessOk(std::string_view program, const grpc::Status& status,
                 std::string_view what) {
  if (status.ok()) return;
  Die(program, std::string(what) + ": " + std::to_string(status.error_code()) +
                   " " + status.error_message());
}

std::vector<std::unique_ptr<server::HptuneServer>> StartServers(
    std::string_view program, const std::string& db,
    const std::filesystem::path& dir, std::string_view token, int count) {
  std::vector<std::unique_ptr<server::HptuneServer>> servers;
  for (int n = 0; n < count; ++n) {
    server::ServerOptions options;
    options.env = &DefaultEnv();
    options.listen_address = "127.0.0.1:0";
    options.db_path = db;
    options.state_dir = dir / "runs";
    options.token = std::string(token);
    absl::StatusOr<std::unique_ptr<server::HptuneServer>> server =
        server::HptuneServer::Start(std::move(options));
    if (!server.ok()) {
      Die(program, "starting server " + std::to_string(n + 1) + ": " +
                       server.status().ToString());
    }
    servers.push_back(*std::move(server));
  }
  return servers;
}

std::unique_ptr<v1::StudyService::Stub> Connect(int port, int channel_id) {
  grpc::ChannelArguments args;
  args.SetInt("hptune.benchmark.channel_id", channel_id);
  return v1::StudyService::NewStub(
      grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(port),
                                grpc::InsecureChannelCredentials(), args));
}

void Authorize(grpc::ClientContext& context, std::string_view token) {
  context.AddMetadata("authorization", "Bearer " + std::string(token));
}

double Percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t index = std::min(
      sorted.size() - 1,
      static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5));
  return static_cast<double>(sorted[index]) / 1e6;
}

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) +
           1e-6 * static_cast<double>(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::string LoadAverage() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) return "unknown";
  char text[64];
  std::snprintf(text, sizeof(text), "%.2f %.2f %.2f", load[0], load[1],
                load[2]);
  return text;
}

}  // namespace hptune::bench

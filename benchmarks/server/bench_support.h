// What the gRPC server benchmarks (throughput_benchmark,
// many_studies_benchmark) share: their in-process servers on 127.0.0.1 (one,
// or several on one PostgreSQL database), a client of them, the caller's
// token, a fatal error, latency percentiles and the process's CPU time and
// the machine's load, which they print beside their figures. Thread-safe:
// pure functions and gRPC stubs; StartServers is called once, up front.
#ifndef HPTUNE_BENCHMARKS_SERVER_BENCH_SUPPORT_H_
#define HPTUNE_BENCHMARKS_SERVER_BENCH_SUPPORT_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/v1/study_service.grpc.pb.h"
#include "src/server/server.h"

namespace hptune::bench {

// Prints "<program>: <message>" to stderr and exits 1.
[[noreturn]] void Die(std::string_view program, const std::string& message);
// Dies naming `what` and the status when `status` is not OK.
void DieUnlessOk(std::string_view program, const grpc::Status& status,
                 std::string_view what);

// `count` servers on 127.0.0.1 (ephemeral ports) sharing the store `db` (a
// path or URL; several need a postgresql:// one, docs/operations.md
// "Several servers") and the state directory `dir`/runs, each taking
// `token`. Dies naming the server that did not start.
std::vector<std::unique_ptr<server::HptuneServer>> StartServers(
    std::string_view program, const std::string& db,
    const std::filesystem::path& dir, std::string_view token, int count);

// A StudyService client of 127.0.0.1:`port` on a TCP connection of its own
// (each `channel_id` its own subchannel), as separate client processes have.
std::unique_ptr<v1::StudyService::Stub> Connect(int port, int channel_id);
// Adds the bearer `token` every call to `hptune serve` carries.
void Authorize(grpc::ClientContext& context, std::string_view token);

// The `q` quantile of `sorted` nanoseconds, in milliseconds (nearest rank).
double Percentile(const std::vector<int64_t>& sorted, double q);
// User plus system CPU seconds of this process so far.
double ProcessCpuSeconds();
// The 1, 5 and 15 minute load averages, or "unknown".
std::string LoadAverage();

}  // namespace hptune::bench

#endif  // HPTUNE_BENCHMARKS_SERVER_BENCH_SUPPORT_H_

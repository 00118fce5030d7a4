// Copying trainer logs from the server (JobService.StreamTrialLogs) to the
// terminal, for `hptune jobs stream-logs` and `hptune jobs submit
// --stream-logs`: one replica's log of one trial, or every trial's in turn,
// riding out a server restart through a client::Reconnector.
//
// Used only by src/cli/commands/jobs. Free functions; thread-compatible.
#ifndef HPTUNE_CLI_COMMANDS_JOBS_LOGS_H_
#define HPTUNE_CLI_COMMANDS_JOBS_LOGS_H_

#include <cstdint>
#include <ostream>
#include <string>

#include "grpcpp/support/status.h"
#include "src/cli/client/reconnect.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {

// Copies one replica's log of one trial to `out` from `offset`, which
// follows what was copied, so that a broken stream can be made again.
grpc::Status StreamLog(const Invocation& c, const std::string& job_id,
                       int64_t trial, const std::string& replica, bool follow,
                       int64_t& offset, client::Reconnector& reconnector,
                       std::ostream& out);

// Every trial's log in trial order; with `follow`, also the trials still to
// come, until the job has ended. Returns the job's last state.
grpc::Status StreamJobLogs(const Invocation& c, const std::string& job_id,
                           const std::string& replica, bool follow,
                           client::Reconnector& reconnector, std::ostream& out,
                           v1::Job::State& final_state);

}  // namespace hptune::cli::jobs

#endif  // HPTUNE_CLI_COMMANDS_JOBS_LOGS_H_

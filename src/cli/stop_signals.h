// SIGTERM and SIGINT as a request to stop, for the commands that serve until
// then (`hptune serve`, `hptune dashboard`): blocked in every thread and
// taken by sigwait, so no handler runs inside gRPC's or httplib's threads.
// Used by those commands only.
//
// Thread-safety: BlockStopSignals must be called before the process starts
// any thread, which then inherits the mask; WaitForStopSignal from one
// thread.
#ifndef HPTUNE_SRC_CLI_STOP_SIGNALS_H_
#define HPTUNE_SRC_CLI_STOP_SIGNALS_H_

#include <signal.h>

namespace hptune::cli {

// Blocks SIGTERM and SIGINT in this thread; returns the set.
sigset_t BlockStopSignals();

// Waits for one of `signals` (blocked) and returns it.
int WaitForStopSignal(const sigset_t& signals);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_STOP_SIGNALS_H_

#include "src/cli/commands/dashboard_command.h"

#include <unistd.h>

#include <optional>
#include <variant>

#include "absl/strings/str_cat.h"
#include "hptune/store/open_store.h"
#include "src/cli/flag_table.h"
#include "src/cli/flags.h"
#include "src/cli/runtime.h"
#include "src/cli/serving_flags.h"
#include "src/cli/stop_signals.h"
#include "src/dashboard/dashboard_server.h"
#include "src/dashboard/http_address.h"

namespace hptune::cli {
namespace {

constexpr char kUsageHead[] =
    "usage: hptune dashboard [--db FILE] [flags]\n"
    "\n"
    "Serves the web dashboard of a study database, read-only: studies,\n"
    "trials, plots, parameter importance and replica logs, updated live\n"
    "while `hptune run` writes the file. (`hptune serve` serves the same\n"
    "dashboard beside its API, with cancelling.) Every page needs this\n"
    "user's token, as `hptune serve` does; on a terminal, the line printed\n"
    "at start holds a link that logs a browser in. See docs/dashboard.md.\n"
    "\n";
constexpr char kUsageTail[] =
    "\n"
    "Exit codes: 0 stopped by SIGTERM or Ctrl-C, 1 failed (address in use),\n"
    "2 invalid flags or files, 3 no such database, 64 bad usage.\n";

// The flags' part comes from the flag table (flag_table.h).
std::string Usage() {
  return absl::StrCat(kUsageHead, FlagUsage(kDashboardCommand), kUsageTail);
}

int Fail(const absl::Status& status, int code, std::ostream& err) {
  err << "hptune dashboard: " << status.message() << "\n";
  return code;
}

}  // namespace

int RunDashboardCommand(const std::vector<std::string>& args, std::ostream& out,
                        std::ostream& err) {
  auto parsed = ParseFlags(args, kDashboardCommand);
  if (!parsed.ok()) {
    err << "hptune dashboard: " << parsed.status().message() << "\n" << Usage();
    return kExitUsage;
  }
  if (parsed->Has("help")) {
    out << Usage();
    return kExitOk;
  }
  if (!parsed->positional.empty() || !parsed->after_dashes.empty()) {
    err << "hptune dashboard: takes no arguments\n" << Usage();
    return kExitUsage;
  }
  // The database and the state directory are checked by serve's rule: the
  // database names what the dashboard shows and deletes, the state
  // directory the logs it reads.
  RuntimeOptions runtime_options = RuntimeOptionsFromFlags(
      StoreUse::kShow, *parsed, ProcessEnv(), "state-dir");
  runtime_options.block_stop_signals = true;
  if (std::optional<RuntimeError> e = CheckRuntimePaths(runtime_options)) {
    return Fail(e->status, ExitCodeOf(*e), err);
  }
  dashboard::DashboardOptions options;
  options.address =
      parsed->Get("http").value_or(dashboard::kDefaultHttpAddress);
  options.state_dir = runtime_options.state_dir;
  options.env = runtime_options.env;
  ServingCredentials credentials;
  for (auto read : {ReadTlsFlags, ReadTokenFlag}) {
    if (int code = read(*options.env, *parsed, "dashboard", credentials, err);
        code != kExitOk) {
      return code;
    }
  }
  options.tls_cert = credentials.tls_cert_pem;
  options.tls_key = credentials.tls_key_pem;
  options.token = credentials.token;
  const std::string token = credentials.token;

  std::variant<Runtime, RuntimeError> made = MakeRuntime(runtime_options);
  if (const RuntimeError* e = std::get_if<RuntimeError>(&made)) {
    return Fail(e->status, ExitCodeOf(*e), err);
  }
  const Runtime& runtime = std::get<Runtime>(made);
  auto server =
      dashboard::DashboardServer::Start(*runtime.store, std::move(options));
  if (!server.ok()) {
    return Fail(
        server.status(),
        absl::IsInvalidArgument(server.status()) ? kExitInvalid : kExitFailure,
        err);
  }
  // The link holding the token only on a terminal: never into a log.
  out << "hptune dashboard: " << (*server)->url() << " (db "
      << store::PrintableStoreUrl(runtime.db)
      << ", read-only; log in with the token"
      << (isatty(STDOUT_FILENO)
              ? ", or open " + (*server)->url() + "login?token=" + token
              : std::string())
      << ")" << std::endl;
  WaitForStopSignal(runtime.stop_signals);
  (*server)->Stop();
  out << "hptune dashboard: stopped" << std::endl;
  return kExitOk;
}

}  // namespace hptune::cli

#include "src/cli/commands/store_command.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store_copy.h"
#include "src/cli/client/rpc_errors.h"
#include "src/cli/flags.h"

namespace hptune::cli {
namespace {

constexpr char kUsage[] =
    "usage: hptune store migrate --from URL --to URL\n"
    "\n"
    "Copies every study, trial, measurement, designer state, job, note and\n"
    "event of one store into another, empty one, exactly: the same ids,\n"
    "numbers, times and event ids; new rows continue after them. A URL is\n"
    "what --db takes: sqlite:PATH (or a plain PATH) or postgresql://...\n"
    "(its password from $PGPASSWORD, ~/.pgpass or passfile=PATH).\n"
    "\n"
    "Refused: a target that holds anything, a store a running `hptune\n"
    "serve` or `hptune run` uses, a SQLite source that does not exist.\n"
    "Each store is opened as --db opens it, so an older schema is migrated\n"
    "first. The target is written in one transaction: on a failure it stays\n"
    "empty. See docs/operations.md, \"Moving a store\".\n"
    "\n"
    "  --from URL   the store to copy (read in one snapshot; left as it is)\n"
    "  --to URL     the store to copy into: a new file, or an empty database\n"
    "\n"
    "Example:\n"
    "  hptune store migrate --from sqlite:jobs.db \\\n"
    "      --to "
    "'postgresql://hptune@db.host/hptune?passfile=/etc/hptune/pgpass'\n"
    "\n"
    "Exit codes: 0 copied, 1 failed (a target not empty), 2 a bad URL,\n"
    "3 no such source, 64 bad usage, 69 a runner holds a store or a\n"
    "database server is unreachable.\n";

int MigrateFailed(const absl::Status& status, std::ostream& err) {
  err << "hptune store migrate: " << status.message() << "\n";
  return client::ExitCodeForStatus(status);
}

int StoreUsageError(const std::string& message, std::ostream& err) {
  err << "hptune store: " << message << "\n" << kUsage;
  return kExitUsage;
}

int Migrate(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  absl::StatusOr<ParsedArgs> parsed = ParseArgs(args, {"from", "to"}, {});
  if (!parsed.ok()) {
    return StoreUsageError(std::string(parsed.status().message()), err);
  }
  if (!parsed->positional.empty() || !parsed->after_dashes.empty()) {
    return StoreUsageError("migrate takes no arguments", err);
  }
  const std::optional<std::string> from = parsed->Get("from");
  const std::optional<std::string> to = parsed->Get("to");
  if (!from || !to)
    return StoreUsageError("migrate needs --from and --to", err);

  Env& env = DefaultEnv();
  absl::StatusOr<std::vector<store::CopiedTable>> copied = store::CopyStore(
      *from, *to, env.clock(), store::SqliteStoreOptions{.env = &env});
  if (!copied.ok()) return MigrateFailed(copied.status(), err);
  out << "copied " << store::PrintableStoreUrl(*from) << " to "
      << store::PrintableStoreUrl(*to) << "\n";
  for (const store::CopiedTable& table : *copied) {
    char line[80];
    std::snprintf(line, sizeof(line), "  %-16s %lld\n", table.table.c_str(),
                  static_cast<long long>(table.rows));
    out << line;
  }
  return kExitOk;
}

}  // namespace

int RunStoreCommand(const std::vector<std::string>& args, std::ostream& out,
                    std::ostream& err) {
  if (args.empty()) return StoreUsageError("name a subcommand: migrate", err);
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h" || arg == "help") {
      out << kUsage;
      return kExitOk;
    }
  }
  if (args[0] != "migrate") {
    return StoreUsageError(absl::StrCat("unknown subcommand \"", args[0], "\""),
                           err);
  }
  return Migrate({args.begin() + 1, args.end()}, out, err);
}

}  // namespace hptune::cli

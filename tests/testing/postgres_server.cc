#include "tests/testing/postgres_server.h"

#include <glob.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/testing/run_process.h"

namespace hptune::testing {
namespace {

// The user initdb and the server run as when the tests run as root.
constexpr uid_t kServerUid = 65534;  // nobody
constexpr gid_t kServerGid = 65534;
constexpr char kDatabaseUser[] = "hptune";

// The bin directory of the newest PostgreSQL installed, or "".
std::string FindBinDir() {
  glob_t found{};
  std::vector<std::string> dirs;
  if (glob("/usr/lib/postgresql/*/bin/initdb", 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      dirs.push_back(
          std::filesystem::path(found.gl_pathv[i]).parent_path().string());
    }
  }
  globfree(&found);
  if (dirs.empty()) return "";
  std::sort(dirs.begin(), dirs.end());
  return dirs.back();
}

// `argv` run as the server's user when this process is root.
std::vector<std::string> AsServerUser(std::vector<std::string> argv) {
  if (geteuid() != 0) return argv;
  std::vector<std::string> wrapped = {
      "/usr/bin/setpriv", absl::StrCat("--reuid=", kServerUid),
      absl::StrCat("--regid=", kServerGid), "--clear-groups", "--"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

absl::Status Run(const std::vector<std::string>& argv,
                 const std::string& what) {
  const ProcessResult result =
      RunProcessWithEnv(AsServerUser(argv), {"LC_ALL=C"});
  if (result.exit_code == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(what, " failed (exit ",
                                             result.exit_code,
                                             "): ", result.err.substr(0, 500)));
}

}  // namespace

absl::StatusOr<PostgresServer*> PostgresServer::Shared() {
  static PostgresServer* const server = [] {
    auto* started = new PostgresServer();
    absl::Status status = started->Start();
    if (!status.ok()) {
      started->bin_ = std::string(status.message());  // Kept as the reason.
      return started;
    }
    started->started_ = true;
    // Stopped at exit: a static's destructor would run after gtest's.
    std::atexit([] { delete Shared().value_or(nullptr); });
    return started;
  }();
  if (!server->started_) return absl::UnavailableError(server->bin_);
  return server;
}

absl::Status PostgresServer::Start() {
  bin_ = FindBinDir();
  if (bin_.empty()) {
    return absl::UnavailableError(
        "no PostgreSQL server installed (no /usr/lib/postgresql/*/bin/initdb)");
  }
  char pattern[] = "/tmp/hptune-pg-XXXXXX";  // Short: a socket path is.
  if (mkdtemp(pattern) == nullptr) {
    return absl::UnavailableError("cannot make a temporary directory");
  }
  dir_ = pattern;
  if (geteuid() == 0 && chown(dir_.c_str(), kServerUid, kServerGid) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot chown ", dir_));
  }
  const std::string data = dir_ + "/data";
  absl::Status status =
      Run({bin_ + "/initdb", "-D", data, "-U", kDatabaseUser, "-A", "trust",
           "-E", "UTF8", "--locale=C", "--no-sync"},
          "initdb");
  if (!status.ok()) return status;
  return Run({bin_ + "/pg_ctl", "start", "-w", "-D", data, "-l",
              dir_ + "/server.log", "-o",
              absl::StrCat("-c listen_addresses='' -k ", dir_,
                           " -c fsync=off -c full_page_writes=off")},
             "pg_ctl start");
}

PostgresServer::~PostgresServer() {
  if (started_) {
    (void)Run({bin_ + "/pg_ctl", "stop", "-w", "-m", "immediate", "-D",
               dir_ + "/data"},
              "pg_ctl stop");
  }
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

std::string PostgresServer::Url(const std::string& name) const {
  return absl::StrCat("postgresql:///", name, "?host=", dir_,
                      "&user=", kDatabaseUser);
}

absl::StatusOr<std::string> PostgresServer::NewDatabase() {
  std::string name;
  {
    MutexLock lock(&mu_);
    name = absl::StrCat("test_", ++databases_);
  }
  const std::string admin = absl::StrCat("postgresql:///postgres?host=", dir_,
                                         "&user=", kDatabaseUser);
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdb(admin.c_str()),
                                                  PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return absl::UnavailableError(PQerrorMessage(conn.get()));
  }
  std::unique_ptr<PGresult, void (*)(PGresult*)> result(
      PQexec(conn.get(), absl::StrCat("CREATE DATABASE ", name, " STRATEGY FILE_COPY").c_str()),
      PQclear);
  if (PQresultStatus(result.get()) != PGRES_COMMAND_OK) {
    return absl::InternalError(PQresultErrorMessage(result.get()));
  }
  return Url(name);
}

}  // namespace hptune::testing

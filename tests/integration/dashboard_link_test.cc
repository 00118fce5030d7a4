// The dashboard's log-in link (dashboard.md): `hptune serve` and `hptune
// dashboard` print it, with the token, on a terminal only; their standard
// output sent to a file (a log) gets the address without the token.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

constexpr char kToken[] = "dashboard-link-token-1234";

// `hptune serve` and `hptune dashboard` on free ports, with kToken.
std::vector<std::vector<std::string>> Commands(const std::string& dir) {
  const std::string token_file = dir + "/token";
  std::ofstream(token_file) << kToken << "\n";
  std::filesystem::permissions(
      token_file,
      std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::string db = dir + "/hptune.db";
  const std::string hptune = testing::HptuneBinary();
  return {{hptune, "serve", "--db", db, "--state-dir", dir + "/runs", "--gpus",
           "0", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
           "--token-file", token_file, "--allow-root-trials"},
          {hptune, "dashboard", "--db", db, "--http", "127.0.0.1:0",
           "--token-file", token_file}};
}

// The line "hptune <command>: ... log in with the token...)" in `text`, or
// "" before it is complete.
std::string DashboardLine(const std::string& text) {
  const size_t login = text.find("log in with the token");
  if (login == std::string::npos) return "";
  const size_t end = text.find(")\n", login);
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', login);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end + 1 - (begin == std::string::npos ? 0 : begin + 1));
}

// Whether `pid`, a child, has exited (it is left to be collected).
bool Exited(pid_t pid) {
  siginfo_t info{};
  return waitid(P_PID, static_cast<id_t>(pid), &info,
                WEXITED | WNOHANG | WNOWAIT) == 0 &&
         info.si_pid == pid;
}

// Starts `argv` with its standard output on a new pseudo-terminal and reads
// that terminal until the dashboard line is complete, the process exits or
// 60 seconds pass: what it printed. Stops the process with SIGTERM.
std::string OutputOnATerminal(const std::vector<std::string>& argv,
                              const std::string& err_path) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return "";
  // This process holds the terminal open too, so reading it never fails
  // before the child has it.
  const int slave = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  const int err =
      open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  std::vector<char*> args;  // Made before fork: the child only calls exec.
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const pid_t pid = slave < 0 || err < 0 ? -1 : fork();
  if (pid == 0) {
    dup2(slave, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execv(args[0], args.data());
    _exit(127);
  }
  std::string text;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool exited = pid < 0;
  while (!exited && DashboardLine(text).empty() &&
         std::chrono::steady_clock::now() < deadline) {
    exited = Exited(pid);  // What it wrote before is read below.
    pollfd fd{.fd = master, .events = POLLIN, .revents = 0};
    while (poll(&fd, 1, exited ? 0 : 100) > 0) {
      char buffer[4096];
      const ssize_t n = read(master, buffer, sizeof(buffer));
      if (n <= 0) break;
      // The terminal writes "\r\n" for "\n".
      for (ssize_t i = 0; i < n; ++i) {
        if (buffer[i] != '\r') text.push_back(buffer[i]);
      }
    }
  }
  if (pid > 0) {
    kill(pid, SIGTERM);
    testing::WaitForExit(pid, std::chrono::seconds(30));
  }
  for (int fd : {master, slave, err}) {
    if (fd >= 0) close(fd);
  }
  return text;
}

// The same with standard output to the file `out_path`.
std::string OutputToAFile(const std::vector<std::string>& argv,
                          const std::string& out_path,
                          const std::string& err_path) {
  const pid_t pid = testing::StartProcess(argv, out_path, err_path);
  testing::StopOnExit stop(pid);
  testing::PollUntil(
      [&] {
        return !DashboardLine(testing::ReadFileOrEmpty(out_path)).empty();
      },
      std::chrono::seconds(60));
  kill(pid, SIGTERM);
  testing::WaitForExit(pid, std::chrono::seconds(30));
  return testing::ReadFileOrEmpty(out_path);
}

TEST(DashboardLinkTest, TheLinkWithTheTokenGoesToATerminalNeverToALog) {
  const std::string dir = testing::MakeTempDir();
  for (const std::vector<std::string>& argv : Commands(dir)) {
    const std::string name = argv[1];
    const std::string err = dir + "/" + name + ".err";
    const std::string terminal = OutputOnATerminal(argv, err);
    const std::string on_terminal = DashboardLine(terminal);
    ASSERT_FALSE(on_terminal.empty())
        << name << " printed on its terminal:\n"
        << terminal << testing::ReadFileOrEmpty(err);
    EXPECT_NE(on_terminal.find("login?token=" + std::string(kToken)),
              std::string::npos)
        << on_terminal;

    const std::string log = dir + "/" + name + ".log";
    const std::string logged = OutputToAFile(argv, log, err);
    const std::string in_log = DashboardLine(logged);
    ASSERT_FALSE(in_log.empty()) << name << " logged:\n"
                                 << logged << testing::ReadFileOrEmpty(err);
    EXPECT_NE(in_log.find("http://127.0.0.1:"), std::string::npos) << in_log;
    EXPECT_EQ(logged.find(kToken), std::string::npos) << logged;
    EXPECT_EQ(logged.find("login?token="), std::string::npos) << logged;
    EXPECT_EQ(testing::ReadFileOrEmpty(err).find(kToken), std::string::npos);
  }
}

}  // namespace
}  // namespace hptune

#include "tests/testing/run_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace hptune::testing {
namespace {

// posix_spawn's argv: `argv`'s strings, then a null.
std::vector<char*> ArgvPointers(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}

// This process's environment with `overrides` put over it ("K=V" sets K,
// "K" alone removes it), as posix_spawn's envp strings.
std::vector<std::string> EnvironmentWith(
    const std::vector<std::string>& overrides) {
  auto name_of = [](const std::string& entry) {
    return entry.substr(0, entry.find('='));
  };
  std::vector<std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    bool replaced = false;
    for (const std::string& o : overrides) {
      replaced = replaced || name_of(o) == name_of(text);
    }
    if (!replaced) env.push_back(text);
  }
  for (const std::string& o : overrides) {
    if (o.find('=') != std::string::npos) env.push_back(o);
  }
  return env;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv) {
  return RunProcessWithEnv(argv, {});
}

ProcessResult RunProcessWithEnv(const std::vector<std::string>& argv,
                                const std::vector<std::string>& env) {
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  // Descriptors the test inherited (a build's flock(1) lock) stay out of
  // the child, which may outlive the test.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<char*> args = ArgvPointers(argv);
  const std::vector<std::string> env_strings = EnvironmentWith(env);
  std::vector<char*> envp = ArgvPointers(env_strings);
  pid_t pid;
  int rc =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    throw std::runtime_error("cannot run " + argv[0] + ": " + strerror(rc));
  }
  ProcessResult result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, n);
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

pid_t StartProcess(const std::vector<std::string>& argv,
                   const std::string& out_path, const std::string& err_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  std::vector<char*> args = ArgvPointers(argv);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    throw std::runtime_error("cannot run " + argv[0] + ": " + strerror(rc));
  }
  return pid;
}

std::optional<int> WaitForExit(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

StopOnExit::~StopOnExit() {
  if (pid_ <= 0 || waitpid(pid_, nullptr, WNOHANG) != 0) return;
  kill(pid_, SIGTERM);
  WaitForExit(pid_, grace_);
}

std::vector<std::string> ProcessesMentioning(const std::string& text) {
  std::vector<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    // A process may end while it is read (ESRCH): operator<< on the buffer
    // turns that into an empty read where istreambuf_iterator would throw.
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::stringstream contents;
    contents << in.rdbuf();
    std::string cmdline = contents.str();
    // A zombie's command line is empty: it has ended.
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(text) != std::string::npos) {
      found.push_back(pid + ": " + cmdline);
    }
  }
  return found;
}

std::vector<pid_t> ZombieChildrenOf(pid_t parent) {
  std::vector<pid_t> zombies;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] < '1' || name[0] > '9') continue;
    std::ifstream in(entry.path() / "stat");
    std::stringstream contents;
    contents << in.rdbuf();
    const std::string stat = contents.str();
    // The command name in parentheses may hold anything: read after it.
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) == 2 &&
        state == 'Z' && ppid == parent) {
      zombies.push_back(std::stoi(name));
    }
  }
  return zombies;
}

KillProcessesMentioning::~KillProcessesMentioning() {
  for (const std::string& line : ProcessesMentioning(text_)) {
    kill(std::stoi(line), SIGKILL);
  }
}

std::string MakeTempDir() {
  const char* base = getenv("TEST_TMPDIR");
  std::string pattern = std::string(base ? base : "/tmp") + "/hptune_XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed");
  }
  return pattern;
}

}  // namespace hptune::testing

#include "src/launch/capture_output.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "src/launch/child_processes.h"

extern char** environ;

namespace hptune::launch {
namespace {

void CloseIfOpen(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

absl::StatusOr<CapturedOutput> RunCapturingOutput(
    const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command line");
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    int error = errno;
    for (int& fd : out_pipe) CloseIfOpen(fd);
    for (int& fd : err_pipe) CloseIfOpen(fd);
    return absl::InternalError(
        absl::StrCat("cannot run \"", argv[0], "\": pipe: ", strerror(error)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc;
  {
    ChildStart start;
    rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    if (rc == 0) start.Own(pid);
  }
  posix_spawn_file_actions_destroy(&actions);
  CloseIfOpen(out_pipe[1]);
  CloseIfOpen(err_pipe[1]);
  if (rc != 0) {
    CloseIfOpen(out_pipe[0]);
    CloseIfOpen(err_pipe[0]);
    std::string message =
        absl::StrCat("cannot run \"", argv[0], "\": ", strerror(rc));
    if (rc == ENOENT) return absl::NotFoundError(message);
    return absl::InternalError(message);
  }

  CapturedOutput result;
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buffer[4096];
      ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        CloseIfOpen(fds[i].fd);
        --open_fds;
      }
    }
  }
  for (pollfd& fd : fds) CloseIfOpen(fd.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Disown(pid);
  if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  } else {
    result.exit_code = WEXITSTATUS(status);
  }
  return result;
}

}  // namespace hptune::launch

#include "src/launch/capture_output.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "src/env/scoped_fd.h"
#include "src/launch/child_processes.h"

extern char** environ;

namespace hptune::launch {
namespace {

// Reads the child's stdout and stderr pipes (their write ends closed here)
// into result.out and result.err, until each ends or fails.
void ReadToTheEnd(Env& env, ScopedFd& out_pipe, ScopedFd& err_pipe,
                  CapturedOutput& result) {
  ScopedFd* pipes[2] = {&out_pipe, &err_pipe};
  std::string* sinks[2] = {&result.out, &result.err};
  while (out_pipe.valid() || err_pipe.valid()) {
    std::vector<int> open;
    for (ScopedFd* pipe : pipes) {
      if (pipe->valid()) open.push_back(pipe->get());
    }
    absl::StatusOr<std::vector<int>> ready =
        env.PollReadable(open, std::nullopt);
    if (!ready.ok()) return;
    for (int i = 0; i < 2; ++i) {
      if (!pipes[i]->valid() ||
          std::ranges::find(*ready, pipes[i]->get()) == ready->end()) {
        continue;
      }
      char buffer[4096];
      absl::StatusOr<size_t> n = env.ReadSome(pipes[i]->get(), buffer);
      if (n.ok() && *n > 0) {
        sinks[i]->append(buffer, *n);
      } else {
        pipes[i]->Reset();  // Its end, or an error: nothing more comes.
      }
    }
  }
}

}  // namespace

absl::StatusOr<CapturedOutput> RunCapturingOutput(
    Env& env, const std::vector<std::string>& argv) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command line");
  int out_fds[2] = {-1, -1};
  int err_fds[2] = {-1, -1};
  const bool piped =
      pipe2(out_fds, O_CLOEXEC) == 0 && pipe2(err_fds, O_CLOEXEC) == 0;
  const int pipe_error = errno;
  ScopedFd out_read(out_fds[0]), out_write(out_fds[1]);
  ScopedFd err_read(err_fds[0]), err_write(err_fds[1]);
  if (!piped) {
    return absl::InternalError(absl::StrCat(
        "cannot run \"", argv[0], "\": pipe: ", strerror(pipe_error)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
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
  out_write.Reset();
  err_write.Reset();
  if (rc != 0) {
    std::string message =
        absl::StrCat("cannot run \"", argv[0], "\": ", strerror(rc));
    if (rc == ENOENT) return absl::NotFoundError(message);
    return absl::InternalError(message);
  }

  CapturedOutput result;
  ReadToTheEnd(env, out_read, err_read, result);
  // Closed before the wait: a child still writing ends on SIGPIPE.
  out_read.Reset();
  err_read.Reset();
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

#include "src/launch/local/spawn_in_cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace hptune::launch {
namespace {

// struct clone_args of <linux/sched.h> (CLONE_ARGS_SIZE_VER2), spelled out
// here because that header clashes with glibc's <sched.h>.
struct CloneArgs {
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
  uint64_t set_tid;
  uint64_t set_tid_size;
  uint64_t cgroup;
};
static_assert(sizeof(CloneArgs) == 88);

constexpr uint64_t kCloneIntoCgroup = 0x200000000ULL;

// Reports `error` to the parent through `error_fd` and ends the child.
[[noreturn]] void FailChild(int error_fd, int error) {
  while (write(error_fd, &error, sizeof(error)) < 0 && errno == EINTR) {
  }
  _exit(127);
}

// The child's side, between clone3 and execve: async-signal-safe calls only,
// since other threads' locks (malloc's among them) were copied as they were.
[[noreturn]] void RunChild(const ChildExec& exec, int error_fd) {
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  // A signal ignored here (SIGPIPE under a gRPC server) would stay ignored
  // across execve. SIGKILL, SIGSTOP and glibc's own signals refuse, harmlessly.
  for (int signal = 1; signal < NSIG; ++signal) {
    sigaction(signal, &default_action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setpgid(0, 0) != 0) FailChild(error_fd, errno);
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0) FailChild(error_fd, errno);
  if (dup2(null_fd, 0) < 0 || dup2(exec.log_fd, 1) < 0 ||
      dup2(exec.log_fd, 2) < 0) {
    FailChild(error_fd, errno);
  }
  if (exec.working_dir != nullptr && chdir(exec.working_dir) != 0) {
    FailChild(error_fd, errno);
  }
  // Every other descriptor closes; error_fd (close-on-exec) stays open until
  // execve succeeds. close_range is Linux 5.9+, older than cgroup.kill.
  if (error_fd > 3) syscall(SYS_close_range, 3, error_fd - 1, 0);
  syscall(SYS_close_range, error_fd + 1, ~0U, 0);
  execve(exec.program, exec.argv, exec.envp);
  FailChild(error_fd, errno);
}

}  // namespace

pid_t CloneIntoCgroup(int cgroup_fd) {
  // No CLONE_VM and no stack: fork semantics, the child on a copy of this
  // thread's stack.
  CloneArgs args{};
  args.flags = kCloneIntoCgroup;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd);
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof(args)));
}

pid_t SpawnInCgroup(const ChildExec& exec, int cgroup_fd) {
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) return -1;
  const pid_t pid = CloneIntoCgroup(cgroup_fd);
  if (pid == 0) {
    close(error_pipe[0]);
    RunChild(exec, error_pipe[1]);
  }
  const int clone_error = errno;
  close(error_pipe[1]);
  if (pid < 0) {
    close(error_pipe[0]);
    errno = clone_error;
    return -1;
  }
  // End of file: execve closed the pipe, the program runs. Else its errno.
  int child_error = 0;
  ssize_t n;
  do {
    n = read(error_pipe[0], &child_error, sizeof(child_error));
  } while (n < 0 && errno == EINTR);
  close(error_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(child_error))) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    errno = child_error;
    return -1;
  }
  return pid;
}

}  // namespace hptune::launch

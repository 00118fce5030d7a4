#include "src/launch/local/spawn_in_cgroup.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
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

// What the child needs, and where it leaves execve's error. With CLONE_VM the
// child writes `error` in the parent's memory; the parent reads it once it
// runs again, which CLONE_VFORK holds off until the child has exec'd or
// exited.
struct ChildContext {
  const ChildExec* exec;
  int error = 0;
  int error_fd = -1;  // Without CLONE_VM: where the error goes instead.
};

// The child's code is not instrumented: under CLONE_VM, AddressSanitizer's
// bookkeeping for its frames would land in the parent's memory.
#define HPTUNE_CHILD_CODE __attribute__((no_sanitize("address")))

// Leaves `error` for the parent and ends the child.
[[noreturn]] HPTUNE_CHILD_CODE void FailChild(ChildContext* context,
                                              int error) {
  context->error = error;
  if (context->error_fd >= 0) {
    while (write(context->error_fd, &error, sizeof(error)) < 0 &&
           errno == EINTR) {
    }
  }
  _exit(127);
}

// The child's side, between clone3 and execve: async-signal-safe calls only.
// Under CLONE_VM it also shares this process's memory, so it writes nothing
// but `context->error` (errno included: it is the calling thread's, which
// waits).
[[noreturn]] HPTUNE_CHILD_CODE void RunChild(void* opaque) {
  ChildContext* context = static_cast<ChildContext*>(opaque);
  const ChildExec& exec = *context->exec;
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  // A signal ignored here (SIGPIPE under a gRPC server) would stay ignored
  // across execve; a handler of this process must not run in the child.
  // SIGKILL, SIGSTOP and glibc's own signals refuse, harmlessly.
  for (int signal = 1; signal < NSIG; ++signal) {
    sigaction(signal, &default_action, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (setpgid(0, 0) != 0) FailChild(context, errno);
  // While still this process's user, who made those cgroups. Best effort:
  // a replica left where this process is still runs.
  for (const int procs : exec.enter_cgroups) {
    const ssize_t written = write(procs, "0", 1);
    (void)written;
  }
  const int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0) FailChild(context, errno);
  if (dup2(null_fd, 0) < 0 || dup2(exec.log_fd, 1) < 0 ||
      dup2(exec.log_fd, 2) < 0) {
    FailChild(context, errno);
  }
  // The groups and gid first: once the uid is not root, they cannot change.
  // Raw calls: glibc's wrappers would change every thread of the parent,
  // whose memory this child shares.
  if (exec.user != nullptr) {
    const UserCredentials& user = *exec.user;
    if (syscall(SYS_setgroups, user.groups.size(), user.groups.data()) != 0 ||
        syscall(SYS_setresgid, user.gid, user.gid, user.gid) != 0 ||
        syscall(SYS_setresuid, user.uid, user.uid, user.uid) != 0) {
      FailChild(context, errno);
    }
  }
  if (exec.working_dir != nullptr && chdir(exec.working_dir) != 0) {
    FailChild(context, errno);
  }
  // Every other descriptor closes but error_fd (close-on-exec), when there
  // is one. close_range is Linux 5.9+, older than cgroup.kill.
  const int keep = context->error_fd;
  if (keep < 0) {
    syscall(SYS_close_range, 3, ~0U, 0);
  } else {
    if (keep > 3) syscall(SYS_close_range, 3, keep - 1, 0);
    syscall(SYS_close_range, keep + 1, ~0U, 0);
  }
  execve(exec.program, exec.argv, exec.envp);
  FailChild(context, errno);
}

// The stack the child runs on while this thread waits (CLONE_VFORK): what
// the child calls needs a few KiB; glibc's posix_spawn gives it 32 KiB.
constexpr size_t kChildStackBytes = 64 * 1024;

#if defined(__x86_64__)
// clone3 with CLONE_VM | CLONE_VFORK, as glibc's posix_spawn does it
// (sysdeps/unix/sysv/linux/x86_64/clone3.S): the child starts on `stack`
// with the parent's registers, so it must not return into C code that
// expects the parent's stack; it calls `child(arg)` at once, which never
// returns. Returns the child's pid, or -errno.
long Clone3OnStack(CloneArgs* args, void (*child)(void*), void* arg) {
  long result = SYS_clone3;
  asm volatile(
      "syscall\n\t"
      "test %%rax, %%rax\n\t"
      "jnz 1f\n\t"
      // The child: no caller frame to unwind to.
      "xor %%ebp, %%ebp\n\t"
      "mov %[arg], %%rdi\n\t"
      "call *%[child]\n\t"
      "hlt\n\t"
      "1:\n\t"
      : "+a"(result)
      : "D"(args), "S"(sizeof(*args)), [child] "r"(child), [arg] "r"(arg)
      : "rcx", "r11", "memory");
  return result;
}
#endif

}  // namespace

pid_t CloneIntoCgroup(int cgroup_fd) {
  // No CLONE_VM and no stack: fork semantics, the child on a copy of this
  // thread's stack.
  CloneArgs args{};
  args.flags = cgroup_fd >= 0 ? kCloneIntoCgroup : 0;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd >= 0 ? cgroup_fd : 0);
  return static_cast<pid_t>(syscall(SYS_clone3, &args, sizeof(args)));
}

pid_t SpawnInCgroup(const ChildExec& exec, int cgroup_fd) {
  ChildContext context{.exec = &exec};
#if defined(__x86_64__)
  // Sharing this process's memory instead of copying its page tables: a
  // fork-style clone of a large server costs about a millisecond a replica.
  // The child runs on this frame's array while this thread waits. No signal
  // may run a handler of this process in the child before it resets them.
  alignas(16) char stack[kChildStackBytes];
  CloneArgs args{};
  args.flags = CLONE_VM | CLONE_VFORK | (cgroup_fd >= 0 ? kCloneIntoCgroup : 0);
  args.exit_signal = SIGCHLD;
  args.stack = reinterpret_cast<uint64_t>(stack);
  args.stack_size = sizeof(stack);
  args.cgroup = static_cast<uint64_t>(cgroup_fd >= 0 ? cgroup_fd : 0);
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  const long result = Clone3OnStack(&args, RunChild, &context);
  pthread_sigmask(SIG_SETMASK, &saved, nullptr);
  if (result < 0) {
    errno = static_cast<int>(-result);
    return -1;
  }
  const pid_t pid = static_cast<pid_t>(result);
#else
  // Elsewhere fork semantics: the child has a copy of `context`, and reports
  // through a close-on-exec pipe instead.
  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0) return -1;
  const pid_t pid = CloneIntoCgroup(cgroup_fd);
  if (pid == 0) {
    close(error_pipe[0]);
    context.error_fd = error_pipe[1];
    RunChild(&context);
  }
  const int clone_error = errno;
  close(error_pipe[1]);
  if (pid < 0) {
    close(error_pipe[0]);
    errno = clone_error;
    return -1;
  }
  // End of file: execve closed the pipe, the program runs. Else its errno.
  ssize_t n;
  do {
    n = read(error_pipe[0], &context.error, sizeof(context.error));
  } while (n < 0 && errno == EINTR);
  close(error_pipe[0]);
  if (n != static_cast<ssize_t>(sizeof(context.error))) context.error = 0;
#endif
  if (context.error != 0) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    errno = context.error;
    return -1;
  }
  return pid;
}

}  // namespace hptune::launch

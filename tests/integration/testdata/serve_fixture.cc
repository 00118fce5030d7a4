#include "tests/integration/testdata/serve_fixture.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include "tests/testing/run_process.h"

namespace hptune::testing {

std::string HptuneBinary() { return HPTUNE_BINARY; }
std::string SourceDir() { return HPTUNE_SOURCE_DIR; }

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

std::string ReadFileOrEmpty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool PollUntil(const std::function<bool()>& done,
               std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServeProcess::ServeProcess(std::string dir, std::vector<std::string> extra)
    : dir_(std::move(dir)), extra_(std::move(extra)) {}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) Stop(SIGKILL);
}

std::string ServeProcess::runs_dir() const {
  auto given = std::find(extra_.begin(), extra_.end(), "--state-dir");
  if (given != extra_.end() && given + 1 != extra_.end()) return *(given + 1);
  return dir_ + "/runs";
}

std::string ServeProcess::address() const {
  return "127.0.0.1:" + std::to_string(port_);
}

std::string ServeProcess::Output() const {
  std::string out;
  for (int i = 1; i <= launches_; ++i) {
    out += ReadFileOrEmpty(dir_ + "/serve-" + std::to_string(i) + ".out");
    out += ReadFileOrEmpty(dir_ + "/serve-" + std::to_string(i) + ".err");
  }
  return out;
}

bool ServeProcess::Start(std::string* error, std::chrono::seconds timeout) {
  ++launches_;
  const std::string out = dir_ + "/serve-" + std::to_string(launches_) + ".out";
  const std::string err = dir_ + "/serve-" + std::to_string(launches_) + ".err";
  std::vector<std::string> argv = {HptuneBinary(), "serve", "--grace-seconds",
                                   "2"};
  auto given = [&](const char* flag) {
    return std::find(extra_.begin(), extra_.end(), flag) != extra_.end();
  };
  if (!given("--state-dir")) {
    argv.push_back("--state-dir");
    argv.push_back(runs_dir());
  }
  if (!given("--db")) {  // A store URL of the test's own, else the file.
    argv.push_back("--db");
    argv.push_back(db());
  }
  // No GPUs of this machine, unless the trials run elsewhere (Slurm).
  if (!given("--backend")) {
    argv.push_back("--gpus");
    argv.push_back("0");
  }
  if (!given("--listen")) {
    argv.push_back("--listen");
    argv.push_back("127.0.0.1:0");
  }
  // The dashboard on any free port: the default, the gRPC port + 1, could
  // be another test's.
  if (!given("--http")) {
    argv.push_back("--http");
    argv.push_back("127.0.0.1:0");
  }
  // A root server (the suite runs as root in CI) refuses root's jobs unless
  // told; a test of several users (--socket, --users-file) says what it
  // wants itself.
  if (!given("--socket") && !given("--users-file")) {
    argv.push_back("--allow-root-trials");
  }
  for (const std::string& a : extra_) argv.push_back(a);
  try {
    pid_ = StartProcess(argv, out, err);
  } catch (const std::runtime_error& e) {
    *error = e.what();
    pid_ = -1;
    return false;
  }
  constexpr std::string_view kListening = "listening on port ";
  bool exited = false;
  bool listening = PollUntil(
      [&] {
        const std::string text = ReadFileOrEmpty(out);
        const size_t at = text.find(kListening);
        if (at != std::string::npos) {
          port_ = std::atoi(text.c_str() + at + kListening.size());
          return true;
        }
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
          exited = true;
          pid_ = -1;
          return true;
        }
        return false;
      },
      timeout);
  if (exited || !listening) {
    *error = (exited ? "the server exited: " : "the server did not listen: ") +
             Output();
    return false;
  }
  return true;
}

int ServeProcess::Stop(int signal, bool wait) {
  if (pid_ <= 0) return -1;
  kill(pid_, signal);
  if (!wait) return 0;
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::optional<int> ServeProcess::WaitForExit(std::chrono::seconds timeout) {
  if (pid_ <= 0) return std::nullopt;
  const std::optional<int> code = testing::WaitForExit(pid_, timeout);
  pid_ = -1;  // Collected, or killed and collected.
  return code;
}

std::unique_ptr<v1::StudyService::Stub> ServeProcess::StudyStub() const {
  return v1::StudyService::NewStub(
      grpc::CreateChannel(address(), grpc::InsecureChannelCredentials()));
}

std::unique_ptr<v1::JobService::Stub> ServeProcess::JobStub() const {
  return v1::JobService::NewStub(
      grpc::CreateChannel(address(), grpc::InsecureChannelCredentials()));
}

std::string DefaultToken() {
  const char* dir = std::getenv("HPTUNE_CONFIG_DIR");
  if (dir == nullptr) return "";
  std::string text = ReadFileOrEmpty(std::string(dir) + "/token");
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) {
    text.pop_back();
  }
  return text;
}

std::unique_ptr<grpc::ClientContext> Context(
    const std::optional<std::string>& token, std::chrono::seconds deadline) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + deadline);
  const std::string bearer = token.value_or(DefaultToken());
  if (!bearer.empty()) {
    context->AddMetadata("authorization", "Bearer " + bearer);
  }
  return context;
}

v1::Job::State JobStateOf(const ServeProcess& server,
                          const std::string& job_id) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  request.set_omit_trials(true);
  v1::Job job;
  if (!server.JobStub()->GetJob(Context().get(), request, &job).ok()) {
    return v1::Job::STATE_UNSPECIFIED;
  }
  return job.state();
}

std::set<pid_t> ReplicasUnder(const std::string& dir) {
  const std::string marker =
      "HPTUNE_REPLICA=" +
      std::filesystem::absolute(dir).lexically_normal().string();
  std::set<pid_t> found;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return found;
  while (dirent* entry = readdir(proc)) {
    const char* name = entry->d_name;
    if (name[0] < '1' || name[0] > '9') continue;
    const std::string base = std::string("/proc/") + name;
    // Zombies have ended; only their parent has to collect them.
    const std::string stat = ReadFileOrEmpty(base + "/stat");
    const size_t paren = stat.rfind(')');
    if (paren == std::string::npos || paren + 2 >= stat.size() ||
        stat[paren + 2] == 'Z') {
      continue;
    }
    const std::string environ_text = ReadFileOrEmpty(base + "/environ");
    size_t start = 0;
    while (start < environ_text.size()) {
      size_t end = environ_text.find('\0', start);
      if (end == std::string::npos) end = environ_text.size();
      if (environ_text.compare(start, marker.size(), marker) == 0) {
        found.insert(static_cast<pid_t>(std::atoi(name)));
        break;
      }
      start = end + 1;
    }
  }
  closedir(proc);
  return found;
}

}  // namespace hptune::testing

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <utility>

#include "hptune/env/env.h"
#include "src/api/conversion.h"
#include "src/cli/client/job_format.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/client/submit_flags.h"
#include "src/cli/commands/jobs/logs.h"
#include "src/cli/commands/jobs/subcommand.h"
#include "src/cli/flag_table.h"
#include "src/cli/gcloud_flags.h"

namespace hptune::cli::jobs {
namespace {

// What Ctrl-C while following a job says, written from the signal handler
// (so prepared before it is installed): the job is the server's.
char g_interrupt_note[512];
size_t g_interrupt_note_size = 0;

extern "C" void OnFollowInterrupt(int) {
  (void)!write(2, g_interrupt_note, g_interrupt_note_size);
  _exit(130);
}

void SayWhatCtrlCLeaves(const std::string& job_id) {
  const std::string note =
      "\nhptune: stopped following job " + job_id +
      "; it goes on in the server. Follow it again with `hptune jobs watch " +
      job_id + "`, or cancel it with `hptune jobs cancel " + job_id + "`\n";
  g_interrupt_note_size = std::min(note.size(), sizeof(g_interrupt_note));
  std::memcpy(g_interrupt_note, note.data(), g_interrupt_note_size);
  struct sigaction action {};
  action.sa_handler = OnFollowInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

constexpr char kSubmitUsage[] =
    "usage: hptune jobs submit JOB [--config FILE] [flags] [-- USER_ARGS...]\n"
    "\n"
    "Submits a training job to the server: every trial a distributed\n"
    "training job. The config (YAML or JSON, `trainingInput:` at the top)\n"
    "is validated here first; flags override the same option in it.\n"
    "\n"
    "  JOB                       unique job ID: letters, digits and\n"
    "                            underscores, starting with a letter\n"
    "  --config FILE             the job's trainingInput\n"
    "  --wait                    follow the job until it ends (progress on\n"
    "                            stderr), then describe it\n"
    "  --stream-logs             print the trials' logs until the job ends\n"
    "  --quiet                   with --wait: no progress lines\n"
    "  --reconnect-seconds N     with --wait or --stream-logs: when the\n"
    "                            server goes away (a restart), try to reach\n"
    "                            it again for up to N seconds (default 300;\n"
    "                            0: fail at once)\n"
    "  --format table|json|csv   the job (json: AI Platform's Job)\n"
    "  -- USER_ARGS...           appended to the config's args\n";
constexpr char kSubmitExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs submit mnist_1 --config config.yaml \\\n"
    "      --module-name trainer.task --package-path ./trainer \\\n"
    "      --job-dir /data/jobs/mnist_1 --max-trials 8 -- --epochs=10\n"
    "\n"
    "Exit codes: 0 submitted (with --wait/--stream-logs: succeeded), 1 the\n"
    "job failed or was cancelled, 2 invalid config or flag value, 64 bad\n"
    "usage, 69 no server reachable, 77 token refused, 130 Ctrl-C while\n"
    "following (the job goes on in the server).\n";

int RunSubmit(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  WriteIgnoredGcloudFlagsNote(c.args, kSubmitCommand, "hptune: ", err);
  absl::StatusOr<std::filesystem::path> working_dir =
      DefaultEnv().WorkingDirectory();
  if (!working_dir.ok()) return FailStatus(working_dir.status(), err);
  auto submission =
      client::BuildSubmission(DefaultEnv(), job_id, c.args.Get("config"), c.args,
                              std::move(c.slurm_flags), *working_dir);
  if (!submission.ok()) return FailStatus(submission.status(), err);
  v1::SubmitJobRequest request;
  request.set_job_id(job_id);
  *request.mutable_training_input() = std::move(submission->training_input);
  request.set_backend(submission->backend);
  request.mutable_labels()->insert(submission->job.labels.begin(),
                                   submission->job.labels.end());
  if (!submission->job.slurm.empty()) {
    *request.mutable_slurm() = api::SlurmOptionsToProto(submission->job.slurm);
  }
  v1::Job job;
  grpc::Status status =
      c.stub->SubmitJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);

  const bool wait = c.args.Has("wait");
  const bool stream_logs = c.args.Has("stream-logs");
  if (!wait && !stream_logs) {
    if (c.format == OutputFormat::kJson) {
      out << client::JobJson(job) << "\n";
    } else if (c.format == OutputFormat::kCsv) {
      PrintTable(client::JobsTable({job}), c.format, out);
    } else {
      out << "job " << job_id << " submitted ("
          << v1::Job::State_Name(job.state()) << ")\n"
          << "  hptune jobs describe " << job_id << "\n"
          << "  hptune jobs watch " << job_id << "\n"
          << "  hptune jobs stream-logs " << job_id << " --follow\n";
    }
    return kExitOk;
  }
  err << "hptune: job " << job_id << " submitted\n" << std::flush;
  SayWhatCtrlCLeaves(job_id);
  v1::Job::State final_state = v1::Job::STATE_UNSPECIFIED;
  if (stream_logs) {
    client::Reconnector reconnector(c.server, c.reconnect_window, err,
                                    "the logs of job " + job_id);
    status = StreamJobLogs(c, job_id, "master-0", /*follow=*/true, reconnector,
                           out, final_state);
  } else {
    const std::string metric = client::MetricTag(job);
    const bool quiet = c.args.Has("quiet");
    status = Watch(
        c, job_id,
        [&](const v1::JobEvent& event) {
          if (!quiet) {
            err << "hptune: " << client::DescribeJobEvent(event, metric)
                << "\n";
          }
        },
        err, final_state);
  }
  if (!status.ok()) return c.server.Fail(status, err);
  if (wait) {
    status = GetJob(c, job_id, false, job);
    if (!status.ok()) return c.server.Fail(status, err);
    if (c.format == OutputFormat::kJson) {
      out << client::JobJson(job) << "\n";
    } else if (c.format == OutputFormat::kCsv) {
      PrintTable(client::JobTrialsTable(job), c.format, out);
    } else {
      client::PrintJobSummary(job, out);
    }
    final_state = job.state();
  }
  err << "hptune: job " << job_id << " " << v1::Job::State_Name(final_state)
      << "\n";
  return FinalStateExitCode(final_state);
}

}  // namespace

Subcommand SubmitCommand() {
  // The overrides and the backend flags from the flag table, then its own.
  std::set<std::string> flags = ValueFlagNames(kSubmitCommand);
  flags.insert({"config", "format", "reconnect-seconds"});
  std::set<std::string> switches = SwitchFlagNames(kSubmitCommand);
  switches.insert({"wait", "stream-logs", "quiet"});
  return {
      "submit",
      Usage(kSubmitUsage, kSubmitExample, FlagUsage(kSubmitCommand).c_str()),
      flags,
      switches,
      true,
      RunSubmit};
}

}  // namespace hptune::cli::jobs

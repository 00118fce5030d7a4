#include "absl/status/status.h"
#include "src/cli/client/job_format.h"
#include "src/cli/commands/jobs/subcommand.h"
#include "src/cli/labels_flag.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kUpdateUsage[] =
    "usage: hptune jobs update JOB [--update-labels K=V[,K=V...]]\n"
    "                              [--remove-labels K[,K...]] "
    "[--clear-labels]\n"
    "                              [--format table|json] [flags]\n"
    "\n"
    "Changes a job's labels, in any state, as `gcloud ai-platform jobs\n"
    "update` does: --clear-labels first, then --update-labels, then\n"
    "--remove-labels. Prints the job's labels afterwards (json: the Job).\n"
    "\n"
    "  --update-labels K=V,...   add labels, or give them new values\n"
    "  --remove-labels K,...     remove these labels (absent ones are\n"
    "                            ignored)\n"
    "  --clear-labels            remove every label\n"
    "  --format table|json\n";
constexpr char kUpdateExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs update mnist_1 --update-labels stage=prod "
    "--remove-labels draft\n";

int RunUpdate(Invocation& c, std::ostream& out, std::ostream& err) {
  const std::string& job_id = c.args.positional[0];
  v1::UpdateJobRequest request;
  request.set_job_id(job_id);
  if (auto text = c.args.Get("update-labels")) {
    auto labels = ParseLabelPairs("update-labels", *text);
    if (!labels.ok()) return FailStatus(labels.status(), err);
    request.mutable_update_labels()->insert(labels->begin(), labels->end());
  }
  if (auto text = c.args.Get("remove-labels")) {
    auto keys = ParseLabelKeys("remove-labels", *text);
    if (!keys.ok()) return FailStatus(keys.status(), err);
    for (const std::string& key : *keys) request.add_remove_labels(key);
  }
  request.set_clear_labels(c.args.Has("clear-labels"));
  if (request.update_labels().empty() && request.remove_labels().empty() &&
      !request.clear_labels()) {
    err << "hptune jobs update: give --update-labels, --remove-labels or "
           "--clear-labels\n\n"
        << kUpdateUsage;
    return kExitUsage;
  }
  if (c.format == OutputFormat::kCsv) {
    return FailStatus(
        absl::InvalidArgumentError("--format must be table or json, got csv"),
        err);
  }
  v1::Job job;
  grpc::Status status =
      c.stub->UpdateJob(c.server.Context().get(), request, &job);
  if (!status.ok()) return c.server.Fail(status, err);
  if (c.format == OutputFormat::kJson) {
    out << client::JobJson(job) << "\n";
  } else {
    out << "job " << job_id << " labels: "
        << (job.labels().empty() ? "(none)" : client::JobLabelsText(job))
        << "\n";
  }
  return kExitOk;
}

}  // namespace

Subcommand UpdateCommand() {
  return {"update",
          Usage(kUpdateUsage, kUpdateExample),
          {"update-labels", "remove-labels", "format"},
          {"clear-labels"},
          true,
          RunUpdate};
}

}  // namespace hptune::cli::jobs

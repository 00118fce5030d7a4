#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"
#include "src/cli/client/job_format.h"
#include "src/cli/client/proto_convert.h"
#include "src/cli/commands/jobs/subcommand.h"

namespace hptune::cli::jobs {
namespace {

constexpr char kListUsage[] =
    "usage: hptune jobs list [--filter F] [--limit N] [--page-size N] "
    "[flags]\n"
    "\n"
    "Jobs on the server, newest first.\n"
    "\n"
    "  --filter F                terms separated by spaces, all of which a\n"
    "                            job must meet: state=STATE[,STATE...],\n"
    "                            jobId=PREFIX*, labels.KEY=VALUE (VALUE *:\n"
    "                            any value)\n"
    "  --limit N                 at most N jobs (default: all)\n"
    "  --page-size N             jobs per request (default 100)\n"
    "  --format table|json|csv\n";
constexpr char kListExample[] =
    "\n"
    "Example:\n"
    "  hptune jobs list --filter state=RUNNING --limit 10\n"
    "  hptune jobs list --filter 'labels.team=vision state=FAILED'\n";

int RunList(Invocation& c, std::ostream& out, std::ostream& err) {
  v1::ListJobsRequest request;
  if (auto filter = c.args.Get("filter")) {
    if (auto s = client::ApplyJobsFilter(*filter, request); !s.ok()) {
      return FailStatus(s, err);
    }
  }
  std::optional<int64_t> limit;
  if (c.args.Has("limit")) {
    auto value = IntegerFlag<int64_t>(c.args, "limit", 1);
    if (!value.ok()) return FailStatus(value.status(), err);
    limit = *value;
  }
  if (c.args.Has("page-size")) {
    auto value = IntegerFlag<int64_t>(c.args, "page-size", 1);
    if (!value.ok()) return FailStatus(value.status(), err);
    if (*value > 1000) {
      return FailStatus(absl::InvalidArgumentError(absl::StrCat(
                            "--page-size: at most 1000, got ", *value)),
                        err);
    }
    request.set_page_size(static_cast<int32_t>(*value));
  }
  std::vector<v1::Job> jobs;
  for (;;) {
    if (limit) {
      const int64_t left = *limit - static_cast<int64_t>(jobs.size());
      if (request.page_size() == 0 || request.page_size() > left) {
        request.set_page_size(
            static_cast<int32_t>(std::min<int64_t>(left, 1000)));
      }
    }
    v1::ListJobsResponse response;
    grpc::Status status =
        c.stub->ListJobs(c.server.Context().get(), request, &response);
    if (!status.ok()) return c.server.Fail(status, err);
    for (auto& job : *response.mutable_jobs()) {
      if (limit && static_cast<int64_t>(jobs.size()) >= *limit) break;
      jobs.push_back(std::move(job));
    }
    if (response.next_page_token().empty() ||
        (limit && static_cast<int64_t>(jobs.size()) >= *limit)) {
      break;
    }
    request.set_page_token(response.next_page_token());
  }
  if (c.format == OutputFormat::kJson) {
    nlohmann::ordered_json array = nlohmann::ordered_json::array();
    for (const v1::Job& job : jobs) {
      array.push_back(
          nlohmann::ordered_json::parse(client::MessageToJson(job, false)));
    }
    out << array.dump(2) << "\n";
  } else {
    PrintTable(client::JobsTable(jobs), c.format, out);
  }
  return kExitOk;
}

}  // namespace

Subcommand ListCommand() {
  return {"list",
          Usage(kListUsage, kListExample),
          {"filter", "limit", "page-size", "format"},
          {},
          false,
          RunList};
}

}  // namespace hptune::cli::jobs

#include "src/launch/slurm/slurm_commands.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "hptune/env/env.h"
#include "src/launch/capture_output.h"

namespace hptune::launch::slurm_internal {

absl::StatusOr<std::string> RunSlurm(Env& env,
                                     const std::vector<std::string>& argv) {
  auto result = RunCapturingOutput(env, argv);
  if (!result.ok()) return result.status();
  if (result->signal != 0 || result->exit_code != 0) {
    std::string err(absl::StripAsciiWhitespace(result->err));
    if (err.empty()) err = std::string(absl::StripAsciiWhitespace(result->out));
    if (err.empty()) {
      err = result->signal != 0
                ? absl::StrCat("killed by signal ", result->signal)
                : absl::StrCat("exited with code ", result->exit_code);
    }
    if (err.rfind(argv[0], 0) != 0) err = absl::StrCat(argv[0], ": ", err);
    return absl::UnavailableError(err);
  }
  return std::move(result->out);
}

bool OnPath(std::string_view name) {
  return FindOnPath(std::string(name), /*search_working_dir=*/false).ok();
}

JobPhase PhaseOf(std::string_view state) {
  if (state == "PENDING" || state == "CONFIGURING" || state == "RUNNING" ||
      state == "SUSPENDED" || state == "RESIZING" || state == "REQUEUED" ||
      state == "REQUEUE_HOLD" || state == "REQUEUE_FED" ||
      state == "RESV_DEL_HOLD" || state == "SIGNALING" ||
      state == "STAGE_OUT" || state == "STOPPED") {
    return JobPhase::kAlive;
  }
  if (state == "COMPLETING") return JobPhase::kEnding;
  return JobPhase::kEnded;
}

absl::StatusOr<JobState> QueryJob(Env& env, const std::string& job_id) {
  auto out =
      RunSlurm(env, {"squeue", "-h", "-j", job_id, "-t", "all", "-o", "%T"});
  if (!out.ok()) {
    if (out.status().message().find("Invalid job id") != std::string::npos) {
      return JobState{.phase = JobPhase::kEnded, .state = "GONE"};
    }
    return out.status();
  }
  // A heterogeneous job has a line per component: it is alive while any is.
  JobState state{.phase = JobPhase::kEnded, .state = "GONE"};
  bool first = true;
  for (absl::string_view line : absl::StrSplit(*out, '\n', absl::SkipEmpty())) {
    line = absl::StripAsciiWhitespace(line);
    const std::string text(line);
    if (first) state.state = text;
    first = false;
    state.phase = std::min(state.phase, PhaseOf(text));
  }
  return state;
}

std::map<std::string, int> GpusOfGres(std::string_view gres) {
  std::map<std::string, int> gpus;
  // Commas also separate socket lists inside "(S:0-1)": drop those first.
  std::string plain;
  int depth = 0;
  for (char c : gres) {
    if (c == '(') ++depth;
    if (depth == 0) plain += c;
    if (c == ')' && depth > 0) --depth;
  }
  for (absl::string_view item : absl::StrSplit(plain, ',', absl::SkipEmpty())) {
    item = absl::StripAsciiWhitespace(item);
    if (!absl::ConsumePrefix(&item, "gpu")) continue;
    if (!item.empty() && item[0] != ':') continue;  // e.g. "gpus_extra".
    // ":<count>" or ":<type>:<count>".
    const size_t colon = item.rfind(':');
    int n = 0;
    if (colon == absl::string_view::npos ||
        !absl::SimpleAtoi(item.substr(colon + 1), &n) || n <= 0) {
      continue;
    }
    gpus[std::string(colon > 0 ? item.substr(1, colon - 1) : "")] += n;
  }
  return gpus;
}

std::optional<std::chrono::seconds> SlurmDuration(std::string_view limit) {
  absl::string_view text(limit.data(), limit.size());
  int64_t days = 0;
  const size_t dash = text.find('-');
  if (dash != absl::string_view::npos) {
    if (!absl::SimpleAtoi(text.substr(0, dash), &days) || days < 0) {
      return std::nullopt;
    }
    text = text.substr(dash + 1);
  }
  std::vector<int64_t> fields;
  for (absl::string_view field : absl::StrSplit(text, ':')) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(field, &n) || n < 0) return std::nullopt;
    fields.push_back(n);
  }
  if (fields.empty() || fields.size() > 3) return std::nullopt;
  int64_t seconds = 0;
  if (dash != absl::string_view::npos) {
    // days-hours[:minutes[:seconds]]
    const int64_t units[] = {3600, 60, 1};
    for (size_t i = 0; i < fields.size(); ++i) seconds += fields[i] * units[i];
  } else if (fields.size() == 3) {
    seconds = fields[0] * 3600 + fields[1] * 60 + fields[2];
  } else if (fields.size() == 2) {
    seconds = fields[0] * 60 + fields[1];  // minutes:seconds
  } else {
    seconds = fields[0] * 60;  // minutes
  }
  return std::chrono::seconds(days * 86400 + seconds);
}

absl::StatusOr<PartitionLimit> QueryPartition(Env& env,
                                              const std::string& name) {
  std::vector<std::string> argv = {"scontrol", "show", "partition", "-o"};
  if (!name.empty()) argv.push_back(name);
  auto out = RunSlurm(env, argv);
  if (!out.ok()) return out.status();
  for (absl::string_view line : absl::StrSplit(*out, '\n', absl::SkipEmpty())) {
    PartitionLimit partition;
    bool is_default = false;
    for (absl::string_view field :
         absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      if (absl::ConsumePrefix(&field, "PartitionName=")) {
        partition.name = std::string(field);
      } else if (absl::ConsumePrefix(&field, "MaxTime=")) {
        partition.max_time = std::string(field);
      } else if (field == "Default=YES") {
        is_default = true;
      }
    }
    if (!name.empty() || is_default) return partition;
  }
  return absl::NotFoundError(
      "no Slurm partition is the default (scontrol show partition)");
}

std::string ExplainSubmitError(const std::string& message) {
  std::string text = message;
  if (text.find("MaxSubmitJob") != std::string::npos ||
      text.find("job submit limit") != std::string::npos) {
    absl::StrAppend(&text,
                    " (the cluster's MaxSubmitJobs limit on how many jobs you "
                    "may have queued: run fewer trials at once "
                    "(maxParallelTrials), or reuse allocations with "
                    "--slurm-allocation=per-lane)");
  }
  return text;
}

}  // namespace hptune::launch::slurm_internal

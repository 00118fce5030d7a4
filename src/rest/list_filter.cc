#include "src/rest/list_filter.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace hptune::rest {
namespace {

// A value as written, without the quotes a filter may put around it.
std::string Unquoted(std::string_view raw) {
  absl::string_view text =
      absl::StripAsciiWhitespace(absl::string_view(raw.data(), raw.size()));
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  return std::string(text);
}

// Vertex's JobState name as hptune's: JOB_STATE_RUNNING is RUNNING,
// JOB_STATE_PENDING is PREPARING; "" for another.
std::string FromVertexState(const std::string& value) {
  constexpr std::string_view kPrefix = "JOB_STATE_";
  if (!value.starts_with(kPrefix)) return "";
  const std::string state = value.substr(kPrefix.size());
  return state == "PENDING" ? "PREPARING" : state;
}

absl::Status ApplyTerm(std::string_view term, bool vertex,
                       v1::ListJobsRequest& request) {
  const size_t op = term.find_first_of("=:");
  if (op == std::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("filter: cannot read \"", std::string(term), "\""));
  }
  const std::string field(
      absl::StripAsciiWhitespace(absl::string_view(term.data(), op)));
  const std::string value = Unquoted(term.substr(op + 1));
  if (field == "state") {
    v1::Job::State state;
    const std::string name = vertex ? FromVertexState(value) : value;
    if (!v1::Job::State_Parse(name, &state)) {
      return absl::InvalidArgumentError(
          absl::StrCat("filter: no job state \"", value, "\""));
    }
    request.add_states(state);
    return absl::OkStatus();
  }
  if (field.starts_with("labels.") && field.size() > 7) {
    (*request.mutable_labels())[field.substr(7)] = value;
    return absl::OkStatus();
  }
  if (field == "jobId" && term[op] == ':' && value.ends_with("*")) {
    request.set_job_id_prefix(value.substr(0, value.size() - 1));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "filter: hptune filters on state, labels.KEY and jobId:PREFIX* only, "
      "joined by AND; not \"",
      std::string(term), "\""));
}

absl::Status ApplyFilter(std::string_view filter, bool vertex,
                         v1::ListJobsRequest& request) {
  const absl::string_view text(filter.data(), filter.size());
  if (absl::StripAsciiWhitespace(text).empty()) return absl::OkStatus();
  for (absl::string_view term : absl::StrSplit(text, " AND ")) {
    term = absl::StripAsciiWhitespace(term);
    if (absl::Status s = ApplyTerm(std::string_view(term.data(), term.size()),
                                   vertex, request);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ApplyListFilter(std::string_view filter,
                             v1::ListJobsRequest& request) {
  return ApplyFilter(filter, /*vertex=*/false, request);
}

absl::Status ApplyVertexListFilter(std::string_view filter,
                                   v1::ListJobsRequest& request) {
  return ApplyFilter(filter, /*vertex=*/true, request);
}

absl::StatusOr<int32_t> ReadPageSize(std::string_view page_size) {
  if (page_size.empty()) return 0;
  int32_t size = 0;
  if (!absl::SimpleAtoi(absl::string_view(page_size.data(), page_size.size()),
                        &size) ||
      size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pageSize: must be a number of jobs, got \"",
                     std::string(page_size), "\""));
  }
  return size;
}

}  // namespace hptune::rest

#include "src/cli/labels_flag.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"

namespace hptune::cli {

absl::StatusOr<JobLabels> ParseLabelPairs(const std::string& flag,
                                          const std::string& text) {
  const std::string name = absl::StrCat("--", flag);
  JobLabels labels;
  for (absl::string_view pair : absl::StrSplit(text, ',')) {
    if (pair.find('=') == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": expected KEY=VALUE[,KEY=VALUE...], got \"", text, "\""));
    }
    std::pair<std::string, std::string> kv =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (!labels.emplace(kv.first, kv.second).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          name, ": key \"", kv.first, "\" given twice, got \"", text, "\""));
    }
  }
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobLabels(labels, name)));
  return labels;
}

absl::StatusOr<std::vector<std::string>> ParseLabelKeys(
    const std::string& flag, const std::string& text) {
  const std::string name = absl::StrCat("--", flag);
  std::vector<std::string> keys = absl::StrSplit(text, ',');
  HPTUNE_RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobLabelKeys(keys, name)));
  return keys;
}

absl::Status ApplyLabelsFlag(const ParsedArgs& args, JobLabels& labels) {
  std::optional<std::string> text = args.Get(kLabelsFlag);
  if (!text) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(JobLabels given, ParseLabelPairs(kLabelsFlag, *text));
  for (auto& [key, value] : given) labels[key] = std::move(value);
  return FieldErrorsToStatus(
      ValidateJobLabels(labels, absl::StrCat("labels with --", kLabelsFlag)));
}

}  // namespace hptune::cli

#include "src/cli/labels_flag.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hptune/core/config.h"
#include "hptune/core/status.h"

namespace hptune::cli {

absl::Status ApplyLabelsFlag(const ParsedArgs& args, JobLabels& labels) {
  std::optional<std::string> text = args.Get(kLabelsFlag);
  if (!text) return absl::OkStatus();
  const std::string flag = absl::StrCat("--", kLabelsFlag);
  JobLabels given;
  for (absl::string_view pair : absl::StrSplit(*text, ',')) {
    std::pair<std::string, std::string> kv =
        absl::StrSplit(pair, absl::MaxSplits('=', 1));
    if (pair.find('=') == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": expected KEY=VALUE[,KEY=VALUE...], got \"", *text, "\""));
    }
    if (!given.emplace(kv.first, kv.second).second) {
      return absl::InvalidArgumentError(absl::StrCat(
          flag, ": key \"", kv.first, "\" given twice, got \"", *text, "\""));
    }
  }
  RETURN_IF_ERROR(FieldErrorsToStatus(ValidateJobLabels(given, flag)));
  for (auto& [key, value] : given) labels[key] = std::move(value);
  return FieldErrorsToStatus(
      ValidateJobLabels(labels, absl::StrCat("labels with ", flag)));
}

}  // namespace hptune::cli

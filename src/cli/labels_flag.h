// gcloud's label flags: `--labels KEY=VALUE[,KEY=VALUE...]` for `hptune run`
// and `hptune jobs submit`, laid over the config's labels (a key given
// replaces the config's value), and the pairs and keys of `hptune jobs
// update --update-labels/--remove-labels`. Used only by src/cli.
#ifndef HPTUNE_CLI_LABELS_FLAG_H_
#define HPTUNE_CLI_LABELS_FLAG_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "src/cli/flags.h"

namespace hptune::cli {

inline constexpr char kLabelsFlag[] = "labels";

// KEY=VALUE pairs separated by commas, from flag `--<flag>`. InvalidArgument
// naming the flag and the text for a malformed or repeated pair and for what
// ValidateJobLabels refuses.
absl::StatusOr<JobLabels> ParseLabelPairs(const std::string& flag,
                                          const std::string& text);

// Label keys separated by commas, each checked as ValidateJobLabels does.
absl::StatusOr<std::vector<std::string>> ParseLabelKeys(
    const std::string& flag, const std::string& text);

// Applies --labels from `args`, when given, to `labels`; errors as
// ParseLabelPairs', and InvalidArgument when the result has more than 64.
[[nodiscard]] absl::Status ApplyLabelsFlag(const ParsedArgs& args,
                                           JobLabels& labels);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_LABELS_FLAG_H_

// `--labels KEY=VALUE[,KEY=VALUE...]`, gcloud's flag for a job's labels, for
// `hptune run` and `hptune jobs submit`: the labels given are laid over the
// config's (a key given replaces the config's value). Used only by src/cli.
#ifndef HPTUNE_CLI_LABELS_FLAG_H_
#define HPTUNE_CLI_LABELS_FLAG_H_

#include "absl/status/status.h"
#include "hptune/core/job.h"
#include "src/cli/flags.h"

namespace hptune::cli {

inline constexpr char kLabelsFlag[] = "labels";

// Applies --labels from `args`, when given, to `labels`. InvalidArgument
// naming the flag and the text for a malformed or repeated pair and for
// what ValidateJobLabels refuses, in the flag or in the result (64 at most).
absl::Status ApplyLabelsFlag(const ParsedArgs& args, JobLabels& labels);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_LABELS_FLAG_H_

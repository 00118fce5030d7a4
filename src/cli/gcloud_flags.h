// Google Cloud's flags of `gcloud ai-platform jobs submit training` and
// `gcloud ai hp-tuning-jobs create` that mean nothing to hptune (a region,
// a project, a runtime version, ...): `hptune run` and `hptune jobs
// submit` accept and ignore them with a note, so a pasted gcloud command
// line runs with hptune's command in front. gcloud's flags that do mean
// something are override rows (spec_overrides.cc). Rows of the flag table
// (flag_table.h). Used only by src/cli. Constant data and pure functions.
#ifndef HPTUNE_SRC_CLI_GCLOUD_FLAGS_H_
#define HPTUNE_SRC_CLI_GCLOUD_FLAGS_H_

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/flag_table.h"
#include "src/cli/flags.h"

namespace hptune::cli {

// The flag table's rows of the flags accepted and ignored; each row's help
// says why it means nothing here.
const std::vector<FlagSpec>& IgnoredGcloudRows();

// "note: ignored here: --region us-central1 (...), ..." for the ignored
// flags in `args` of `command`; "" when none is given.
std::string IgnoredGcloudFlagsNote(const ParsedArgs& args, FlagCommand command);
// That note, after `prefix` ("hptune run: "), as a line of `err`, when
// there is one.
void WriteIgnoredGcloudFlagsNote(const ParsedArgs& args, FlagCommand command,
                                 std::string_view prefix, std::ostream& err);

}  // namespace hptune::cli

#endif  // HPTUNE_SRC_CLI_GCLOUD_FLAGS_H_

#include "src/cli/gcloud_flags.h"

#include "absl/strings/str_cat.h"

namespace hptune::cli {
namespace {

using enum FlagArity;
constexpr std::string_view kIgnored =
    "gcloud's, accepted and ignored with a note:";

}  // namespace

const std::vector<FlagSpec>& IgnoredGcloudRows() {
  static const auto* const kRows = new std::vector<FlagSpec>{
      {"region", kValue, "REGION", kRunAndSubmit, kIgnored,
       "trials run on this machine or the server's backend"},
      {"project", kValue, "PROJECT", kRunAndSubmit, kIgnored,
       "one database, no projects"},
      {"runtime-version", kValue, "V", kRunAndSubmit, kIgnored,
       "the trainer runs with the machine's (or the image's) libraries"},
      {"python-version", kValue, "V", kRunAndSubmit, kIgnored,
       "the trainer runs with the Python hptune finds (docs/trainer.md)"},
      {"staging-bucket", kValue, "BUCKET", kRunAndSubmit, kIgnored,
       "--package-path is used where it is, not uploaded"},
      {"service-account", kValue, "SA", kRunAndSubmit, kIgnored,
       "trials run as the user who submits them"},
      {"network", kValue, "NETWORK", kRunAndSubmit, kIgnored,
       "replicas use the host's network"},
      {"kms-key", kValue, "KEY", kRunAndSubmit, kIgnored,
       "hptune encrypts nothing at rest; see docs/operations.md"},
      {"kms-keyring", kValue, "RING", kRunAndSubmit, kIgnored, "as --kms-key"},
      {"kms-location", kValue, "L", kRunAndSubmit, kIgnored, "as --kms-key"},
      {"kms-project", kValue, "P", kRunAndSubmit, kIgnored, "as --kms-key"},
      {"enable-web-access", kSwitch, "", kRunAndSubmit, kIgnored,
       "hptune has no shell into a trial; its logs are in `hptune jobs "
       "stream-logs` and the dashboard"},
      {"enable-dashboard-access", kSwitch, "", kRunAndSubmit, kIgnored,
       "as --enable-web-access"},
      {"async", kSwitch, "", kSubmitCommand, kIgnored,
       "jobs submit returns at once unless --wait or --stream-logs"},
      {"stream-logs", kSwitch, "", kRunCommand, kIgnored,
       "run shows each trial as it ends; the logs are under --runs-dir"},
  };
  return *kRows;
}

std::string IgnoredGcloudFlagsNote(const ParsedArgs& args,
                                   FlagCommand command) {
  std::string note;
  for (const FlagSpec& flag : IgnoredGcloudRows()) {
    const std::string name(flag.name);
    if ((flag.commands & command) == 0 || !args.Has(name)) continue;
    absl::StrAppend(&note, note.empty() ? "note: ignored here: " : "; ", "--",
                    name);
    if (flag.arity == kValue) absl::StrAppend(&note, " ", *args.Get(name));
    absl::StrAppend(&note, " (", std::string(flag.help), ")");
  }
  return note;
}

void WriteIgnoredGcloudFlagsNote(const ParsedArgs& args, FlagCommand command,
                                 std::string_view prefix, std::ostream& err) {
  const std::string note = IgnoredGcloudFlagsNote(args, command);
  if (!note.empty()) err << prefix << note << "\n";
}

}  // namespace hptune::cli

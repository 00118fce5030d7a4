// A host trainer that installs its packages first (trainer_packages.h).
#include "src/launch/trainer_packages.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace hptune::launch {
namespace {

// 'text', with each ' written as '\'' so the shell reads `text` back.
std::string ShellQuoted(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

}  // namespace

std::vector<std::string> PackageTrainerArgv(const JobSpec& job,
                                            const std::string& python) {
  // Replicas run in their trial's directory; one directory per replica
  // process, as a trial's replicas start at once.
  std::string script = absl::StrCat(
      "d=\"$PWD/packages-$$\"; py=", ShellQuoted(python),
      "; \"$py\" -m pip install --quiet --no-index --no-deps "
      "--no-build-isolation --disable-pip-version-check --target \"$d\"");
  for (const std::string& uri : job.package_uris) {
    absl::StrAppend(&script, " ", ShellQuoted(uri));
  }
  absl::StrAppend(&script,
                  " || exit 125; export PYTHONPATH=\"$d${PYTHONPATH:+:"
                  "$PYTHONPATH}\"; exec \"$py\" -m \"$0\" \"$@\"");
  return {"/bin/sh", "-c", script, job.module_name};
}

}  // namespace hptune::launch

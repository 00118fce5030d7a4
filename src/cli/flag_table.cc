#include "src/cli/flag_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/cli/gcloud_flags.h"
#include "src/cli/spec_overrides.h"

namespace hptune::cli {
namespace {

constexpr unsigned kRunAndServe = kRunCommand | kServeCommand;
constexpr unsigned kServing = kServeCommand | kDashboardCommand;
constexpr unsigned kOnDatabase = kRunAndServe | kDashboardCommand;
constexpr unsigned kBackendCommands = kRunAndServe | kSubmitCommand;

constexpr std::string_view kFiles = "Database and files:";
constexpr std::string_view kServingSection = "Serving:";
constexpr std::string_view kUsers = "Users (docs/operations.md):";
constexpr std::string_view kRunner = "Runner:";
constexpr std::string_view kBackend =
    "Backend (run, jobs submit: over the config's backend: and slurm:):";

using enum FlagArity;

// Every flag but the config's overrides (spec_overrides.cc), by section.
const FlagSpec kRows[] = {
    {"config", kValue, "FILE", kRunCommand, kJobSection,
     "the config instead of CONFIG, as gcloud's --config; a first argument is "
     "then the job's ID (gcloud's JOB)"},
    {"job-id", kValue, "ID", kRunCommand, kJobSection,
     "the job's ID and its study's name; default: the config's name and the "
     "time (config_20261121_103000)"},
    {"format", kValue, "table|json|csv|vertex", kRunCommand, kJobSection,
     "the final trial table; vertex (and json of a Vertex spec): the job as "
     "Vertex's HyperparameterTuningJob"},
    {"quiet", kSwitch, "", kRunCommand, kJobSection,
     "no progress lines (warnings still)"},
    {"pull-images", kSwitch, "", kRunCommand, kJobSection,
     "podman pull an image a pool names that podman's local storage lacks, "
     "before any trial starts (local backend)"},

    {"db", kValue, "FILE", kOnDatabase, kFiles,
     "the study database; default $HPTUNE_DB, else ./hptune.db; or a URL: "
     "sqlite:PATH, memory: (nothing persists)"},
    {"runs-dir", kValue, "DIR", kRunCommand, kFiles,
     "replica logs and metric files, DIR/JOB/N/; default ./hptune-runs"},
    {"state-dir", kValue, "DIR", kServing, kFiles,
     "replica logs, metric files and default job dirs (what `hptune run` "
     "calls --runs-dir); default ./hptune-runs"},
    {"gcs-root", kValue, "DIR", kRunAndServe, kFiles,
     "a job's gs://B/P paths (jobDir, baseOutputDirectory, packageUris) "
     "are DIR/B/P, and serve --rest's storage upload writes there; "
     "default: none, and a job naming gs:// is refused"},
    {"log-file", kValue, "F", kServeCommand, kFiles,
     "the line per job and trial start and end goes to F (appended, 0600, "
     "each line timestamped) instead of stdout"},

    {"listen", kValue, "ADDR", kServeCommand, kServingSection,
     "default 127.0.0.1:7460 (port 0: any free port); any non-loopback "
     "address needs TLS"},
    {"http", kValue, "ADDR", kServing, kServingSection,
     "the web dashboard (docs/dashboard.md); default 127.0.0.1:7461 (serve: "
     "--listen's host, its port + 1, port 0 staying 0; off: none); off "
     "loopback it needs TLS"},
    {"rest", kValue, "ADDR", kServeCommand, kServingSection,
     "AI Platform Training's REST API for jobs (docs/rest.md), for gcloud "
     "ai-platform jobs; default off; loopback only (plain HTTP)"},
    {"token-file", kValue, "F", kServing, kServingSection,
     "every call and page needs the token in F; default: this user's token "
     "file ($HPTUNE_CONFIG_DIR/token, else $XDG_CONFIG_HOME/hptune/token, "
     "else ~/.config/hptune/token), created 0600 on the first start"},
    {"tls-cert", kValue, "F", kServing, kServingSection,
     "serve TLS (HTTPS) with this PEM certificate and --tls-key"},
    {"tls-key", kValue, "F", kServing, kServingSection,
     "the PEM key of --tls-cert"},

    {"socket", kValue, "PATH", kServeCommand, kUsers,
     "also serve on this Unix socket (mode 0666; e.g. "
     "/run/hptune/hptune.sock, where clients look first), and hand each "
     "local user a token of their own on PATH.identity"},
    {"users-file", kValue, "F", kServeCommand, kUsers,
     "lines \"USER TOKEN\": calls with TOKEN act as USER (F: this user's, "
     "mode 0600)"},
    {"allow-root-trials", kSwitch, "", kServeCommand, kUsers,
     "a root server runs root's jobs (its own token's) as root; without it, "
     "it refuses them"},
    {"share-jobs", kSwitch, "", kServeCommand, kUsers,
     "every user may see, stream and cancel every job (default: only their "
     "own)"},
    {"allow-command", kRepeated, "RULE", kServeCommand, kUsers,
     "only jobs whose trainer a rule allows (repeat for more): DIR/ "
     "(programs under it), PROGRAM, or PROGRAM:DIR/ (an interpreter with a "
     "script or package under DIR); default: any. With rules, a pool's env "
     "may set only variables that choose no code (docs/operations.md) and a "
     "pool may run no image"},
    {"allow-env", kRepeated, "NAME", kServeCommand, kUsers,
     "with rules: pools may also set NAME (repeatable)"},
    {"allow-image", kRepeated, "IMAGE", kServeCommand, kUsers,
     "with rules: pools may run IMAGE, as named, with its own entrypoint "
     "(repeatable)"},
    {"max-studies-per-user", kValue, "N", kServeCommand, kUsers,
     "studies one user may hold, their jobs' included (root and the "
     "server's token: no limit); default 1000, 0: no limit"},
    {"max-measurement-bytes-per-user", kValue, "BYTES", kServeCommand, kUsers,
     "measurements one user's studies may store; default 1073741824 (1 "
     "GiB), 0: no limit"},
    {"max-running-trials-per-user", kValue, "N", kServeCommand, kUsers,
     "trials one user's jobs run at once, all together; the next waits for "
     "one to end (root and the server's token: no limit); default 32, 0: no "
     "limit"},

    {"gpus", kValue, "SPEC", kRunAndServe, kRunner,
     "a count (\"4\"), indices (\"0,1\") or TYPE:COUNT; default "
     "$HPTUNE_GPUS, else what nvidia-smi reports"},
    {"max-restarts", kValue, "N", kRunAndServe, kRunner,
     "restarts of a failed replica per attempt (default 5)"},
    {"max-retries", kValue, "N", kRunAndServe, kRunner,
     "re-runs of a trial whose attempt failed or died with its runner "
     "(default 3)"},
    {"grace-seconds", kValue, "S", kRunAndServe, kRunner,
     "SIGTERM to SIGKILL for replicas, 0 to 3600 seconds, fractions allowed "
     "(default 5)"},
    {"max-log-bytes", kValue, "BYTES", kRunAndServe, kRunner,
     "the cap on each replica's log: past it, its middle is cut, its head "
     "and latest output kept (default 67108864, 64 MiB; 0: none)"},
    {"trial-lease", kValue, "S", kServeCommand, kRunner,
     "a trial handed to an ask/tell client ends FAILED after S seconds "
     "without a heartbeat from it (docs/api.md, \"Leases\"); default 300, "
     "0: never"},
    {"inline-refits", kSwitch, "", kServeCommand, kRunner,
     "the GP's refits run inside the suggestion due one, which waits for "
     "it: suggestions depend on the seed and the history alone "
     "(reproducible studies); default: on a worker, at once"},

    {"backend", kValue, "local|slurm", kBackendCommands, kBackend,
     "where trials run; default: the config's backend:, else local (jobs "
     "submit: else the server's); a server refuses a job naming the other"},
    {"slurm-partition", kValue, "P", kBackendCommands, kBackend,
     "sbatch --partition"},
    {"slurm-account", kValue, "A", kBackendCommands, kBackend,
     "sbatch --account"},
    {"slurm-time", kValue, "T", kBackendCommands, kBackend, "sbatch --time"},
    {"slurm-option", kRepeated, "OPT", kBackendCommands, kBackend,
     "one more sbatch option, e.g. --slurm-option=--qos=high; repeatable, "
     "after the config's (a Slurm server applies a job's over its own)"},
    {"slurm-gpu-type", kRepeated, "T=G", kRunAndServe, kBackend,
     "acceleratorConfig type T is the cluster's gres type G, e.g. "
     "NVIDIA_TESLA_T4=t4 (repeatable); then a type not mapped is refused",
     kSubmitCommand},
    {"slurm-allocation", kValue, "per-lane|per-trial", kRunAndServe, kBackend,
     "per-lane (default): each parallel lane of a job holds an allocation "
     "its trials reuse as srun steps; per-trial: a batch job a trial",
     kSubmitCommand},

    {"help", kSwitch, "", kOnDatabase, "", "this text"},
};

constexpr size_t kHelpColumn = 28;
constexpr size_t kWidth = 78;

bool Listed(const FlagSpec& flag, FlagCommand command) {
  return (flag.commands & command) != 0;
}

// "  --name VALUE", then the help wrapped into the help column: from the
// same line when the name leaves room, else from the next.
std::string FlagLines(const FlagSpec& flag) {
  std::string line = absl::StrCat("  --", std::string(flag.name));
  if (!flag.value.empty()) absl::StrAppend(&line, " ", std::string(flag.value));
  // An override names its field first: "maxTrials: the trials to run".
  const std::string text =
      flag.field.empty()
          ? std::string(flag.help)
          : absl::StrCat(std::string(flag.field), ": ", std::string(flag.help));
  std::string lines;
  if (line.size() + 2 > kHelpColumn) {
    lines = line + "\n";
    line.clear();
  }
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    const bool fresh = line.size() < kHelpColumn;
    if (!fresh && line.size() + 1 + word.size() > kWidth) {
      absl::StrAppend(&lines, line, "\n");
      line.clear();
    }
    if (line.size() < kHelpColumn) {
      line.resize(kHelpColumn, ' ');
    } else {
      line += ' ';
    }
    line.append(word.data(), word.size());
  }
  return absl::StrCat(lines, line, "\n");
}

}  // namespace

const std::vector<FlagSpec>& AllFlags() {
  static const auto* const kAll = [] {
    auto* all = new std::vector<FlagSpec>(SpecOverrideRows());
    all->insert(all->end(), std::begin(kRows), std::end(kRows));
    all->insert(all->end(), IgnoredGcloudRows().begin(),
                IgnoredGcloudRows().end());
    return all;
  }();
  return *kAll;
}

std::vector<const FlagSpec*> FlagsOf(FlagCommand command) {
  std::vector<const FlagSpec*> flags;
  for (const FlagSpec& flag : AllFlags()) {
    if (((flag.commands | flag.refused_by) & command) != 0) {
      flags.push_back(&flag);
    }
  }
  return flags;
}

absl::StatusOr<ParsedArgs> ParseFlags(const std::vector<std::string>& args,
                                      FlagCommand command) {
  std::set<std::string> value, switches, repeated;
  for (const FlagSpec* flag : FlagsOf(command)) {
    std::set<std::string>& names = flag->arity == kSwitch  ? switches
                                   : flag->arity == kValue ? value
                                                           : repeated;
    names.insert(std::string(flag->name));
  }
  return ParseArgs(args, value, switches, repeated);
}

std::set<std::string> ValueFlagNames(FlagCommand command) {
  std::set<std::string> names;
  for (const FlagSpec* flag : FlagsOf(command)) {
    if (flag->arity == kValue) names.insert(std::string(flag->name));
  }
  return names;
}

std::set<std::string> SwitchFlagNames(FlagCommand command) {
  std::set<std::string> names;
  for (const FlagSpec* flag : FlagsOf(command)) {
    if (flag->arity == kSwitch) names.insert(std::string(flag->name));
  }
  return names;
}

std::string FlagUsage(FlagCommand command) {
  std::vector<std::string_view> sections;
  for (const FlagSpec& flag : AllFlags()) {
    if (Listed(flag, command) && std::find(sections.begin(), sections.end(),
                                           flag.section) == sections.end()) {
      sections.push_back(flag.section);
    }
  }
  std::string usage;
  for (std::string_view section : sections) {
    if (!usage.empty()) usage += "\n";
    if (!section.empty()) absl::StrAppend(&usage, std::string(section), "\n");
    for (const FlagSpec& flag : AllFlags()) {
      if (Listed(flag, command) && flag.section == section) {
        usage += FlagLines(flag);
      }
    }
  }
  return usage;
}

}  // namespace hptune::cli

#include "src/cli/store_commands.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/store/sqlite_store.h"
#include "src/cli/flags.h"
#include "src/cli/output.h"
#include "src/cli/trial_table.h"

namespace hptune::cli {
namespace {

constexpr char kStudiesUsage[] =
    "usage: hptune studies list [--db FILE] [--format table|json|csv]\n"
    "       hptune studies describe STUDY [--db FILE] [--format ...]\n"
    "\n"
    "--db defaults to $HPTUNE_DB, else ./hptune.db.\n";
constexpr char kTrialsUsage[] =
    "usage: hptune trials list --study STUDY [--db FILE] [--format ...]\n"
    "       hptune trials describe TRIAL --study STUDY [--db FILE] "
    "[--format ...]\n"
    "\n"
    "--db defaults to $HPTUNE_DB, else ./hptune.db.\n"
    "--format table|json|csv: JSON gives AI Platform's trial shape (describe\n"
    "includes the measurements); CSV of `describe` is the learning curve.\n";

struct Context {
  ParsedArgs args;
  OutputFormat format = OutputFormat::kTable;
  std::unique_ptr<store::Store> store;
};

int ExitCodeFor(const absl::Status& status) {
  if (absl::IsNotFound(status)) return kExitNotFound;
  if (absl::IsInvalidArgument(status)) return kExitInvalid;
  return kExitFailure;
}

absl::StatusOr<ParsedArgs> ParseCommandArgs(
    const std::vector<std::string>& args) {
  return ParseArgs({args.begin() + 1, args.end()}, {"db", "format", "study"},
                   {});
}

// Reads --format and opens the database named by --db.
absl::StatusOr<Context> Prepare(ParsedArgs args) {
  Context context;
  context.args = std::move(args);
  if (auto format = context.args.Get("format")) {
    ASSIGN_OR_RETURN(context.format, ParseOutputFormat(*format));
  }
  std::string db = context.args.Get("db").value_or(
      std::getenv("HPTUNE_DB") ? std::getenv("HPTUNE_DB") : "hptune.db");
  if (!std::filesystem::exists(db)) {
    return absl::NotFoundError(absl::StrCat(
        "no study database at \"", db, "\" (pass --db FILE or set HPTUNE_DB)"));
  }
  ASSIGN_OR_RETURN(context.store, store::SqliteStore::Open(db));
  return context;
}

int Fail(const absl::Status& status, std::ostream& err) {
  err << "hptune: " << status.message() << "\n";
  return ExitCodeFor(status);
}

int UsageError(absl::string_view message, const char* usage,
               std::ostream& err) {
  err << "hptune: " << message << "\n" << usage;
  return kExitUsage;
}

// `help` only as the subcommand: elsewhere it may be a study's name.
bool WantsHelp(const std::vector<std::string>& args) {
  if (args[0] == "help") return true;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

absl::Status ListStudies(Context& c, std::ostream& out) {
  ASSIGN_OR_RETURN(auto studies, c.store->ListStudies());
  std::vector<std::vector<Trial>> trials;
  for (const auto& s : studies) {
    ASSIGN_OR_RETURN(auto t, c.store->ListTrialSummaries(s.name));
    trials.push_back(std::move(t));
  }
  PrintTable(StudiesTable(studies, trials), c.format, out);
  return absl::OkStatus();
}

absl::Status DescribeStudy(Context& c, const std::string& name,
                           std::ostream& out) {
  ASSIGN_OR_RETURN(StudyRecord study, c.store->GetStudy(name));
  ASSIGN_OR_RETURN(std::vector<Trial> trials,
                   c.store->ListTrialSummaries(name));
  if (c.format != OutputFormat::kTable) {
    PrintTrials(study.spec, trials, c.format, out);
    return absl::OkStatus();
  }
  out << "study:      " << study.name << "\n"
      << "state:      " << ToString(study.state)
      << (study.reason.empty() ? "" : " (" + study.reason + ")") << "\n"
      << "algorithm:  " << ToString(study.spec.algorithm) << " (seed "
      << study.seed << ")\n"
      << "objective:  " << ToString(study.spec.goal) << " "
      << study.spec.metric_tag << "\n"
      << "budget:     " << trials.size() << "/" << study.spec.max_trials
      << " trials, " << study.spec.max_parallel_trials << " in parallel\n"
      << "created:    " << FormatRfc3339(study.create_time) << "\n\n";
  PrintTrials(study.spec, trials, c.format, out);
  if (auto best = BestTrial(study.spec, trials)) {
    out << "\nbest trial: " << best->number << " with " << study.spec.metric_tag
        << " = "
        << ParameterValue::Double(*best->FinalObjective(study.spec.metric_tag))
               .ToString()
        << "\n";
  }
  return absl::OkStatus();
}

absl::Status ListTrials(Context& c, const std::string& study_name,
                        std::ostream& out) {
  ASSIGN_OR_RETURN(StudyRecord study, c.store->GetStudy(study_name));
  ASSIGN_OR_RETURN(std::vector<Trial> trials,
                   c.store->ListTrialSummaries(study_name));
  PrintTrials(study.spec, trials, c.format, out);
  return absl::OkStatus();
}

absl::Status DescribeTrial(Context& c, const std::string& study_name,
                           const std::string& number_text, std::ostream& out) {
  int64_t number = 0;
  try {
    size_t used = 0;
    number = std::stoll(number_text, &used);
    if (used != number_text.size()) throw std::invalid_argument("");
  } catch (const std::exception&) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TRIAL must be a trial number, got \"", number_text, "\""));
  }
  ASSIGN_OR_RETURN(StudyRecord study, c.store->GetStudy(study_name));
  ASSIGN_OR_RETURN(Trial trial, c.store->GetTrial(study_name, number));
  if (c.format == OutputFormat::kJson) {  // One document, curve included.
    PrintTrials(study.spec, {trial}, c.format, out);
    return absl::OkStatus();
  }
  if (c.format == OutputFormat::kTable) {
    PrintTrials(study.spec, {trial}, c.format, out);
  }
  Table measurements{.header = {"step", "time"}, .rows = {}};
  std::vector<std::string> metric_names;
  for (const auto& m : trial.measurements) {
    for (const auto& [name, value] : m.metrics) {
      if (std::find(metric_names.begin(), metric_names.end(), name) ==
          metric_names.end()) {
        metric_names.push_back(name);
      }
    }
  }
  for (const auto& name : metric_names) measurements.header.push_back(name);
  for (const auto& m : trial.measurements) {
    std::vector<std::string> row = {std::to_string(m.step),
                                    FormatRfc3339(m.time)};
    for (const auto& name : metric_names) {
      auto value = m.Get(name);
      row.push_back(value ? ParameterValue::Double(*value).ToString() : "");
    }
    measurements.rows.push_back(std::move(row));
  }
  if (c.format == OutputFormat::kTable) out << "\nmeasurements:\n";
  PrintTable(measurements, c.format, out);
  return absl::OkStatus();
}

// One subcommand: its name, how many positional arguments it takes,
// whether it needs --study, and what it does.
struct Subcommand {
  std::string name;
  size_t positional = 0;
  bool needs_study = false;
  std::function<absl::Status(Context&, std::ostream&)> run;
};

// Shared by `studies` and `trials`: help, then every check of the command
// line, and only then opening the database and running the subcommand.
int RunStoreCommand(const std::vector<std::string>& args, const char* usage,
                    const std::vector<Subcommand>& subcommands,
                    std::ostream& out, std::ostream& err) {
  if (args.empty()) return UsageError("missing subcommand", usage, err);
  if (WantsHelp(args)) {
    out << usage;
    return kExitOk;
  }
  auto sub = std::find_if(subcommands.begin(), subcommands.end(),
                          [&](const auto& s) { return s.name == args[0]; });
  if (sub == subcommands.end()) {
    return UsageError(absl::StrCat("unknown subcommand \"", args[0], "\""),
                      usage, err);
  }
  auto parsed = ParseCommandArgs(args);
  if (!parsed.ok()) return UsageError(parsed.status().message(), usage, err);
  if (parsed->positional.size() != sub->positional) {
    return UsageError(
        absl::StrCat(sub->name, " takes ", sub->positional,
                     " argument(s), got ", parsed->positional.size()),
        usage, err);
  }
  if (sub->needs_study && !parsed->Has("study")) {
    return UsageError("--study is required", usage, err);
  }
  auto context = Prepare(*std::move(parsed));
  if (!context.ok()) return Fail(context.status(), err);
  absl::Status status = sub->run(*context, out);
  return status.ok() ? kExitOk : Fail(status, err);
}

}  // namespace

int RunStudiesCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  std::vector<Subcommand> subcommands = {
      {"list", 0, false,
       [](Context& c, std::ostream& o) { return ListStudies(c, o); }},
      {"describe", 1, false,
       [](Context& c, std::ostream& o) {
         return DescribeStudy(c, c.args.positional[0], o);
       }},
  };
  return RunStoreCommand(args, kStudiesUsage, subcommands, out, err);
}

int RunTrialsCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  std::vector<Subcommand> subcommands = {
      {"list", 0, true,
       [](Context& c, std::ostream& o) {
         return ListTrials(c, *c.args.Get("study"), o);
       }},
      {"describe", 1, true,
       [](Context& c, std::ostream& o) {
         return DescribeTrial(c, *c.args.Get("study"), c.args.positional[0], o);
       }},
  };
  return RunStoreCommand(args, kTrialsUsage, subcommands, out, err);
}

}  // namespace hptune::cli

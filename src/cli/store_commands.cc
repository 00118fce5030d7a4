#include "src/cli/store_commands.h"

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
    "--db defaults to $HPTUNE_DB, else ./hptune.db.\n";

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

bool WantsHelp(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--help" || a == "-h" || a == "help") return true;
  }
  return false;
}

absl::Status ListStudies(Context& c, std::ostream& out) {
  ASSIGN_OR_RETURN(auto studies, c.store->ListStudies());
  std::vector<std::vector<Trial>> trials;
  for (const auto& s : studies) {
    ASSIGN_OR_RETURN(auto t, c.store->ListTrials(s.name));
    trials.push_back(std::move(t));
  }
  PrintTable(StudiesTable(studies, trials), c.format, out);
  return absl::OkStatus();
}

absl::Status DescribeStudy(Context& c, const std::string& name,
                           std::ostream& out) {
  ASSIGN_OR_RETURN(StudyRecord study, c.store->GetStudy(name));
  ASSIGN_OR_RETURN(std::vector<Trial> trials, c.store->ListTrials(name));
  if (c.format != OutputFormat::kTable) {
    PrintTable(TrialsTable(study.spec, trials), c.format, out);
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
  PrintTable(TrialsTable(study.spec, trials), c.format, out);
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
  ASSIGN_OR_RETURN(std::vector<Trial> trials, c.store->ListTrials(study_name));
  PrintTable(TrialsTable(study.spec, trials), c.format, out);
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
  PrintTable(TrialsTable(study.spec, {trial}), c.format, out);
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

// What a subcommand did: ran (with `status`), or could not make sense of
// its arguments (`usage_error`, a usage message to print).
struct Outcome {
  absl::Status status;
  std::string usage_error;
};
using Action = std::function<Outcome(Context&, std::ostream&)>;

// Shared by `studies` and `trials`: help, flag parsing, opening the database,
// then `action`; maps the result to an exit code.
int RunStoreCommand(const std::vector<std::string>& args, const char* usage,
                    const Action& action, std::ostream& out,
                    std::ostream& err) {
  if (args.empty()) return UsageError("missing subcommand", usage, err);
  if (WantsHelp(args)) {
    out << usage;
    return kExitOk;
  }
  auto parsed = ParseCommandArgs(args);
  if (!parsed.ok()) return UsageError(parsed.status().message(), usage, err);
  auto context = Prepare(*std::move(parsed));
  if (!context.ok()) return Fail(context.status(), err);
  Outcome outcome = action(*context, out);
  if (!outcome.usage_error.empty()) {
    return UsageError(outcome.usage_error, usage, err);
  }
  return outcome.status.ok() ? kExitOk : Fail(outcome.status, err);
}

}  // namespace

int RunStudiesCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  auto action = [&](Context& c, std::ostream& o) -> Outcome {
    const auto& positional = c.args.positional;
    if (args[0] == "list" && positional.empty()) {
      return {ListStudies(c, o), ""};
    }
    if (args[0] == "describe" && positional.size() == 1) {
      return {DescribeStudy(c, positional[0], o), ""};
    }
    return {absl::OkStatus(), "bad arguments for studies " + args[0]};
  };
  return RunStoreCommand(args, kStudiesUsage, action, out, err);
}

int RunTrialsCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  auto action = [&](Context& c, std::ostream& o) -> Outcome {
    auto study = c.args.Get("study");
    if (!study) return {absl::OkStatus(), "--study is required"};
    const auto& positional = c.args.positional;
    if (args[0] == "list" && positional.empty()) {
      return {ListTrials(c, *study, o), ""};
    }
    if (args[0] == "describe" && positional.size() == 1) {
      return {DescribeTrial(c, *study, positional[0], o), ""};
    }
    return {absl::OkStatus(), "bad arguments for trials " + args[0]};
  };
  return RunStoreCommand(args, kTrialsUsage, action, out, err);
}

}  // namespace hptune::cli

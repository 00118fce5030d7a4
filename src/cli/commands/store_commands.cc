#include "src/cli/commands/store_commands.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "src/cli/client/connection.h"
#include "src/cli/client/rpc_errors.h"
#include "src/cli/client/study_reader.h"
#include "src/cli/flags.h"
#include "src/cli/importance_table.h"
#include "src/cli/output.h"
#include "src/cli/runtime.h"
#include "src/cli/trial_table.h"

namespace hptune::cli {
namespace {

constexpr char kSourceHelp[] =
    "Studies are read from the hptune server (`hptune serve`; a job's study\n"
    "is named by its job ID), or from a study database with --db FILE (or\n"
    "$HPTUNE_DB): the file `hptune run` writes, read without a server.\n"
    "\n";
constexpr char kStudiesUsage[] =
    "usage: hptune studies list [--db FILE | --server ADDR] "
    "[--format table|json|csv]\n"
    "       hptune studies describe STUDY [--db FILE | --server ADDR] "
    "[--format ...]\n"
    "       hptune studies importance STUDY [--db FILE | --server ADDR] "
    "[--format ...]\n"
    "       hptune studies delete STUDY [--db FILE | --server ADDR]\n"
    "\n"
    "list: one row per study (state, algorithm, goal, trials, best).\n"
    "describe: the study's settings, its trials and the best trial.\n"
    "importance: how much each parameter decides reaching the study's best\n"
    "10% of trials, at least 15 (PED-ANOVA; the importances sum to 1), each\n"
    "with a 90% bootstrap interval; a note when there are too few trials.\n"
    "delete: removes the study and its trials for good; refused while the\n"
    "study's job has not ended (cancel it first), and on a file that\n"
    "`hptune serve` holds (delete through the server).\n";
constexpr char kTrialsUsage[] =
    "usage: hptune trials list --study STUDY [--db FILE | --server ADDR] "
    "[--format ...]\n"
    "       hptune trials describe TRIAL --study STUDY [--db FILE | "
    "--server ADDR] [--format ...]\n"
    "\n"
    "--format table|json|csv: JSON gives AI Platform's trial shape (describe\n"
    "includes the measurements); CSV of `list` (an export of every trial)\n"
    "adds startTime and endTime; CSV of `describe` is the learning curve.\n"
    "`list --format vertex` gives Vertex AI's Trial list: id, state,\n"
    "parameters, finalMeasurement, startTime, endTime, infeasibleReason.\n";
constexpr char kStoreFlagsHelp[] =
    "  --study STUDY             the study (a job's study is its job ID)\n"
    "  --format table|json|csv   default table\n"
    "  --db FILE                 a study database (default $HPTUNE_DB; none:\n"
    "                            ask the server)\n";
constexpr char kStudiesExample[] =
    "\n"
    "Examples:\n"
    "  hptune studies list\n"
    "  hptune studies describe mnist_1 --db hptune.db\n"
    "  hptune studies importance mnist_1 --db hptune.db\n"
    "  hptune studies delete mnist_1 --db hptune.db\n";
constexpr char kTrialsExample[] =
    "\n"
    "Examples:\n"
    "  hptune trials list --study mnist_1 --format csv > trials.csv\n"
    "  hptune trials describe 3 --study mnist_1 --format json\n";

struct StoreContext {
  ParsedArgs args;
  OutputFormat format = OutputFormat::kTable;
  std::unique_ptr<client::StudyReader> reader;
  std::string db_path;            // The database read; empty: the server.
  store::Store* store = nullptr;  // Its store, owned by `reader`.
};

std::string FullUsage(const char* usage, const char* example) {
  return absl::StrCat(usage, "\n", kSourceHelp, kStoreFlagsHelp, "\n",
                      client::kConnectionHelp, example);
}

absl::StatusOr<ParsedArgs> ParseCommandArgs(
    const std::vector<std::string>& args) {
  std::set<std::string> flags = {"db", "format", "study"};
  flags.insert(client::ConnectionFlags().begin(),
               client::ConnectionFlags().end());
  return ParseArgs({args.begin() + 1, args.end()}, flags, {});
}

// Reads --format and picks the source: the database named by --db (or
// $HPTUNE_DB unless --server is given), else the server.
absl::StatusOr<StoreContext> Prepare(ParsedArgs args, bool vertex) {
  StoreContext context;
  context.args = std::move(args);
  if (auto format = context.args.Get("format")) {
    HPTUNE_ASSIGN_OR_RETURN(context.format, ParseOutputFormat(*format, vertex));
  }
  const bool from_env = !context.args.Has("db") &&
                        !context.args.Has("server") && std::getenv("HPTUNE_DB");
  if (!context.args.Has("db") && !from_env) {
    HPTUNE_ASSIGN_OR_RETURN(
        client::ServerConnection server,
        client::Connect(DefaultEnv(), context.args, ProcessEnv()));
    context.reader = client::ServerStudyReader(std::move(server));
    return context;
  }
  std::variant<Runtime, RuntimeError> made = MakeRuntime(
      RuntimeOptionsFromFlags(StoreUse::kRead, context.args, ProcessEnv()));
  if (const RuntimeError* e = std::get_if<RuntimeError>(&made)) {
    return e->status;
  }
  Runtime& runtime = std::get<Runtime>(made);
  context.store = runtime.store.get();
  context.reader =
      client::StoreStudyReader(std::move(runtime.store), runtime.env->clock());
  context.db_path = runtime.db;
  return context;
}

int Fail(const absl::Status& status, std::ostream& err) {
  err << "hptune: " << status.message() << "\n";
  return client::ExitCodeForStatus(status);
}

int UsageError(absl::string_view message, const std::string& usage,
               std::ostream& err) {
  err << "hptune: " << message << "\n" << usage;
  return kExitUsage;
}

// `help` only as the subcommand: elsewhere it may be a study's name.
bool WantsStoreHelp(const std::vector<std::string>& args) {
  if (args[0] == "help") return true;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

absl::Status ListStudies(StoreContext& c, std::ostream& out) {
  HPTUNE_ASSIGN_OR_RETURN(auto studies, c.reader->ListStudies());
  std::vector<std::vector<Trial>> trials, optimal;
  for (const auto& s : studies) {
    HPTUNE_ASSIGN_OR_RETURN(auto t, c.reader->ListTrials(s.name));
    trials.push_back(std::move(t));
    HPTUNE_ASSIGN_OR_RETURN(auto o, c.reader->OptimalTrials(s.name));
    optimal.push_back(std::move(o));
  }
  PrintTable(StudiesTable(studies, trials, optimal), c.format, out);
  return absl::OkStatus();
}

std::set<int64_t> NumbersOf(const std::vector<Trial>& trials) {
  std::set<int64_t> numbers;
  for (const Trial& t : trials) numbers.insert(t.number);
  return numbers;
}

// The numbers of the study's optimal trials, for the trial tables, which
// mark them only for a study with a `metrics` list: the read side is asked
// only then.
absl::StatusOr<std::set<int64_t>> MarkedOptimal(StoreContext& c,
                                                const StudyRecord& study) {
  if (!study.spec.metrics_listed()) return std::set<int64_t>();
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                          c.reader->OptimalTrials(study.name));
  return NumbersOf(optimal);
}

// A note as a terminal may show it: it is untrusted text, so control
// characters (an escape sequence could rewrite the screen) become '?';
// each line indented under "note:".
std::string NoteForTerminal(std::string_view note) {
  std::string out = "note:\n  ";
  for (const char c : note) {
    if (c == '\n') {
      out += "\n  ";
    } else {
      const bool control = static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      out.push_back(control && c != '\t' ? '?' : c);
    }
  }
  return out + "\n";
}

absl::Status DescribeStudy(StoreContext& c, const std::string& name,
                           std::ostream& out) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, c.reader->GetStudy(name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          c.reader->ListTrials(name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                          c.reader->OptimalTrials(name));
  if (c.format != OutputFormat::kTable) {
    PrintTrials(study.spec, trials, NumbersOf(optimal), c.format, out);
    return absl::OkStatus();
  }
  out << "study:      " << study.name << "\n"
      << "state:      " << ToString(study.state)
      << (study.reason.empty() ? "" : " (" + study.reason + ")") << "\n"
      << "algorithm:  " << ToString(study.spec.algorithm) << " (seed "
      << study.seed << ")\n"
      << (study.spec.metrics_listed() ? "metrics:    " : "objective:  ")
      << MetricsText(study.spec) << "\n"
      << "budget:     " << trials.size() << "/" << study.TrialBudget()
      << " trials, " << study.spec.max_parallel_trials << " in parallel\n"
      << "created:    " << FormatRfc3339(study.create_time) << "\n";
  HPTUNE_ASSIGN_OR_RETURN(std::string note, c.reader->GetStudyNote(name));
  if (!note.empty()) out << NoteForTerminal(note);
  out << "\n";
  PrintTrials(study.spec, trials, NumbersOf(optimal), c.format, out);
  // With one objective, the one optimal trial is the best.
  if (study.spec.Objectives().size() > 1) {
    if (!optimal.empty()) {
      out << "\noptimal trials (the feasible Pareto front): "
          << absl::StrJoin(NumbersOf(optimal), ", ") << "\n";
    }
  } else if (!optimal.empty()) {
    const Trial& best = optimal.front();
    out << "\nbest trial: " << best.number << " with "
        << study.spec.metric_tag() << " = "
        << ParameterValue::Double(*best.FinalObjective(study.spec.metric_tag()))
               .ToString()
        << "\n";
  }
  return absl::OkStatus();
}

// The read side's report: with --server the server's, not computed here.
absl::Status StudyImportance(StoreContext& c, const std::string& name,
                             std::ostream& out) {
  HPTUNE_ASSIGN_OR_RETURN(algorithms::ImportanceReport report,
                          c.reader->Importance(name));
  PrintImportance(name, report, algorithms::ImportanceOptions(), c.format, out);
  return absl::OkStatus();
}

// On a file, as a run does: beside other runs (whose running jobs the
// engine's check names), never under a server, whose engine would keep the
// deleted study's history.
absl::Status DeleteStudy(StoreContext& c, const std::string& name,
                         std::ostream& out) {
  std::unique_ptr<store::RunnerLease> lease;
  if (c.store != nullptr) {
    absl::StatusOr<std::unique_ptr<store::RunnerLease>> held =
        c.store->AcquireRunnerLease(store::RunnerHolder::kRun, "");
    if (absl::IsUnavailable(held.status())) {
      return absl::FailedPreconditionError(
          absl::StrCat("database \"", store::PrintableStoreUrl(c.db_path),
                       "\" is served by hptune serve: delete through it, with "
                       "`hptune studies delete ",
                       name, " --server ADDR`"));
    }
    if (!held.ok()) return held.status();
    lease = *std::move(held);
  }
  HPTUNE_RETURN_IF_ERROR(c.reader->DeleteStudy(name));
  out << "deleted study " << name << "\n";
  return absl::OkStatus();
}

absl::Status ListTrials(StoreContext& c, const std::string& study_name,
                        std::ostream& out) {
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, c.reader->GetStudy(study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                          c.reader->ListTrials(study_name));
  HPTUNE_ASSIGN_OR_RETURN(std::set<int64_t> optimal, MarkedOptimal(c, study));
  if (c.format != OutputFormat::kCsv) {
    PrintTrials(study.spec, trials, optimal, c.format, out);
    return absl::OkStatus();
  }
  // An export: the times too, which the on-screen table leaves out.
  Table table = TrialsTable(study.spec, trials, optimal);
  table.header.push_back("startTime");
  table.header.push_back("endTime");
  for (size_t i = 0; i < trials.size(); ++i) {
    const Trial& t = trials[i];
    table.rows[i].push_back(t.start_time ? FormatRfc3339(*t.start_time) : "");
    table.rows[i].push_back(t.end_time ? FormatRfc3339(*t.end_time) : "");
  }
  PrintTable(table, c.format, out);
  return absl::OkStatus();
}

absl::Status DescribeTrial(StoreContext& c, const std::string& study_name,
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
  HPTUNE_ASSIGN_OR_RETURN(StudyRecord study, c.reader->GetStudy(study_name));
  HPTUNE_ASSIGN_OR_RETURN(Trial trial, c.reader->GetTrial(study_name, number));
  HPTUNE_ASSIGN_OR_RETURN(std::set<int64_t> optimal, MarkedOptimal(c, study));
  if (c.format == OutputFormat::kJson) {  // One document, curve included.
    PrintTrials(study.spec, {trial}, optimal, c.format, out);
    return absl::OkStatus();
  }
  if (c.format == OutputFormat::kTable) {
    PrintTrials(study.spec, {trial}, optimal, c.format, out);
  }
  // Every attempt's reports, each with its attempt (the curve the stopping
  // rules judge is the last attempt's).
  Table measurements{.header = {"attempt", "step", "time"}, .rows = {}};
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
    std::vector<std::string> row = {
        m.attempt != 0 ? std::to_string(m.attempt) : "", std::to_string(m.step),
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
struct StoreSubcommand {
  std::string name;
  size_t positional = 0;
  bool needs_study = false;
  std::function<absl::Status(StoreContext&, std::ostream&)> run;
  bool vertex_format = false;  // Takes --format vertex.
};

// Shared by `studies` and `trials`: help, then every check of the command
// line, and only then opening the database and running the subcommand.
int RunStoreCommand(const std::vector<std::string>& args,
                    const std::string& usage,
                    const std::vector<StoreSubcommand>& subcommands,
                    std::ostream& out, std::ostream& err) {
  if (args.empty()) return UsageError("missing subcommand", usage, err);
  if (WantsStoreHelp(args)) {
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
  if (parsed->Has("db") && parsed->Has("server")) {
    return UsageError("give --db FILE or --server ADDR, not both", usage, err);
  }
  auto context = Prepare(*std::move(parsed), sub->vertex_format);
  if (!context.ok()) return Fail(context.status(), err);
  absl::Status status = sub->run(*context, out);
  if (status.ok()) return kExitOk;
  // Before the server path, these commands read ./hptune.db by default:
  // point there when no server answers.
  if (absl::IsUnavailable(status) && !context->args.Has("server") &&
      DefaultEnv().Exists("hptune.db")) {
    status = absl::UnavailableError(absl::StrCat(
        status.message(), "\n  (or read ./hptune.db with --db hptune.db)"));
  }
  return Fail(status, err);
}

}  // namespace

int RunStudiesCommand(const std::vector<std::string>& args, std::ostream& out,
                      std::ostream& err) {
  std::vector<StoreSubcommand> subcommands = {
      {"list", 0, false,
       [](StoreContext& c, std::ostream& o) { return ListStudies(c, o); }},
      {"describe", 1, false,
       [](StoreContext& c, std::ostream& o) {
         return DescribeStudy(c, c.args.positional[0], o);
       }},
      {"importance", 1, false,
       [](StoreContext& c, std::ostream& o) {
         return StudyImportance(c, c.args.positional[0], o);
       }},
      {"delete", 1, false,
       [](StoreContext& c, std::ostream& o) {
         return DeleteStudy(c, c.args.positional[0], o);
       }},
  };
  return RunStoreCommand(args, FullUsage(kStudiesUsage, kStudiesExample),
                         subcommands, out, err);
}

int RunTrialsCommand(const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  std::vector<StoreSubcommand> subcommands = {
      {"list", 0, true,
       [](StoreContext& c, std::ostream& o) {
         return ListTrials(c, *c.args.Get("study"), o);
       },
       /*vertex_format=*/true},
      {"describe", 1, true,
       [](StoreContext& c, std::ostream& o) {
         return DescribeTrial(c, *c.args.Get("study"), c.args.positional[0], o);
       }},
  };
  return RunStoreCommand(args, FullUsage(kTrialsUsage, kTrialsExample),
                         subcommands, out, err);
}

}  // namespace hptune::cli

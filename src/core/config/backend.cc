#include "src/core/config/backend.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "src/core/config/text.h"

namespace hptune {
namespace {

// What a Slurm launcher passes to sbatch itself (slurm_submission.cc): the
// job's name, comment and output are how it finds and reads the job again,
// the task counts and sizes come from the machine types, and the rest would
// replace the batch script, block sbatch or hold the job.
const std::vector<std::string>& ReservedSbatchOptions() {
  static const auto* const kReserved =
      new std::vector<std::string>{"--job-name",
                                   "-J",
                                   "--comment",
                                   "--output",
                                   "-o",
                                   "--error",
                                   "-e",
                                   "--open-mode",
                                   "--export",
                                   "--parsable",
                                   "--ntasks",
                                   "-n",
                                   "--mem",
                                   "--cpus-per-task",
                                   "-c",
                                   "--mem-per-cpu",
                                   "--gpus-per-task",
                                   "--wrap",
                                   "--array",
                                   "-a",
                                   "--chdir",
                                   "-D",
                                   "--wait",
                                   "-W",
                                   "--hold",
                                   "-H",
                                   "--test-only"};
  return *kReserved;
}

// The reserved option that `name` stands for, or "". sbatch reads long
// options with getopt_long, which takes any unambiguous prefix ("--out" is
// --output), so a prefix of a reserved name counts as that name.
std::string ReservedAs(const std::string& name) {
  for (const std::string& reserved : ReservedSbatchOptions()) {
    const bool long_prefix = name.size() > 2 && name.rfind("--", 0) == 0 &&
                             reserved.rfind(name, 0) == 0;
    if (name == reserved || long_prefix) return reserved;
  }
  return "";
}

// The option's name: up to '=' for a long one, the first two characters of
// a short one ("-pgpu" is -p with "gpu").
std::string OptionName(const std::string& option) {
  if (option.rfind("--", 0) == 0) return option.substr(0, option.find('='));
  return option.substr(0, 2);
}

bool IsOneWord(const std::string& text) {
  for (char c : text) {
    if (!absl::ascii_isgraph(static_cast<unsigned char>(c))) return false;
  }
  return !text.empty();
}

// One to three colon-separated runs of digits.
bool IsClock(const std::string& text) {
  int fields = 1;
  bool digit_before = false;
  for (char c : text) {
    if (c == ':') {
      if (!digit_before) return false;
      ++fields;
      digit_before = false;
    } else if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      digit_before = true;
    } else {
      return false;
    }
  }
  return digit_before && fields <= 3;
}

// sbatch --time's forms (sbatch(1)): "minutes", "minutes:seconds",
// "hours:minutes:seconds", "days-hours", "days-hours:minutes",
// "days-hours:minutes:seconds", and UNLIMITED or INFINITE.
bool IsSlurmTime(const std::string& text) {
  if (text == "UNLIMITED" || text == "INFINITE") return true;
  const size_t dash = text.find('-');
  if (dash == std::string::npos) return IsClock(text);
  const std::string days = text.substr(0, dash);
  return days.find(':') == std::string::npos && IsClock(days) &&
         IsClock(text.substr(dash + 1));
}

}  // namespace

std::vector<FieldError> ValidateSlurmJobOptions(const SlurmJobOptions& slurm,
                                                std::string_view prefix) {
  using config_internal::Quote;
  std::vector<FieldError> errors;
  auto field = [&](const std::string& name) {
    return prefix.empty() ? name : std::string(prefix) + "." + name;
  };
  auto add = [&](std::string path, std::string message) {
    errors.push_back(FieldError{std::move(path), std::move(message)});
  };
  for (const auto& [name, value] : {std::pair{"partition", &slurm.partition},
                                    std::pair{"account", &slurm.account}}) {
    if (!value->empty() && !IsOneWord(*value)) {
      add(field(name),
          "must be one word of printable characters, got " + Quote(*value));
    }
  }
  if (!slurm.time.empty() && !IsSlurmTime(slurm.time)) {
    add(field("time"),
        "must be a Slurm time limit (minutes, hours:minutes:seconds, "
        "days-hours:minutes, ... or UNLIMITED), got " +
            Quote(slurm.time));
  }
  for (size_t i = 0; i < slurm.options.size(); ++i) {
    const std::string& option = slurm.options[i];
    const std::string path = field("options") + "[" + std::to_string(i) + "]";
    if (option.size() < 2 || option[0] != '-' ||
        option.find_first_of("\n\r") != std::string::npos) {
      add(path,
          "must be one sbatch option such as --qos=high, got " + Quote(option));
      continue;
    }
    const std::string reserved = ReservedAs(OptionName(option));
    if (!reserved.empty()) {
      add(path, "hptune sets " + reserved + " itself for each trial; got " +
                    Quote(option));
    }
  }
  return errors;
}

namespace config_internal {
namespace {

const FieldSet& SlurmFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"partition", "account", "time", "options"},
      .unsupported = {},
      .hints = {{"timeLimit", "time"},
                {"time_limit", "time"},
                {"sbatchOptions", "options"},
                {"extraOptions", "options"}},
  };
  return *kFields;
}

}  // namespace

void ReadBackend(MapReader& root, BackendConfig* backend) {
  if (auto name = root.String("backend")) {
    backend->backend_named = true;
    if (*name == "local" || *name == "slurm") {
      backend->backend = *name;
    } else {
      root.Error("backend", "must be local or slurm, got " + Quote(*name));
    }
  }
  const ConfigNode* slurm = root.Find("slurm");
  if (slurm == nullptr || !ExpectMap(*slurm, "slurm", root.sink())) return;
  MapReader reader(*slurm, "slurm", SlurmFields(), root.sink());
  SlurmJobOptions& options = backend->slurm;
  if (auto v = reader.String("partition")) options.partition = *v;
  if (auto v = reader.String("account")) options.account = *v;
  if (auto v = reader.String("time")) options.time = *v;
  if (auto v = reader.StringList("options")) options.options = *v;
  for (FieldError& error : ValidateSlurmJobOptions(options, "slurm")) {
    root.sink().Add(*slurm, std::move(error.field), std::move(error.message));
  }
}

}  // namespace config_internal
}  // namespace hptune

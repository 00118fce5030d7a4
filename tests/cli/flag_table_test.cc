// The flag table (src/cli/flag_table.h): parsing, usage and overrides read
// from it, and docs/cli.md naming the flags it gives each command.
#include "src/cli/flag_table.h"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/cli/spec_overrides.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::map<FlagCommand, std::string>& Commands() {
  static const auto* const kCommands =
      new std::map<FlagCommand, std::string>{{kRunCommand, "run"},
                                             {kServeCommand, "serve"},
                                             {kDashboardCommand, "dashboard"},
                                             {kSubmitCommand, "jobs submit"}};
  return *kCommands;
}

TEST(FlagTableTest, NoCommandTakesAFlagTwiceAndEveryOverrideHasItsField) {
  for (const auto& [command, name] : Commands()) {
    std::set<std::string_view> seen;
    for (const FlagSpec* flag : FlagsOf(command)) {
      EXPECT_TRUE(seen.insert(flag->name).second)
          << name << " --" << flag->name;
      EXPECT_FALSE(flag->help.empty()) << flag->name;
    }
  }
  for (const FlagSpec& flag : AllFlags()) {
    EXPECT_EQ(flag.field.empty(), flag.apply == nullptr) << flag.name;
  }
}

TEST(FlagTableTest, ACommandParsesItsSwitchesValuesAndRepeatedFlags) {
  auto parsed = ParseFlags(
      {"--allow-command", "/opt/", "--db=h.db", "--allow-command=python3:/srv/",
       "--share-jobs", "--db", "last.db"},
      kServeCommand);
  ASSERT_OK(parsed);
  EXPECT_EQ(parsed->GetAll("allow-command"),
            (std::vector<std::string>{"/opt/", "python3:/srv/"}));
  EXPECT_EQ(parsed->Get("db"), "last.db");
  EXPECT_TRUE(parsed->Has("share-jobs"));
  EXPECT_TRUE(parsed->GetAll("allow-env").empty());

  // Each command takes its own rows only.
  EXPECT_EQ(ParseFlags({"--listen", "x"}, kRunCommand).status().message(),
            "unknown flag --listen");
  EXPECT_EQ(ParseFlags({"--quiet"}, kDashboardCommand).status().message(),
            "unknown flag --quiet");
  EXPECT_EQ(ParseFlags({"--slurm-option"}, kRunCommand).status().message(),
            "flag --slurm-option needs a value");
  EXPECT_EQ(ParseFlags({"--quiet=maybe"}, kRunCommand).status().message(),
            "flag --quiet takes no value (or true/false), got maybe");
  EXPECT_OK(ParseFlags({"--max-trials", "3", "--pull-images"}, kRunCommand));
  // A near miss is named with the flag meant.
  EXPECT_EQ(ParseFlags({"--max-trails", "3"}, kRunCommand).status().message(),
            "unknown flag --max-trails (did you mean --max-trials?)");
  EXPECT_EQ(
      ParseFlags({"--paralel-trial-count=2"}, kRunCommand).status().message(),
      "unknown flag --paralel-trial-count (did you mean "
      "--parallel-trial-count?)");
}

TEST(FlagTableTest, TheUsageListsWhatACommandTakesWithin78Columns) {
  for (const auto& [command, name] : Commands()) {
    const std::string usage = FlagUsage(command);
    for (const FlagSpec* flag : FlagsOf(command)) {
      // The name, then its value, its help, or (too long) a line end.
      const std::string listed = "  --" + std::string(flag->name);
      const bool shown = absl::StrContains(usage, listed + " ") ||
                         absl::StrContains(usage, listed + "\n");
      if ((flag->commands & command) != 0) {
        EXPECT_TRUE(shown) << name << " lists no " << listed;
      } else {
        EXPECT_FALSE(shown) << name << " refuses " << listed;
      }
    }
    for (absl::string_view line : absl::StrSplit(usage, '\n')) {
      EXPECT_LE(line.size(), 78u) << name << ": " << line;
    }
  }
  // An override names its field; a flag the command refuses is parsed.
  EXPECT_THAT(FlagUsage(kSubmitCommand),
              HasSubstr("  --max-trials N            maxTrials: "));
  EXPECT_TRUE(ValueFlagNames(kSubmitCommand).contains("slurm-allocation"));
}

TEST(FlagTableTest, TheOverridesAreAppliedRowByRow) {
  JobSpec job;
  job.job_id = "j";
  job.study = StudySpec{};
  auto args = ParseFlags({"--max-trials", "7", "--job-dir", "out",
                          "--early-stopping", "asha", "--", "--epochs=2"},
                         kRunCommand);
  ASSERT_OK(args);
  ASSERT_OK(ApplyOverrides(*args, "/home/u", job));
  EXPECT_EQ(job.study->max_trials, 7);
  EXPECT_EQ(job.job_dir, "/home/u/out");
  EXPECT_EQ(job.study->early_stopping_rule, "asha");
  EXPECT_EQ(job.args, (std::vector<std::string>{"--epochs=2"}));
}

// The section of docs/cli.md titled `heading`, up to the next "## ".
std::string DocsSection(const std::string& heading) {
  std::ifstream file(std::string(HPTUNE_SOURCE_DIR) + "/docs/cli.md");
  std::stringstream text;
  text << file.rdbuf();
  const std::string docs = text.str();
  const size_t start = docs.find("\n## " + heading + "\n");
  if (start == std::string::npos) return "";
  return docs.substr(start, docs.find("\n## ", start + 1) - start);
}

// The flags a flag table of the section lists in its first column.
std::set<std::string> DocumentedRows(const std::string& section) {
  std::set<std::string> flags;
  const std::regex flag("--([a-z][a-z0-9-]*)");
  for (absl::string_view line : absl::StrSplit(section, '\n')) {
    if (!absl::StartsWith(line, "| `--")) continue;
    const std::string cell(line.substr(1, line.find('|', 1) - 1));
    for (std::sregex_iterator it(cell.begin(), cell.end(), flag), end;
         it != end; ++it) {
      flags.insert((*it)[1]);
    }
  }
  return flags;
}

TEST(FlagTableTest, DocsCliNamesEveryFlagTheTableGivesACommand) {
  for (const auto& [command, name] : Commands()) {
    const std::string section = DocsSection("hptune " + name);
    ASSERT_FALSE(section.empty()) << name;
    for (const FlagSpec* flag : FlagsOf(command)) {
      if (flag->name == "help" || (flag->commands & command) == 0) continue;
      EXPECT_TRUE(absl::StrContains(section, "--" + std::string(flag->name)))
          << "docs/cli.md's hptune " << name << " names no --" << flag->name;
    }
  }
  // And the flags tables of run and serve list no flag the command lacks.
  for (FlagCommand command : {kRunCommand, kServeCommand}) {
    const std::set<std::string> taken = [&] {
      std::set<std::string> names;
      for (const FlagSpec* flag : FlagsOf(command)) {
        names.insert(std::string(flag->name));
      }
      return names;
    }();
    for (const std::string& documented :
         DocumentedRows(DocsSection("hptune " + Commands().at(command)))) {
      EXPECT_TRUE(taken.contains(documented))
          << "docs/cli.md documents --" << documented << " for "
          << Commands().at(command);
    }
  }
}

}  // namespace
}  // namespace hptune::cli

// What a user sees when something is wrong (architecture.md, "Errors"): a
// message that names the thing and the value, never a stack trace or a
// bare "invalid", and an exit code, never a crash. Mistakes of every kind
// go through the hptune binary's commands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"
#include "tests/testing/run_process.h"

namespace hptune {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What crashes and uncaught exceptions print, here or in a sanitizer build.
const std::vector<std::string> kTraceMarks = {
    "terminate called",   "what():",       "Aborted",
    "Segmentation fault", "stack trace",   "Stack trace",
    "backtrace",          "#0 ",           "#1 ",
    "AddressSanitizer",   "runtime error:"};

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A line whose message, after its "hptune ...: " prefix or a "field: "
// before it, is only "invalid" (or "invalid argument", "invalid value").
bool IsBareInvalid(const std::string& line) {
  const size_t colon = line.rfind(": ");
  std::string message =
      Lower(colon == std::string::npos ? line : line.substr(colon + 2));
  while (!message.empty() && (message.back() == '.' || message.back() == ' '))
    message.pop_back();
  return message == "invalid" || message == "invalid argument" ||
         message == "invalid value" || message == "invalid input";
}

struct Mistake {
  std::vector<std::string> args;  // After the binary.
  std::string names;              // What the message must name.
};

TEST(ErrorMessagesTest, MistakesGetAMessageNamingThemNeverATrace) {
  const std::string dir = testing::MakeTempDir();
  std::ofstream(dir + "/not.db") << "hello\n";
  std::ofstream(dir + "/malformed.yaml") << "trainingInput: [1, 2\n";
  std::ofstream(dir + "/types.yaml")
      << "trainingInput:\n  hyperparameters:\n    maxTrials: many\n";
  std::ofstream(dir + "/log.yaml")
      << "trainingInput:\n  hyperparameters:\n    goal: MAXIMIZE\n"
      << "    hyperparameterMetricTag: a\n    maxTrials: 2\n    params:\n"
      << "      - {parameterName: lr, type: DOUBLE, minValue: -1, maxValue: 1,"
      << " scaleType: UNIT_LOG_SCALE}\n";
  std::string good = testing::ReadFileOrEmpty(dir + "/log.yaml");
  good.replace(good.find("minValue: -1"), 12, "minValue: 0.001");
  std::ofstream(dir + "/good.yaml") << good;
  const std::string unused = "127.0.0.1:1";
  const std::vector<Mistake> mistakes = {
      {{"frobnicate"}, "\"frobnicate\""},
      {{"validate", dir + "/missing.yaml"}, "missing.yaml"},
      {{"validate", dir + "/malformed.yaml"}, "line 2, column 1"},
      {{"validate", dir + "/types.yaml"},
       "maxTrials: must be an integer, got "
       "\"many\""},
      {{"validate", dir + "/log.yaml"}, "got -1"},
      {{"run", dir + "/types.yaml", "--db", dir + "/h.db"}, "\"many\""},
      {{"run", dir + "/good.yaml", "--max-trials", "0"}, "\"0\""},
      {{"run", dir + "/good.yaml", "--gpus", "3:x"}, "\"3:x\""},
      {{"run", dir + "/good.yaml", "--early-stopping", "soon"}, "soon"},
      {{"run", dir + "/good.yaml", "--bogus"}, "--bogus"},
      {{"trials", "list", "--study", "s", "--db", dir + "/not.db"}, "not.db"},
      {{"studies", "list", "--db", dir + "/missing.db"}, "missing.db"},
      {{"serve", "--listen", "nonsense", "--db", dir + "/s.db"}, "nonsense"},
      {{"serve", "--tls-cert", dir + "/not.db", "--db", dir + "/s.db"},
       "--tls-cert"},
      {{"dashboard", "--db", dir + "/missing.db"}, "missing.db"},
      {{"jobs", "submit", "j", "--config", dir + "/types.yaml", "--server",
        unused},
       "\"many\""},
      {{"jobs", "submit", "9j", "--config", dir + "/good.yaml", "--server",
        unused},
       "9j"},
      {{"jobs", "list", "--limit", "0", "--server", unused}, "\"0\""},
      {{"jobs", "describe", "j", "--server", unused}, unused},
  };
  for (const Mistake& mistake : mistakes) {
    std::vector<std::string> argv = {testing::HptuneBinary()};
    argv.insert(argv.end(), mistake.args.begin(), mistake.args.end());
    const testing::ProcessResult result = testing::RunProcess(argv);
    const std::string what = "hptune " + mistake.args[0] + " " +
                             (mistake.args.size() > 1 ? mistake.args[1] : "");
    // An exit code of the docs: not killed by a signal, not a shell's.
    EXPECT_GT(result.exit_code, 0) << what << "\n" << result.err;
    EXPECT_LT(result.exit_code, 100) << what << "\n" << result.err;
    EXPECT_THAT(result.err, HasSubstr(mistake.names)) << what;
    for (const std::string& mark : kTraceMarks) {
      EXPECT_THAT(result.out + result.err, Not(HasSubstr(mark))) << what << "\n"
                                                                 << result.err;
    }
    std::istringstream lines(result.err);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_FALSE(IsBareInvalid(line)) << what << ": \"" << line << "\"";
    }
  }
}

}  // namespace
}  // namespace hptune

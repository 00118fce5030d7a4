#include "src/dashboard/curve_choice.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "src/dashboard/objective.h"
#include "src/dashboard/thinning.h"

namespace hptune::dashboard {
namespace {

// "1,2,...,1000": at most kMaxCurveTrials numbers of up to 20 digits.
constexpr size_t kMaxTrialsBytes = 32 << 10;

absl::StatusOr<std::set<int64_t>> TrialNumbers(const std::string& text) {
  if (text.size() > kMaxTrialsBytes) {
    return BadQueryValue(
        "trials", text,
        absl::StrCat("longer than ", kMaxTrialsBytes, " bytes"));
  }
  std::set<int64_t> numbers;
  const std::vector<std::string> parts =
      absl::StrSplit(text, ',', absl::SkipEmpty());
  for (const std::string& part : parts) {
    int64_t number = 0;
    if (!absl::SimpleAtoi(part, &number) || number < 1) {
      return BadQueryValue("trials", text,
                           absl::StrCat("\"", part.substr(0, 40),
                                        "\" is not a trial number (>= 1)"));
    }
    numbers.insert(number);
  }
  if (numbers.empty() || numbers.size() > kMaxCurveTrials) {
    return BadQueryValue("trials", text,
                         absl::StrCat("expected 1 to ", kMaxCurveTrials,
                                      " trial numbers, comma-separated"));
  }
  return numbers;
}

bool Running(const Trial& trial) {
  return trial.state == TrialState::kActive ||
         trial.state == TrialState::kStopping;
}

CurvePick BestAndRunning(const StudySnapshot& snapshot, size_t max_trials) {
  const StudySpec& spec = snapshot.study.spec;
  std::vector<const Trial*> finished;
  CurvePick pick;
  for (const auto& trial : snapshot.trials) {
    if (trial == nullptr) continue;
    if (Running(*trial)) {
      pick.trials.push_back(trial.get());
    } else if (IsTerminal(trial->state) && FiniteObjective(*trial, spec)) {
      finished.push_back(trial.get());
    }
  }
  pick.matching = pick.trials.size() + finished.size();
  const size_t keep = std::min(max_trials, finished.size());
  std::partial_sort(finished.begin(), finished.begin() + keep, finished.end(),
                    [&](const Trial* a, const Trial* b) {
                      return spec.IsBetter(*FiniteObjective(*a, spec),
                                           *FiniteObjective(*b, spec));
                    });
  pick.trials.insert(pick.trials.end(), finished.begin(),
                     finished.begin() + keep);
  std::sort(
      pick.trials.begin(), pick.trials.end(),
      [](const Trial* a, const Trial* b) { return a->number < b->number; });
  return pick;
}

bool Matches(const Trial& trial, const CurveChoice& choice) {
  if (!trial.start_time) return false;  // Never ran: no curve.
  switch (choice.select) {
    case CurveSelect::kAll:
      return true;
    case CurveSelect::kStopped:
      return trial.stopped_early;
    case CurveSelect::kRunning:
      return Running(trial);
    case CurveSelect::kSelected:
      return choice.trials.contains(trial.number);
    case CurveSelect::kBest:
      return false;
  }
  return false;
}

}  // namespace

std::string_view ToString(CurveSelect select) {
  switch (select) {
    case CurveSelect::kBest:
      return "best";
    case CurveSelect::kAll:
      return "all";
    case CurveSelect::kStopped:
      return "stopped";
    case CurveSelect::kRunning:
      return "running";
    case CurveSelect::kSelected:
      return "selected";
  }
  return "best";
}

absl::StatusOr<CurveChoice> ParseCurveChoice(const QueryParams& params) {
  CurveChoice choice;
  if (auto it = params.find("select"); it != params.end()) {
    static const std::map<std::string, CurveSelect> kSelects = {
        {"best", CurveSelect::kBest},
        {"all", CurveSelect::kAll},
        {"stopped", CurveSelect::kStopped},
        {"running", CurveSelect::kRunning},
        {"selected", CurveSelect::kSelected}};
    auto known = kSelects.find(it->second);
    if (known == kSelects.end()) {
      return BadQueryValue("select", it->second,
                           "expected best, all, stopped, running or selected");
    }
    choice.select = known->second;
  }
  if (auto it = params.find("max_trials"); it != params.end()) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(it->second, &n) || n < 1 ||
        n > static_cast<int64_t>(kMaxCurveTrials)) {
      return BadQueryValue(
          "max_trials", it->second,
          absl::StrCat("expected an integer from 1 to ", kMaxCurveTrials));
    }
    choice.max_trials = static_cast<size_t>(n);
  }
  auto trials = params.find("trials");
  if (choice.select == CurveSelect::kSelected) {
    if (trials == params.end()) {
      return BadQueryValue("trials", "",
                           "select=selected needs the trial numbers");
    }
    auto numbers = TrialNumbers(trials->second);
    if (!numbers.ok()) return numbers.status();
    choice.trials = *std::move(numbers);
  } else if (trials != params.end()) {
    return BadQueryValue("trials", trials->second, "only with select=selected");
  }
  return choice;
}

CurvePick PickCurveTrials(const StudySnapshot& snapshot,
                          const CurveChoice& choice) {
  if (choice.select == CurveSelect::kBest) {
    return BestAndRunning(snapshot, choice.max_trials);
  }
  std::vector<const Trial*> matching;
  for (const auto& trial : snapshot.trials) {
    if (trial != nullptr && Matches(*trial, choice)) {
      matching.push_back(trial.get());
    }
  }
  CurvePick pick;
  pick.matching = matching.size();
  for (size_t i : EvenlySpread(matching.size(), choice.max_trials)) {
    pick.trials.push_back(matching[i]);
  }
  return pick;
}

}  // namespace hptune::dashboard

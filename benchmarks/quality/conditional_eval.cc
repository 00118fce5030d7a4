// conditional_eval: the conditional problems' values at given assignments,
// so that benchmarks/optuna_conditional.py --check-cxx can compare its
// Python definitions with conditional_problems.cc.
//
// Reads lines "PROBLEM<TAB>name=value;name=value;..." from stdin (the
// assignment's form is quality_harness --format=trials's) and prints f at
// each, one "%.17g" line per input line. Exits 1 naming the line for an
// unknown problem, an assignment that does not parse or one that is not
// exactly the problem's active set (SearchSpace::CheckAssignment), so a
// definition that activates a different set of parameters shows too.
#include <cstdio>
#include <iostream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "benchmarks/quality/conditional_problems.h"

namespace hptune::quality {
namespace {

absl::Status EvaluateLine(const std::string& line) {
  const size_t tab = line.find('\t');
  if (tab == std::string::npos) {
    return absl::InvalidArgumentError("expected PROBLEM<TAB>ASSIGNMENT");
  }
  auto problem = FindConditionalProblem(line.substr(0, tab));
  if (!problem.ok()) return problem.status();
  auto assignment = ParseAssignment((*problem)->space,
                                    std::string_view(line).substr(tab + 1));
  if (!assignment.ok()) return assignment.status();
  if (absl::Status s = (*problem)->space.CheckAssignment(*assignment);
      !s.ok()) {
    return s;
  }
  std::printf("%.17g\n", (*problem)->evaluate(*assignment));
  return absl::OkStatus();
}

int Main() {
  std::string line;
  for (int number = 1; std::getline(std::cin, line); ++number) {
    if (absl::Status s = EvaluateLine(line); !s.ok()) {
      std::fprintf(stderr, "conditional_eval: line %d: %s\n", number,
                   std::string(s.message()).c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace hptune::quality

int main() { return hptune::quality::Main(); }

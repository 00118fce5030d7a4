#include "benchmarks/quality/trial_log.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"

namespace hptune::quality {
namespace {

std::string Quoted(const std::string& field) {
  return absl::StrCat("\"", absl::StrReplaceAll(field, {{"\"", "\"\""}}), "\"");
}

}  // namespace

std::string FormatTrialsCsv(std::string_view designer,
                            const TestFunction& function, std::string_view mode,
                            int seed, std::span<const RunTrial> trials) {
  std::string out;
  for (const RunTrial& t : trials) {
    std::string parameters;
    for (const ParameterSpec& p : function.space.parameters()) {
      auto it = t.parameters.find(p.name);
      if (it == t.parameters.end()) continue;
      absl::StrAppend(&parameters, parameters.empty() ? "" : ";", p.name, "=",
                      it->second.ToString());
    }
    absl::StrAppend(
        &out,
        absl::StrFormat("%s,%s,%s,%d,%d,%s,%.17g,%.17g,%s\n", designer,
                        function.name, mode, seed, t.number, Quoted(t.origin),
                        t.value - function.optimum,
                        t.reported - function.optimum, Quoted(parameters)));
  }
  return out;
}

}  // namespace hptune::quality

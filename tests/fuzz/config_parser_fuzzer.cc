// Fuzz target for the job config parser (YAML and JSON), the first thing
// that reads what users and RPC clients send.
//
// Beyond "no crash, no sanitizer report", it checks the parser's contract on
// every input: a JobSpec comes back exactly when there are no errors, every
// error names a field and says what is wrong, an accepted config survives a
// round trip through its canonical JSON (TrainingInputToJson, what a job's
// record and TF_CONFIG carry) unchanged, and its study through the study's
// (StudySpecToJson and ParseStudySpecJson, what the store writes and reads).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>

#include "hptune/core/config.h"

namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::cerr << "config_parser_fuzzer: " << what << "\ninput:\n"
            << input << "\n";
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const hptune::ConfigParseResult result = hptune::ParseJobConfig(text);
  if (result.job.has_value() != result.errors.empty()) {
    Fail("a JobSpec must come back exactly when there are no errors", text);
  }
  for (const hptune::FieldError& e : result.errors) {
    if (e.message.empty()) Fail("an error without a message", text);
  }
  if (!result.job.has_value()) return 0;
  const std::string json = hptune::TrainingInputToJson(*result.job);
  const hptune::ConfigParseResult again =
      hptune::ParseJobConfig(json, hptune::ConfigFormat::kJson);
  if (!again.job.has_value()) {
    Fail("the canonical JSON of an accepted config is refused: " +
             again.errors.front().ToString() + "\njson: " + json,
         text);
  }
  // Labels are accepted only when they keep the rules, and are not part of
  // trainingInput, so the canonical JSON leaves them out.
  if (!hptune::ValidateJobLabels(result.job->labels, "labels").empty()) {
    Fail("an accepted config has labels that break the rules", text);
  }
  hptune::JobSpec without_labels = *result.job;
  without_labels.labels.clear();
  if (!(*again.job == without_labels)) {
    Fail("the canonical JSON does not give the same JobSpec\njson: " + json,
         text);
  }
  if (result.job->study) {
    const std::string study_json = hptune::StudySpecToJson(*result.job->study);
    const absl::StatusOr<hptune::StudySpec> study =
        hptune::ParseStudySpecJson(study_json);
    if (!study.ok()) {
      Fail("the study's canonical JSON is refused: " +
               std::string(study.status().message()) + "\njson: " + study_json,
           text);
    }
    if (!(*study == *result.job->study)) {
      Fail("the study's canonical JSON does not give the same spec\njson: " +
               study_json,
           text);
    }
  }
  return 0;
}

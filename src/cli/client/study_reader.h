// Where `hptune studies`, `hptune trials` and `hptune jobs describe` read
// from: a study database (--db FILE, read directly) or an hptune server
// (StudyService). Both give the same domain values, so the commands print
// the same tables either way. The answers about a study (optimal trials,
// importance, what early stopping saved) are the read side's
// (hptune/read/study_answers.h): computed on the file, or asked of the
// server's (ListOptimalTrials, GetParameterImportance, GetStoppingSavings)
// without downloading the trials. Their one change, `hptune studies
// delete`, goes the same two ways: the engine's DeleteStudy on the file, or
// StudyService.DeleteStudy.
// Used only by src/cli. Not thread-safe: one command uses one reader.
#ifndef HPTUNE_CLI_CLIENT_STUDY_READER_H_
#define HPTUNE_CLI_CLIENT_STUDY_READER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/savings.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/env/clock.h"
#include "hptune/store/store.h"
#include "src/cli/client/connection.h"

namespace hptune::cli::client {

class StudyReader {
 public:
  virtual ~StudyReader() = default;
  virtual absl::StatusOr<std::vector<StudyRecord>> ListStudies() = 0;
  virtual absl::StatusOr<StudyRecord> GetStudy(const std::string& name) = 0;
  // Every trial without its intermediate measurements.
  virtual absl::StatusOr<std::vector<Trial>> ListTrials(
      const std::string& study) = 0;
  // One trial with its measurements.
  virtual absl::StatusOr<Trial> GetTrial(const std::string& study,
                                         int64_t number) = 0;
  // Deletes the study and its trials (TuningEngine::DeleteStudy):
  // FailedPrecondition naming the job while the study's job has not ended.
  virtual absl::Status DeleteStudy(const std::string& name) = 0;
  // The study's note (Store::GetNote), "" when none. The gRPC API has no
  // notes yet: from a server, always "".
  virtual absl::StatusOr<std::string> GetStudyNote(const std::string& name) = 0;

  // The read side's answers (read::StudyAnswers): the best trial, or with
  // several objectives the feasible Pareto front, without measurements;
  // PED-ANOVA with the default options; what early stopping saved.
  virtual absl::StatusOr<std::vector<Trial>> OptimalTrials(
      const std::string& study) = 0;
  virtual absl::StatusOr<algorithms::ImportanceReport> Importance(
      const std::string& study) = 0;
  virtual absl::StatusOr<std::optional<StoppingSavings>> Savings(
      const std::string& study) = 0;
};

// `clock` stamps a deletion; it must outlive the reader.
std::unique_ptr<StudyReader> StoreStudyReader(
    std::unique_ptr<store::Store> store, Clock& clock);

// Failed calls come back with their gRPC code and DescribeRpcError's
// message (ExitCodeForStatus turns them into exit codes).
std::unique_ptr<StudyReader> ServerStudyReader(ServerConnection server);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_STUDY_READER_H_

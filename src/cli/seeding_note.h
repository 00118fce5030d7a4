// What `hptune run`, `validate` and `jobs describe` say about the default
// designer's seeding: its first trials are quasi-random, and a small
// maxTrials leaves the GP few trials of its own. Used only by src/cli; pure
// functions, thread-safe.
#ifndef HPTUNE_CLI_SEEDING_NOTE_H_
#define HPTUNE_CLI_SEEDING_NOTE_H_

#include <string>

#include "hptune/core/study.h"

namespace hptune::cli {

// The GP chooses fewer trials than this: validate warns.
inline constexpr int kFewGpTrials = 10;

// "the first 6 of 20 trials are quasi-random seeding; the GP chooses the
// other 14", or "" when the study's designer does not seed (not the GP).
std::string SeedingNote(const StudySpec& spec);

// "maxTrials (10) leaves the GP 6 trials after its 4 seeding trials: give
// maxTrials 14 or more for it to choose 10", or "" when the GP chooses at
// least kFewGpTrials trials or does not design this study.
std::string SeedingWarning(const StudySpec& spec);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_SEEDING_NOTE_H_

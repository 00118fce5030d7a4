// What `hptune studies importance` prints: each parameter's PED-ANOVA
// importance (algorithms/importance/ped_anova.h) with its bootstrap
// interval, most important first, as a table with a bar per parameter, as
// CSV, or as one JSON document. Used only by src/cli. Pure functions;
// thread-safe.
#ifndef HPTUNE_CLI_IMPORTANCE_TABLE_H_
#define HPTUNE_CLI_IMPORTANCE_TABLE_H_

#include <ostream>
#include <string>

#include "hptune/algorithms/importance.h"
#include "src/cli/output.h"

namespace hptune::cli {

// Table: parameter, importance (4 significant digits, then a bar of 40
// characters for an importance of 1), 90% interval, then the note when
// there are too few trials to rank and lines saying what the numbers rest
// on. CSV: parameter,importance,lower,upper with every digit. JSON:
// {"study", "method", "trials", "topTrials", "trialsNeeded",
// "bootstrapResamples", "note", "importances": [{"parameter",
// "importance", "lower", "upper"}]}, the shape of the gRPC
// ParameterImportanceResponse. `options`: those the report was made with.
void PrintImportance(const std::string& study,
                     const algorithms::ImportanceReport& report,
                     const algorithms::ImportanceOptions& options,
                     OutputFormat format, std::ostream& out);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_IMPORTANCE_TABLE_H_

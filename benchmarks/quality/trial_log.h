// The per-trial CSV of `quality_harness --format=trials`: every trial of
// every run, to see how a designer got where it did (which suggestions set
// a new best, how far from the best point they went, what the origin said).
//
// Used by quality_harness; read with any CSV reader.
#ifndef HPTUNE_BENCHMARKS_QUALITY_TRIAL_LOG_H_
#define HPTUNE_BENCHMARKS_QUALITY_TRIAL_LOG_H_

#include <span>
#include <string>
#include <string_view>

#include "benchmarks/quality/designer_run.h"
#include "benchmarks/quality/test_functions.h"

namespace hptune::quality {

inline constexpr char kTrialsCsvHeader[] =
    "designer,function,mode,seed,trial,origin,regret,reported_regret,"
    "parameters";

// One line per trial of one run, in trial order. regret is the trial's own
// value - function.optimum (not the best so far), reported_regret the same
// for the value it reported (with a noisy function's noise; what the
// designer saw), both with 17 significant digits; parameters are "name=value"
// in the space's declared order, joined by ';', values as a trainer receives
// them. origin and parameters are quoted as RFC 4180 says (a '"' inside
// doubled).
std::string FormatTrialsCsv(std::string_view designer,
                            const TestFunction& function, std::string_view mode,
                            int seed, std::span<const RunTrial> trials);

}  // namespace hptune::quality

#endif  // HPTUNE_BENCHMARKS_QUALITY_TRIAL_LOG_H_

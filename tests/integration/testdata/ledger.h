// The ledger crash_trainer.py keeps: one "trial step value" line per report
// it made, written after the report reached its metric file. The crash
// tests of `hptune run` and `hptune serve` compare it with what was stored.
#ifndef HPTUNE_TESTS_INTEGRATION_TESTDATA_LEDGER_H_
#define HPTUNE_TESTS_INTEGRATION_TESTDATA_LEDGER_H_

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/testdata/serve_fixture.h"

namespace hptune::testing {

struct LedgerReport {
  int64_t trial;
  int64_t step;
  double value;
};

inline std::vector<LedgerReport> ReadLedger(const std::string& path) {
  std::vector<LedgerReport> reports;
  std::istringstream in(ReadFileOrEmpty(path));
  LedgerReport r;
  while (in >> r.trial >> r.step >> r.value) reports.push_back(r);
  return reports;
}

}  // namespace hptune::testing

#endif  // HPTUNE_TESTS_INTEGRATION_TESTDATA_LEDGER_H_

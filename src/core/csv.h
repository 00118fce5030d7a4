// One cell of a CSV file, as RFC 4180 writes it, safe to open in a
// spreadsheet: a text cell that would be read as a formula (OWASP, "CSV
// Injection") is neutralised.
//
// Used by the CLI's `--format csv` (src/cli/output.cc) and the dashboard's
// trials export (src/dashboard/study_json.cc). Pure function; thread-safe.
#ifndef HPTUNE_SRC_CORE_CSV_H_
#define HPTUNE_SRC_CORE_CSV_H_

#include <string>
#include <string_view>

namespace hptune {

// `text` as a CSV cell. A cell starting with =, +, -, @, a tab or a
// carriage return gets a ' in front, unless it is a finite number as a
// whole ("-0.5", "-1e-3" stay readable); then a cell holding a comma, a
// quote or a line break is quoted, its quotes doubled.
std::string CsvCell(std::string_view text);

}  // namespace hptune

#endif  // HPTUNE_SRC_CORE_CSV_H_

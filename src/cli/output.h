// How the `hptune` commands print results: a human table by default, or JSON
// / CSV for scripts (`--format json|csv`), or Vertex AI's
// HyperparameterTuningJob JSON where a job or its trials are printed
// (`--format vertex`). Used only by src/cli.
#ifndef HPTUNE_CLI_OUTPUT_H_
#define HPTUNE_CLI_OUTPUT_H_

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::cli {

enum class OutputFormat { kTable, kJson, kCsv, kVertex };

// "table", "json" or "csv", and "vertex" where `vertex` allows it;
// InvalidArgument naming the value otherwise.
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& text,
                                               bool vertex = false);

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // Each as wide as the header.
};

// Table: aligned columns. JSON: an array of objects keyed by the header.
// CSV: RFC 4180 quoting. kVertex is JSON here (a table has no Vertex shape).
// Numbers in a table are for reading: six significant digits; JSON and CSV
// keep every digit.
void PrintTable(const Table& table, OutputFormat format, std::ostream& out);

// `table` without those of the columns named in `optional` that say
// nothing in any row (every cell "" or "false"): a table for reading.
Table WithoutEmptyColumns(const Table& table,
                          const std::set<std::string>& optional);

// A cell as the table shows it: a decimal number with more than six
// significant digits rounded to six ("0.30000000000000004" is "0.3",
// "0.0123456789" is "0.0123457"); anything else as it is.
std::string ForReading(const std::string& cell);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_OUTPUT_H_

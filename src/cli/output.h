// How the `hptune` commands print results: a human table by default, or JSON
// / CSV for scripts (`--format json|csv`). Used only by src/cli.
#ifndef HPTUNE_CLI_OUTPUT_H_
#define HPTUNE_CLI_OUTPUT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace hptune::cli {

enum class OutputFormat { kTable, kJson, kCsv };

// "table", "json" or "csv"; InvalidArgument naming the value otherwise.
absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& text);

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;  // Each as wide as the header.
};

// Table: aligned columns. JSON: an array of objects keyed by the header.
// CSV: RFC 4180 quoting.
void PrintTable(const Table& table, OutputFormat format, std::ostream& out);

}  // namespace hptune::cli

#endif  // HPTUNE_CLI_OUTPUT_H_

#include "src/cli/output.h"

#include <algorithm>
#include <charconv>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "src/core/csv.h"

namespace hptune::cli {

Table WithoutEmptyColumns(const Table& table,
                          const std::set<std::string>& optional) {
  std::vector<size_t> kept;
  for (size_t c = 0; c < table.header.size(); ++c) {
    const bool says_something =
        !optional.contains(table.header[c]) ||
        std::any_of(table.rows.begin(), table.rows.end(), [c](const auto& row) {
          return !row[c].empty() && row[c] != "false";
        });
    if (says_something) kept.push_back(c);
  }
  Table out;
  for (size_t c : kept) out.header.push_back(table.header[c]);
  for (const auto& row : table.rows) {
    std::vector<std::string>& cells = out.rows.emplace_back();
    for (size_t c : kept) cells.push_back(row[c]);
  }
  return out;
}

std::string ForReading(const std::string& cell) {
  // Whole numbers (trial IDs, steps, counts) are exact already.
  if (cell.find_first_of(".eE") == std::string::npos) return cell;
  double value;
  const char* end = cell.data() + cell.size();
  auto [ptr, ec] = std::from_chars(cell.data(), end, value);
  if (ec != std::errc() || ptr != end) return cell;
  std::string short_form = absl::StrFormat("%.6g", value);
  return short_form.size() < cell.size() ? short_form : cell;
}

namespace {

void PrintAligned(const Table& source, std::ostream& out) {
  Table table = source;
  for (auto& row : table.rows) {
    for (std::string& cell : row) cell = ForReading(cell);
  }
  std::vector<size_t> widths(table.header.size());
  for (size_t c = 0; c < widths.size(); ++c) {
    widths[c] = table.header[c].size();
    for (const auto& row : table.rows) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size())
        line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    out << line << "\n";
  };
  print_row(table.header);
  for (const auto& row : table.rows) print_row(row);
}

}  // namespace

absl::StatusOr<OutputFormat> ParseOutputFormat(const std::string& text,
                                               bool vertex) {
  if (text == "table") return OutputFormat::kTable;
  if (text == "json") return OutputFormat::kJson;
  if (text == "csv") return OutputFormat::kCsv;
  if (vertex && text == "vertex") return OutputFormat::kVertex;
  return absl::InvalidArgumentError(absl::StrCat(
      "--format must be table, json", vertex ? ", csv or vertex" : " or csv",
      ", got \"", text, "\""));
}

void PrintTable(const Table& table, OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::kTable:
      PrintAligned(table, out);
      return;
    case OutputFormat::kJson:
    case OutputFormat::kVertex: {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& row : table.rows) {
        nlohmann::ordered_json object = nlohmann::ordered_json::object();
        for (size_t c = 0; c < row.size(); ++c)
          object[table.header[c]] = row[c];
        rows.push_back(std::move(object));
      }
      out << rows.dump(2) << "\n";
      return;
    }
    case OutputFormat::kCsv: {
      auto print_row = [&](const std::vector<std::string>& row) {
        for (size_t c = 0; c < row.size(); ++c) {
          out << (c ? "," : "") << CsvCell(row[c]);
        }
        out << "\r\n";
      };
      print_row(table.header);
      for (const auto& row : table.rows) print_row(row);
      return;
    }
  }
}

}  // namespace hptune::cli

// CsvCell: what the CLI's --format csv and the dashboard's export write in
// a cell, opened in a spreadsheet.
#include "src/core/csv.h"

#include <gtest/gtest.h>

namespace hptune {
namespace {

// A categorical value, a metric or parameter name is the submitter's text:
// as a cell it would run as a formula (OWASP, "CSV Injection").
TEST(CsvCellTest, AFormulaInATextCellIsNeutralised) {
  EXPECT_EQ(CsvCell("=HYPERLINK(\"http://evil.example\",\"x\")"),
            "\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"x\"\")\"");
  EXPECT_EQ(CsvCell("+cmd|' /C calc'!A0"), "'+cmd|' /C calc'!A0");
  EXPECT_EQ(CsvCell("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
  EXPECT_EQ(CsvCell("@SUM(1,2)"), "\"'@SUM(1,2)\"");
  EXPECT_EQ(CsvCell("\t=1+1"), "'\t=1+1");
  EXPECT_EQ(CsvCell("\r=1+1"), "\"'\r=1+1\"");
  EXPECT_EQ(CsvCell("-inf"), "'-inf");
}

TEST(CsvCellTest, NumbersAndPlainTextStayAsTheyAre) {
  EXPECT_EQ(CsvCell("-0.5"), "-0.5");
  EXPECT_EQ(CsvCell("-1e-3"), "-1e-3");
  EXPECT_EQ(CsvCell("0.01"), "0.01");
  EXPECT_EQ(CsvCell("adam"), "adam");
  EXPECT_EQ(CsvCell(""), "");
  EXPECT_EQ(CsvCell("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvCell("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace hptune

// The docs name every designer and stopping rule the registries hold, so
// the lists written by hand there cannot drift from the code: docs/
// designers.md's `algorithm` and early-stopping tables have a row for each
// (and none for a name not registered), and docs/config.md's
// earlyStoppingRule row names each rule.
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "hptune/algorithms/registry.h"
#include "hptune/algorithms/stopping_registry.h"

namespace hptune::algorithms {
namespace {

std::vector<std::string> DocLines(const std::string& doc) {
  std::ifstream file(std::string(HPTUNE_SOURCE_DIR) + "/docs/" + doc);
  EXPECT_TRUE(file.good()) << doc;
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return lines;
}

// The first column's `name` of each row of the first table under
// `heading` (a whole heading line, "## Early stopping").
std::set<std::string> TableNames(const std::string& doc,
                                 const std::string& heading) {
  const std::vector<std::string> lines = DocLines(doc);
  std::set<std::string> names;
  bool in_section = false;
  bool in_table = false;
  for (const std::string& line : lines) {
    if (!in_section) {
      in_section = line == heading;
      continue;
    }
    if (!absl::StartsWith(line, "|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (!absl::StartsWith(line, "| `")) continue;  // The header and rule.
    const size_t end = line.find('`', 3);
    if (end != std::string::npos) names.insert(line.substr(3, end - 3));
  }
  EXPECT_TRUE(in_table) << doc << " has no table under " << heading;
  return names;
}

std::set<std::string> AsSet(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

TEST(RegistryDocsTest, DesignersMdHasARowForEachDesigner) {
  EXPECT_EQ(TableNames("designers.md", "## `algorithm`"),
            AsSet(DesignerRegistry::WithBuiltins().Names()));
}

TEST(RegistryDocsTest, DesignersMdHasARowForEachStoppingRule) {
  EXPECT_EQ(TableNames("designers.md", "## Early stopping"),
            AsSet(StoppingRuleRegistry::WithBuiltins().Names()));
}

TEST(RegistryDocsTest, ConfigMdsEarlyStoppingRuleRowNamesEachRule) {
  std::string row;
  for (const std::string& line : DocLines("config.md")) {
    if (absl::StartsWith(line, "| `earlyStoppingRule` |")) {
      row = line;
      break;
    }
  }
  ASSERT_FALSE(row.empty()) << "docs/config.md has no earlyStoppingRule row";
  for (const std::string& rule : StoppingRuleRegistry::WithBuiltins().Names()) {
    EXPECT_TRUE(absl::StrContains(row, "`" + rule + "`"))
        << "docs/config.md's earlyStoppingRule row does not name " << rule;
  }
}

}  // namespace
}  // namespace hptune::algorithms

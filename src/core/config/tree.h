// A JSON-like tree of a parsed config file, with the position of each node.
//
// Private to config parsing: the YAML and JSON adapters (yaml.cc, json.cc)
// turn text into this tree and catch everything their libraries throw; the
// readers validate the tree. Keeping one tree for both formats means every
// rule is written once. Value types; thread-compatible.
#ifndef HPTUNE_SRC_CORE_CONFIG_TREE_H_
#define HPTUNE_SRC_CORE_CONFIG_TREE_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hptune/core/config.h"

namespace hptune::config_internal {

// Deeper nesting is refused: no config needs it, and it keeps the recursive
// readers (and YAML aliases that refer to themselves) from overflowing the
// stack.
inline constexpr int kMaxConfigDepth = 64;
// A config's size, and the values its tree may hold. The largest legitimate
// config (100 parameters of 1,000 values) has about 100,000 values; YAML
// aliases can make a small file stand for billions ("billion laughs"), so
// the YAML adapter stops counting copies at this bound instead of
// expanding them until memory runs out.
inline constexpr size_t kMaxConfigBytes = kMaxConfigTextBytes;
inline constexpr size_t kMaxConfigNodes = 250'000;

struct ConfigField;

struct ConfigNode {
  enum class Kind { kNull, kBool, kNumber, kString, kList, kMap };

  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  // The string value; for other scalars their spelling in the file (a number
  // as written, "true", "null"), used to show a bad value as the user wrote it.
  std::string text;
  std::vector<ConfigNode> items;    // kList
  std::vector<ConfigField> fields;  // kMap, in file order, duplicates kept
  int line = 0;  // 1-based; 0 when unknown (JSON does not give positions).
  // Pre-order index in document order: sorting errors by it lists them in
  // file order whatever order the rules are checked in.
  int order = 0;

  bool is_scalar() const { return kind != Kind::kList && kind != Kind::kMap; }
};

// One key of a map. A struct rather than std::pair: clang rejects a pair
// whose member is the enclosing, still incomplete ConfigNode.
struct ConfigField {
  std::string key;
  ConfigNode value;
};

struct TreeParseResult {
  std::optional<ConfigNode> root;  // Unset for an empty document.
  std::vector<FieldError> errors;  // Syntax errors: "line L, column C".
};

// Each call adds one to TextParseCount (hptune/core/config.h).
TreeParseResult ParseYamlTree(std::string_view text);
TreeParseResult ParseJsonTree(std::string_view text);
// Adds one to TextParseCount; the tree parsers call it.
void CountTextParse();

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_TREE_H_

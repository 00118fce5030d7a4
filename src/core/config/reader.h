// Reading a ConfigNode tree field by field, collecting every error.
//
// Private to config parsing. ErrorSink keeps each error with the document
// position of the node it is about, so that errors found by different passes
// come out in file order. MapReader checks a mapping's keys (unknown fields
// with "did you mean", unsupported AI Platform fields, duplicates) and reads
// typed values; a value of the wrong type is reported and read as absent.
#ifndef HPTUNE_SRC_CORE_CONFIG_READER_H_
#define HPTUNE_SRC_CORE_CONFIG_READER_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hptune/core/config.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {

class ErrorSink {
 public:
  // An error about `at` (its position orders the error).
  void Add(const ConfigNode& at, std::string field, std::string message) {
    Add(at.order, std::move(field), std::move(message));
  }
  void Add(int order, std::string field, std::string message);
  // An error about something missing from `map`: placed after its contents.
  void AddAfter(const ConfigNode& map, std::string field, std::string message);

  size_t size() const { return errors_.size(); }

  // Moves the errors of `other` here, in their places, each field passed
  // through `rewrite`, which may drop an error by returning nullopt.
  void Absorb(ErrorSink other, const std::function<std::optional<std::string>(
                                   const std::string&)>& rewrite);
  // The fields of the errors so far.
  std::vector<std::string> Fields() const;

  // Every error, in file order (ties keep the order they were added in).
  std::vector<FieldError> Sorted() const;

 private:
  struct Entry {
    int order;
    bool after;  // After everything at `order`: the end of a mapping.
    FieldError error;
  };
  std::vector<Entry> errors_;
};

// A value as the user wrote it, for "got ...": "abc" quoted, numbers as
// written, `a list`, `a mapping`.
std::string Describe(const ConfigNode& node);

// Typed reads of one node. On a type error they report it at `path` and
// return nullopt.
std::optional<std::string> ReadString(const ConfigNode& node,
                                      const std::string& path, ErrorSink& sink);
std::optional<bool> ReadBool(const ConfigNode& node, const std::string& path,
                             ErrorSink& sink);
// Finite numbers only: NaN and infinities are errors everywhere.
std::optional<double> ReadNumber(const ConfigNode& node,
                                 const std::string& path, ErrorSink& sink);
// An integral number in [min, max]. With `allow_decimal_string`, "9" is read
// as 9 too: AI Platform's int64 fields are strings in proto3 JSON, and
// `gcloud ... describe` prints them quoted.
std::optional<int64_t> ReadInteger(
    const ConfigNode& node, const std::string& path, ErrorSink& sink,
    int64_t min = std::numeric_limits<int32_t>::min(),
    int64_t max = std::numeric_limits<int32_t>::max(),
    bool allow_decimal_string = false);
std::optional<std::vector<std::string>> ReadStringList(const ConfigNode& node,
                                                       const std::string& path,
                                                       ErrorSink& sink);
std::optional<std::vector<double>> ReadNumberList(const ConfigNode& node,
                                                  const std::string& path,
                                                  ErrorSink& sink);
// True when `node` is a mapping / list; reports it otherwise.
bool ExpectMap(const ConfigNode& node, const std::string& path,
               ErrorSink& sink);
bool ExpectList(const ConfigNode& node, const std::string& path,
                ErrorSink& sink);

// The fields a mapping may have.
struct FieldSet {
  std::vector<std::string> accepted;
  // AI Platform fields hptune refuses: name -> why (shown to the user).
  std::map<std::string, std::string> unsupported;
  // Names people write by mistake that are too far from the right one for
  // the edit distance to find: name -> the accepted field meant.
  std::map<std::string, std::string> hints;
};

class MapReader {
 public:
  // `node` must be a mapping (see ExpectMap). Reports its unknown,
  // unsupported and duplicate fields right away.
  MapReader(const ConfigNode& node, std::string path, const FieldSet& fields,
            ErrorSink& sink);

  const ConfigNode& node() const { return node_; }
  const std::string& path() const { return path_; }
  ErrorSink& sink() const { return sink_; }
  std::string PathOf(std::string_view key) const;

  // The value of an accepted field (its first occurrence), or nullptr.
  const ConfigNode* Find(std::string_view key) const;
  bool Has(std::string_view key) const { return Find(key) != nullptr; }

  // Typed reads of a field: nullopt when absent (no error) or of the wrong
  // type (reported).
  std::optional<std::string> String(std::string_view key);
  std::optional<bool> Bool(std::string_view key);
  std::optional<double> Number(std::string_view key);
  std::optional<int64_t> Integer(
      std::string_view key, int64_t min = std::numeric_limits<int32_t>::min(),
      int64_t max = std::numeric_limits<int32_t>::max(),
      bool allow_decimal_string = false);
  std::optional<std::vector<std::string>> StringList(std::string_view key);
  std::optional<std::vector<double>> NumberList(std::string_view key);

  // Reports `key` as the error's field, placed in file order at its value
  // (after the mapping's contents when `key` is absent).
  void Error(std::string_view key, std::string message);
  // The same, placed at the value of `anchor` (when present).
  void ErrorAt(std::string_view anchor, std::string_view key,
               std::string message);

 private:
  const ConfigNode& node_;
  std::string path_;
  ErrorSink& sink_;
  std::map<std::string, const ConfigNode*, std::less<>> accepted_;
};

// Every path in the tree under `path` -> its node's document order, for
// placing errors found on the parsed values (ValidateStudySpec) in file order.
void CollectPathOrders(const ConfigNode& node, const std::string& path,
                       std::map<std::string, int>* orders);
using field_text::IsUnderAny;  // hptune/core/field_text.h

// The order of `field` or of its nearest ancestor in `orders`; `fallback`
// when none is there.
int OrderOfPath(const std::map<std::string, int>& orders, std::string field,
                int fallback);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_READER_H_

// Reading a ConfigNode tree field by field, collecting every error.
#include "src/core/config/reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

using Kind = ConfigNode::Kind;

// Quoting a YAML number or bool makes it a string: say so where a string is
// needed, since `categoricalValues: [1, 2]` is an easy slip.
std::string QuoteHint(const ConfigNode& node) {
  if (node.kind == Kind::kNumber || node.kind == Kind::kBool) {
    return " (quote it: " + Quote(node.text) + ")";
  }
  return "";
}

void TypeError(const ConfigNode& node, const std::string& path,
               std::string_view expected, ErrorSink& sink) {
  sink.Add(node, path,
           "must be " + std::string(expected) + ", got " + Describe(node));
}

}  // namespace

void ErrorSink::Add(int order, std::string field, std::string message) {
  errors_.push_back({order, false, {std::move(field), std::move(message)}});
}

void ErrorSink::AddAfter(const ConfigNode& map, std::string field,
                         std::string message) {
  // Nodes are numbered in pre-order, so the last one under `map` is the
  // last one under its last child.
  const ConfigNode* last = &map;
  while (!last->fields.empty() || !last->items.empty()) {
    last =
        last->fields.empty() ? &last->items.back() : &last->fields.back().value;
  }
  errors_.push_back(
      {last->order, true, {std::move(field), std::move(message)}});
}

void ErrorSink::Absorb(
    ErrorSink other,
    const std::function<std::optional<std::string>(const std::string&)>&
        rewrite) {
  for (Entry& entry : other.errors_) {
    std::optional<std::string> field = rewrite(entry.error.field);
    if (!field) continue;
    entry.error.field = std::move(*field);
    errors_.push_back(std::move(entry));
  }
}

std::vector<std::string> ErrorSink::Fields() const {
  std::vector<std::string> fields;
  for (const Entry& entry : errors_) fields.push_back(entry.error.field);
  return fields;
}

std::vector<FieldError> ErrorSink::Sorted() const {
  std::vector<Entry> entries = errors_;
  std::stable_sort(
      entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.order != b.order ? a.order < b.order : a.after < b.after;
      });
  std::vector<FieldError> errors;
  errors.reserve(entries.size());
  for (Entry& entry : entries) errors.push_back(std::move(entry.error));
  return errors;
}

std::string Describe(const ConfigNode& node) {
  switch (node.kind) {
    case Kind::kString:
      return Quote(node.text);
    case Kind::kList: {
      // Short lists of scalars are shown as written; others by their size.
      constexpr size_t kMaxShown = 60;
      std::string shown = "[";
      for (const ConfigNode& item : node.items) {
        if (!item.is_scalar()) {
          shown.clear();
          break;
        }
        if (shown.size() > 1) shown += ", ";
        shown += Describe(item);
      }
      if (!shown.empty() && shown.size() < kMaxShown) return shown + "]";
      return "a list of " + std::to_string(node.items.size()) +
             (node.items.size() == 1 ? " item" : " items");
    }
    case Kind::kMap:
      return "a mapping";
    case Kind::kNull:
      return "null (an empty value)";
    case Kind::kBool:
    case Kind::kNumber:
      return node.text;
  }
  return node.text;
}

std::optional<std::string> ReadString(const ConfigNode& node,
                                      const std::string& path,
                                      ErrorSink& sink) {
  if (node.kind != Kind::kString) {
    sink.Add(node, path,
             "must be a string, got " + Describe(node) + QuoteHint(node));
    return std::nullopt;
  }
  return node.text;
}

std::optional<bool> ReadBool(const ConfigNode& node, const std::string& path,
                             ErrorSink& sink) {
  if (node.kind != Kind::kBool) {
    TypeError(node, path, "true or false", sink);
    return std::nullopt;
  }
  return node.boolean;
}

std::optional<double> ReadNumber(const ConfigNode& node,
                                 const std::string& path, ErrorSink& sink) {
  if (node.kind != Kind::kNumber) {
    TypeError(node, path, "a number", sink);
    return std::nullopt;
  }
  if (!std::isfinite(node.number)) {
    TypeError(node, path, "finite", sink);
    return std::nullopt;
  }
  return node.number;
}

std::optional<int64_t> ReadInteger(const ConfigNode& node,
                                   const std::string& path, ErrorSink& sink,
                                   int64_t min, int64_t max,
                                   bool allow_decimal_string) {
  double value = 0;
  if (node.kind == Kind::kNumber) {
    if (!std::isfinite(node.number)) {
      TypeError(node, path, "finite", sink);
      return std::nullopt;
    }
    value = node.number;
  } else if (node.kind == Kind::kString && allow_decimal_string) {
    const std::string& text = node.text;
    int64_t parsed = 0;
    auto [ptr, ec] =
        std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
      TypeError(node, path, "an integer", sink);
      return std::nullopt;
    }
    value = static_cast<double>(parsed);
  } else {
    TypeError(node, path, "an integer", sink);
    return std::nullopt;
  }
  if (value != std::floor(value)) {
    TypeError(node, path, "an integer", sink);
    return std::nullopt;
  }
  if (value < static_cast<double>(min)) {
    TypeError(node, path, "at least " + std::to_string(min), sink);
    return std::nullopt;
  }
  if (value > static_cast<double>(max)) {
    TypeError(node, path, "at most " + std::to_string(max), sink);
    return std::nullopt;
  }
  return static_cast<int64_t>(value);
}

std::optional<std::vector<std::string>> ReadStringList(const ConfigNode& node,
                                                       const std::string& path,
                                                       ErrorSink& sink) {
  if (!ExpectList(node, path, sink)) return std::nullopt;
  std::vector<std::string> values;
  bool ok = true;
  for (size_t i = 0; i < node.items.size(); ++i) {
    std::optional<std::string> value =
        ReadString(node.items[i], IndexPath(path, i), sink);
    ok = ok && value.has_value();
    if (value) values.push_back(std::move(*value));
  }
  if (!ok) return std::nullopt;
  return values;
}

std::optional<std::vector<double>> ReadNumberList(const ConfigNode& node,
                                                  const std::string& path,
                                                  ErrorSink& sink) {
  if (!ExpectList(node, path, sink)) return std::nullopt;
  std::vector<double> values;
  bool ok = true;
  for (size_t i = 0; i < node.items.size(); ++i) {
    std::optional<double> value =
        ReadNumber(node.items[i], IndexPath(path, i), sink);
    ok = ok && value.has_value();
    if (value) values.push_back(*value);
  }
  if (!ok) return std::nullopt;
  return values;
}

bool ExpectMap(const ConfigNode& node, const std::string& path,
               ErrorSink& sink) {
  if (node.kind == Kind::kMap) return true;
  TypeError(node, path, "a mapping", sink);
  return false;
}

bool ExpectList(const ConfigNode& node, const std::string& path,
                ErrorSink& sink) {
  if (node.kind == Kind::kList) return true;
  TypeError(node, path, "a list", sink);
  return false;
}

MapReader::MapReader(const ConfigNode& node, std::string path,
                     const FieldSet& fields, ErrorSink& sink)
    : node_(node), path_(std::move(path)), sink_(sink) {
  std::map<std::string_view, int> first_line;
  for (const auto& [key, value] : node_.fields) {
    const std::string field = PathOf(key);
    auto [seen, inserted] = first_line.emplace(key, value.line);
    if (!inserted) {
      sink_.Add(value, field,
                (seen->second > 0 ? "duplicate field (first set on line " +
                                        std::to_string(seen->second) + ")"
                                  : std::string("duplicate field")) +
                    ", got " + Describe(value));
      continue;
    }
    if (std::find(fields.accepted.begin(), fields.accepted.end(), key) !=
        fields.accepted.end()) {
      accepted_.emplace(key, &value);
    } else if (auto it = fields.unsupported.find(key);
               it != fields.unsupported.end()) {
      sink_.Add(value, field, "not supported: " + it->second);
    } else if (auto hint = fields.hints.find(key); hint != fields.hints.end()) {
      sink_.Add(value, field,
                "unknown field (did you mean " + hint->second + "?)");
    } else {
      sink_.Add(value, field,
                "unknown field" + DidYouMean(key, fields.accepted));
    }
  }
}

std::string MapReader::PathOf(std::string_view key) const {
  return JoinPath(path_, key);
}

const ConfigNode* MapReader::Find(std::string_view key) const {
  auto it = accepted_.find(key);
  return it == accepted_.end() ? nullptr : it->second;
}

std::optional<std::string> MapReader::String(std::string_view key) {
  const ConfigNode* value = Find(key);
  return value ? ReadString(*value, PathOf(key), sink_) : std::nullopt;
}

std::optional<bool> MapReader::Bool(std::string_view key) {
  const ConfigNode* value = Find(key);
  return value ? ReadBool(*value, PathOf(key), sink_) : std::nullopt;
}

std::optional<double> MapReader::Number(std::string_view key) {
  const ConfigNode* value = Find(key);
  return value ? ReadNumber(*value, PathOf(key), sink_) : std::nullopt;
}

std::optional<int64_t> MapReader::Integer(std::string_view key, int64_t min,
                                          int64_t max,
                                          bool allow_decimal_string) {
  const ConfigNode* value = Find(key);
  return value ? ReadInteger(*value, PathOf(key), sink_, min, max,
                             allow_decimal_string)
               : std::nullopt;
}

std::optional<std::vector<std::string>> MapReader::StringList(
    std::string_view key) {
  const ConfigNode* value = Find(key);
  return value ? ReadStringList(*value, PathOf(key), sink_) : std::nullopt;
}

std::optional<std::vector<double>> MapReader::NumberList(std::string_view key) {
  const ConfigNode* value = Find(key);
  return value ? ReadNumberList(*value, PathOf(key), sink_) : std::nullopt;
}

void MapReader::Error(std::string_view key, std::string message) {
  ErrorAt(key, key, std::move(message));
}

void MapReader::ErrorAt(std::string_view anchor, std::string_view key,
                        std::string message) {
  if (const ConfigNode* value = Find(anchor)) {
    sink_.Add(*value, PathOf(key), std::move(message));
  } else {
    sink_.AddAfter(node_, PathOf(key), std::move(message));
  }
}

void CollectPathOrders(const ConfigNode& node, const std::string& path,
                       std::map<std::string, int>* orders) {
  orders->emplace(path, node.order);
  for (size_t i = 0; i < node.items.size(); ++i) {
    CollectPathOrders(node.items[i], IndexPath(path, i), orders);
  }
  for (const auto& [key, value] : node.fields) {
    CollectPathOrders(value, JoinPath(path, key), orders);
  }
}

int OrderOfPath(const std::map<std::string, int>& orders, std::string field,
                int fallback) {
  while (!field.empty()) {
    if (auto it = orders.find(field); it != orders.end()) return it->second;
    const size_t cut = field.find_last_of(".[");
    if (cut == std::string::npos) break;
    field.resize(cut);
  }
  return fallback;
}

}  // namespace hptune::config_internal

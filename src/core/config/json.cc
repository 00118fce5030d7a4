// JSON adapter: nlohmann::json's SAX events -> ConfigNode.
//
// The SAX interface (rather than nlohmann::json::parse) is used because a DOM
// silently keeps only the last of duplicate keys, and duplicates must be
// reported; it also keeps numbers as written (`1e-5`, not `1e-05`) for
// messages. Parse errors come back as values, never as exceptions.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/core/config/text.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {
namespace {

using Json = nlohmann::json;

class TreeBuilder : public nlohmann::json_sax<Json> {
 public:
  TreeBuilder(std::string_view text, std::vector<FieldError>* errors)
      : text_(text), errors_(errors) {}

  std::optional<ConfigNode> TakeRoot() { return std::move(root_); }

  bool null() override { return Add(Scalar(ConfigNode::Kind::kNull, "null")); }
  bool boolean(bool value) override {
    ConfigNode node = Scalar(ConfigNode::Kind::kBool, value ? "true" : "false");
    node.boolean = value;
    return Add(std::move(node));
  }
  bool number_integer(number_integer_t value) override {
    return AddNumber(static_cast<double>(value), std::to_string(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return AddNumber(static_cast<double>(value), std::to_string(value));
  }
  bool number_float(number_float_t value, const string_t& text) override {
    return AddNumber(value, text);
  }
  bool string(string_t& value) override {
    return Add(Scalar(ConfigNode::Kind::kString, std::move(value)));
  }
  bool binary(binary_t& /*value*/) override {
    return Fail("binary values are not supported");
  }
  bool start_object(std::size_t /*size*/) override {
    return Open(ConfigNode::Kind::kMap);
  }
  bool key(string_t& key) override {
    keys_.back() = std::move(key);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t /*size*/) override {
    return Open(ConfigNode::Kind::kList);
  }
  bool end_array() override { return Close(); }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& error) override {
    // nlohmann's message starts "[json.exception.parse_error.101] parse error
    // at line 2, column 7: "; keep what follows, with our own position.
    std::string message = error.what();
    if (size_t end = message.find("] "); end != std::string::npos) {
      message.erase(0, end + 2);
    }
    if (message.rfind("parse error", 0) == 0) {
      if (size_t colon = message.find(": "); colon != std::string::npos) {
        message.erase(0, colon + 2);
      }
    }
    errors_->push_back({PositionOf(position), "invalid JSON: " + message});
    return false;
  }

 private:
  ConfigNode Scalar(ConfigNode::Kind kind, std::string text) {
    ConfigNode node;
    node.kind = kind;
    node.text = std::move(text);
    node.order = next_order_++;
    return node;
  }

  bool AddNumber(double value, std::string text) {
    ConfigNode node = Scalar(ConfigNode::Kind::kNumber, std::move(text));
    node.number = value;
    return Add(std::move(node));
  }

  bool Open(ConfigNode::Kind kind) {
    if (open_.size() >= static_cast<size_t>(kMaxConfigDepth)) {
      return Fail("nesting deeper than " + std::to_string(kMaxConfigDepth) +
                  " levels");
    }
    ConfigNode node;
    node.kind = kind;
    node.order = next_order_++;
    open_.push_back(std::move(node));
    keys_.emplace_back();
    return true;
  }

  bool Close() {
    ConfigNode node = std::move(open_.back());
    open_.pop_back();
    keys_.pop_back();
    return Add(std::move(node));
  }

  bool Add(ConfigNode node) {
    if (open_.empty()) {
      root_ = std::move(node);
    } else if (open_.back().kind == ConfigNode::Kind::kMap) {
      open_.back().fields.push_back({std::move(keys_.back()), std::move(node)});
    } else {
      open_.back().items.push_back(std::move(node));
    }
    return true;
  }

  bool Fail(std::string message) {
    errors_->push_back({"(config)", "invalid JSON: " + std::move(message)});
    return false;
  }

  // nlohmann reports how many bytes it read; the last one is the culprit.
  std::string PositionOf(size_t bytes_read) const {
    const size_t end = std::min(bytes_read, text_.size());
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i + 1 < end; ++i) {
      if (text_[i] == '\n') {
        ++line;
        line_start = i + 1;
      }
    }
    const size_t column = end > line_start ? end - line_start : 1;
    return PositionField(line, static_cast<int>(column));
  }

  std::string_view text_;
  std::vector<FieldError>* errors_;
  std::vector<ConfigNode> open_;   // Containers being built, innermost last.
  std::vector<std::string> keys_;  // The pending key of each open mapping.
  std::optional<ConfigNode> root_;
  int next_order_ = 0;
};

}  // namespace

namespace {
std::atomic<int64_t> text_parses{0};
}  // namespace

void CountTextParse() { text_parses.fetch_add(1, std::memory_order_relaxed); }

int64_t TextParseCount() { return text_parses.load(std::memory_order_relaxed); }

TreeParseResult ParseJsonTree(std::string_view text) {
  CountTextParse();
  TreeParseResult result;
  TreeBuilder builder(text, &result.errors);
  try {
    const bool ok = Json::sax_parse(text, &builder);
    if (ok && result.errors.empty()) result.root = builder.TakeRoot();
  } catch (const std::exception& e) {
    result.errors.push_back(
        {"(config)", std::string("invalid JSON: ") + e.what()});
  }
  return result;
}

}  // namespace hptune::config_internal

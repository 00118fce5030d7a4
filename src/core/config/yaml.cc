// YAML adapter: yaml-cpp nodes -> ConfigNode.
//
// Plain scalars are typed with the YAML 1.2 core schema (so `1e-5`, `30`,
// `true` and `~` are a number, a number, a bool and null), quoted and block
// scalars are strings (yaml-cpp tags them "!"). yaml-cpp's typed accessors
// follow YAML 1.1 instead (`yes` is a bool, `1e-5` needs a dot), which is
// why scalars are resolved here. Everything yaml-cpp throws is caught here.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>

#include "src/core/config/text.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {
namespace {

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

bool IsDigits(std::string_view s, bool (*is_digit)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_digit(c)) return false;
  }
  return true;
}
bool IsDec(char c) { return c >= '0' && c <= '9'; }
bool IsOct(char c) { return c >= '0' && c <= '7'; }
bool IsHex(char c) {
  return IsDec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool IsCoreFloat(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  size_t i = 0;
  size_t int_digits = 0;
  while (i < s.size() && IsDec(s[i])) ++i, ++int_digits;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDec(s[i])) ++i, ++frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDec(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// The YAML 1.2 core schema's int and float forms, or nullopt.
std::optional<double> ParseCoreNumber(std::string_view s) {
  if (s == ".nan" || s == ".NaN" || s == ".NAN") {
    return std::numeric_limits<double>::quiet_NaN();
  }
  std::string_view unsigned_part = s;
  double sign = 1;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    sign = s[0] == '-' ? -1 : 1;
    unsigned_part.remove_prefix(1);
  }
  if (unsigned_part == ".inf" || unsigned_part == ".Inf" ||
      unsigned_part == ".INF") {
    return sign * std::numeric_limits<double>::infinity();
  }
  // Octal and hexadecimal are unsigned in the core schema.
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    std::string_view digits = s.substr(2);
    const bool hex = s[1] == 'x';
    if (!IsDigits(digits, hex ? IsHex : IsOct)) return std::nullopt;
    uint64_t value = 0;
    auto [ptr, ec] = std::from_chars(
        digits.data(), digits.data() + digits.size(), value, hex ? 16 : 8);
    if (ec == std::errc::result_out_of_range) {
      return std::numeric_limits<double>::infinity();
    }
    return static_cast<double>(value);
  }
  if (!IsCoreFloat(s)) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(
      unsigned_part.data(), unsigned_part.data() + unsigned_part.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves `value` alone on overflow and underflow; strtod gives
    // HUGE_VAL or 0 (an underflow is still a finite number).
    value = std::strtod(std::string(unsigned_part).c_str(), nullptr);
  }
  return sign * value;
}

class Converter {
 public:
  explicit Converter(std::vector<FieldError>* errors) : errors_(errors) {}

  // False when conversion had to stop (an error was recorded).
  bool Convert(const YAML::Node& node, int line, int depth, ConfigNode* out) {
    out->order = next_order_++;
    out->line = line;
    if (static_cast<size_t>(next_order_) > kMaxConfigNodes) {
      Error(node.Mark(), "more than " + std::to_string(kMaxConfigNodes) +
                             " values (YAML aliases count once for each "
                             "place that refers to them)");
      return false;
    }
    if (depth > kMaxConfigDepth) {
      Error(node.Mark(), "nesting deeper than " +
                             std::to_string(kMaxConfigDepth) + " levels");
      return false;
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        out->kind = ConfigNode::Kind::kNull;
        out->text = "null";
        return true;
      case YAML::NodeType::Scalar:
        return ConvertScalar(node, out);
      case YAML::NodeType::Sequence:
        out->kind = ConfigNode::Kind::kList;
        for (const YAML::Node& item : node) {
          ConfigNode child;
          if (!Convert(item, item.Mark().line + 1, depth + 1, &child)) {
            return false;
          }
          out->items.push_back(std::move(child));
        }
        return true;
      case YAML::NodeType::Map:
        out->kind = ConfigNode::Kind::kMap;
        // Range-for keeps each key/value pair alive; `it->first` would refer
        // into a temporary the iterator's operator-> returns.
        for (const auto& entry : node) {
          const YAML::Node& key = entry.first;
          if (!key.IsScalar()) {
            Error(key.Mark(), "a mapping key must be a plain string");
            return false;
          }
          ConfigNode child;
          // A null value's own mark points past it; its key's mark is right.
          if (!Convert(entry.second, key.Mark().line + 1, depth + 1, &child)) {
            return false;
          }
          out->fields.push_back({key.Scalar(), std::move(child)});
        }
        return true;
    }
    return true;
  }

 private:
  bool ConvertScalar(const YAML::Node& node, ConfigNode* out) {
    const std::string& tag = node.Tag();
    const std::string& text = node.Scalar();
    out->text = text;
    if (tag == "!" || tag == std::string(kTagPrefix) + "str") {
      out->kind = ConfigNode::Kind::kString;
      return true;
    }
    const bool plain = tag == "?" || tag.empty();
    if (plain || tag == std::string(kTagPrefix) + "null") {
      if (text.empty() || text == "~" || text == "null" || text == "Null" ||
          text == "NULL") {
        out->kind = ConfigNode::Kind::kNull;
        out->text = "null";
        return true;
      }
    }
    if (plain || tag == std::string(kTagPrefix) + "bool") {
      if (text == "true" || text == "True" || text == "TRUE") {
        out->kind = ConfigNode::Kind::kBool;
        out->boolean = true;
        return true;
      }
      if (text == "false" || text == "False" || text == "FALSE") {
        out->kind = ConfigNode::Kind::kBool;
        out->boolean = false;
        return true;
      }
    }
    if (plain || tag == std::string(kTagPrefix) + "int" ||
        tag == std::string(kTagPrefix) + "float") {
      if (std::optional<double> number = ParseCoreNumber(text)) {
        out->kind = ConfigNode::Kind::kNumber;
        out->number = *number;
        return true;
      }
    }
    if (plain) {
      out->kind = ConfigNode::Kind::kString;
      return true;
    }
    Error(node.Mark(), "cannot read \"" + text + "\" as YAML tag " + tag);
    return false;
  }

  void Error(const YAML::Mark& mark, std::string message) {
    errors_->push_back({PositionField(mark.line + 1, mark.column + 1),
                        "invalid YAML: " + std::move(message)});
  }

  std::vector<FieldError>* errors_;
  int next_order_ = 0;
};

// Counts a stream's documents up to two. yaml-cpp 0.7's LoadAll never
// returns on some malformed input ("[5],": after the first document it keeps
// producing empty ones without consuming the bad token, allocating as it
// goes; jbeder/yaml-cpp#1040, fixed upstream after 0.8), so documents are
// counted with the parser's events first and at most two are ever read.
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents() const { return documents_; }
  // Where the second document starts, and whether it held nothing but a
  // null: what the parser makes of stray text after the first document.
  const YAML::Mark& second_start() const { return second_start_; }
  bool second_is_stray() const { return second_events_ == 1 && second_null_; }

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ == 2) second_start_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override {
    Event(mark);
    if (documents_ == 2) second_null_ = true;
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { Event(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    Event(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&,
                       YAML::anchor_t, YAML::EmitterStyle::value) override {
    Event(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    Event(mark);
  }
  void OnMapEnd() override {}

 private:
  void Event(const YAML::Mark& mark) {
    if (documents_ != 2) return;
    if (second_events_++ == 0) second_start_ = mark;
  }

  int documents_ = 0;
  YAML::Mark second_start_ = YAML::Mark::null_mark();
  int second_events_ = 0;
  bool second_null_ = false;
};

std::string MarkField(const YAML::Mark& mark) {
  return mark.line >= 0 ? PositionField(mark.line + 1, mark.column + 1)
                        : "(config)";
}

}  // namespace

TreeParseResult ParseYamlTree(std::string_view text) {
  CountTextParse();
  TreeParseResult result;
  try {
    std::stringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    DocumentCounter counter;
    while (counter.documents() < 2 && parser.HandleNextDocument(counter)) {
    }
    if (counter.documents() == 0) return result;
    if (counter.documents() > 1) {
      result.errors.push_back(
          {MarkField(counter.second_start()),
           counter.second_is_stray()
               ? "invalid YAML: unexpected text after the end of the config"
               : "invalid config: only one YAML document is allowed"});
      return result;
    }
    const YAML::Node document = YAML::Load(std::string(text));
    ConfigNode root;
    Converter converter(&result.errors);
    if (converter.Convert(document, document.Mark().line + 1, 0, &root)) {
      result.root = std::move(root);
    }
  } catch (const YAML::Exception& e) {
    result.errors.push_back(
        {e.mark.line >= 0 ? PositionField(e.mark.line + 1, e.mark.column + 1)
                          : "(config)",
         "invalid YAML: " + e.msg});
  } catch (const std::exception& e) {
    result.errors.push_back(
        {"(config)", std::string("invalid YAML: ") + e.what()});
  }
  return result;
}

}  // namespace hptune::config_internal

// Field paths and quoted values in messages (hptune/core/field_text.h).
#include "hptune/core/field_text.h"

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/config/text.h"

namespace hptune::field_text {

std::string Quote(std::string_view text) {
  // An error that quotes a megabyte is unreadable and may not travel.
  constexpr size_t kMaxQuoted = 256;
  const size_t total = text.size();
  if (total > kMaxQuoted) text = text.substr(0, kMaxQuoted);
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x",
                        static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buffer;
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
  if (total > kMaxQuoted) {
    out += "... (" + std::to_string(total) + " bytes)";
  }
  return out;
}

std::string JoinPath(std::string_view prefix, std::string_view field) {
  if (prefix.empty()) return std::string(field);
  std::string out(prefix);
  out.push_back('.');
  out.append(field);
  return out;
}

std::string IndexPath(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

std::string MustBeOneOf(const std::vector<std::string>& allowed,
                        std::string_view got) {
  std::string out = "must be one of ";
  for (size_t i = 0; i < allowed.size(); ++i) {
    if (i > 0) out += ", ";
    out += allowed[i];
  }
  return out + ", got " + Quote(got) +
         config_internal::DidYouMean(got, allowed);
}

std::string DidYouMean(std::string_view got,
                       const std::vector<std::string>& candidates) {
  return config_internal::DidYouMean(got, candidates);
}

bool IsUnderAny(const std::string& field,
                const std::vector<std::string>& roots) {
  for (const std::string& root : roots) {
    if (field.rfind(root, 0) != 0) continue;
    if (field.size() == root.size() || field[root.size()] == '.' ||
        field[root.size()] == '[') {
      return true;
    }
  }
  return false;
}

std::string DescribeStrings(const std::vector<std::string>& list) {
  // Describe's rule for a list node (src/core/config/reader.h).
  constexpr size_t kMaxShown = 60;
  std::string shown = "[";
  for (const std::string& item : list) {
    if (shown.size() > 1) shown += ", ";
    shown += Quote(item);
  }
  if (shown.size() < kMaxShown) return shown + "]";
  return "a list of " + std::to_string(list.size()) +
         (list.size() == 1 ? " item" : " items");
}

}  // namespace hptune::field_text

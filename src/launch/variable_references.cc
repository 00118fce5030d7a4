#include "src/launch/variable_references.h"

namespace hptune::launch {

// Kubernetes' expansion (k8s.io/kubernetes third_party/forked/golang/
// expansion): one pass, left to right, no nesting; an unclosed `$(` and
// anything after it stay as written.
std::string ExpandVariableReferences(
    std::string_view text, const std::map<std::string, std::string>& env) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    const char next = text[i + 1];
    if (next == '$') {  // `$$`: one literal `$`.
      out += '$';
      ++i;
      continue;
    }
    if (next != '(') {
      out += '$';
      continue;
    }
    const size_t close = text.find(')', i + 2);
    if (close == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    const std::string name(text.substr(i + 2, close - i - 2));
    const auto found = env.find(name);
    if (!name.empty() && found != env.end()) {
      out += found->second;
    } else {
      out.append(text.substr(i, close - i + 1));
    }
    i = close;
  }
  return out;
}

std::vector<std::string> ExpandVariableReferences(
    const std::vector<std::string>& words,
    const std::map<std::string, std::string>& env) {
  std::vector<std::string> out;
  out.reserve(words.size());
  for (const std::string& word : words) {
    out.push_back(ExpandVariableReferences(word, env));
  }
  return out;
}

}  // namespace hptune::launch

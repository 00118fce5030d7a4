#include "src/cli/flags.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/field_text.h"

namespace hptune::cli {

std::optional<std::string> ParsedArgs::Get(const std::string& name) const {
  auto it = flags.find(name);
  if (it == flags.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> ParsedArgs::GetAll(const std::string& name) const {
  auto it = repeated.find(name);
  if (it == repeated.end()) return {};
  return it->second;
}

template <typename Int>
absl::StatusOr<Int> IntegerFlag(const ParsedArgs& args, const std::string& name,
                                Int min, std::optional<Int> max,
                                const char* what) {
  const std::string text = *args.Get(name);
  Int value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < min ||
      (max.has_value() && value > *max)) {
    const std::string range = max.has_value()
                                  ? absl::StrCat(" from ", min, " to ", *max)
                                  : absl::StrCat(" >= ", min);
    return absl::InvalidArgumentError(absl::StrCat(
        "--", name, ": expected ", what, range, ", got \"", text, "\""));
  }
  return value;
}

template absl::StatusOr<int> IntegerFlag(const ParsedArgs&, const std::string&,
                                         int, std::optional<int>, const char*);
template absl::StatusOr<int64_t> IntegerFlag(const ParsedArgs&,
                                             const std::string&, int64_t,
                                             std::optional<int64_t>,
                                             const char*);

namespace {

// " (did you mean --max-trials?)" for a near miss among the known flags.
std::string UnknownFlagHint(const std::string& name,
                            const std::set<std::string>& value_flags,
                            const std::set<std::string>& bool_flags,
                            const std::set<std::string>& repeated_flags) {
  std::vector<std::string> known;
  for (const auto* names : {&value_flags, &bool_flags, &repeated_flags}) {
    for (const std::string& flag : *names) known.push_back("--" + flag);
  }
  return field_text::DidYouMean("--" + name, known);
}

}  // namespace

absl::StatusOr<ParsedArgs> ParseArgs(
    const std::vector<std::string>& args,
    const std::set<std::string>& value_flags,
    const std::set<std::string>& bool_flags,
    const std::set<std::string>& repeated_flags) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      parsed.after_dashes.assign(args.begin() + i + 1, args.end());
      break;
    }
    if (arg.size() < 3 || arg.rfind("--", 0) != 0) {
      parsed.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (bool_flags.contains(name)) {
      if (value && *value != "true" && *value != "false") {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag --", name, " takes no value (or true/false), got ", *value));
      }
      parsed.flags[name] = value.value_or("true");
      continue;
    }
    const bool repeatable = repeated_flags.contains(name);
    if (!value_flags.contains(name) && !repeatable) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown flag --", name,
          UnknownFlagHint(name, value_flags, bool_flags, repeated_flags)));
    }
    if (!value) {
      if (i + 1 == args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag --", name, " needs a value"));
      }
      value = args[++i];
    }
    if (repeatable) {
      parsed.repeated[name].push_back(*value);
    } else {
      parsed.flags[name] = *value;
    }
  }
  return parsed;
}

EnvLookup ProcessEnv() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::vector<std::string> TakeRepeatedFlag(std::vector<std::string>& args,
                                          const std::string& flag) {
  std::vector<std::string> values, rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      rest.insert(rest.end(), args.begin() + i, args.end());
      break;
    }
    if (a.rfind(flag + "=", 0) == 0) {
      values.push_back(a.substr(flag.size() + 1));
    } else if (a == flag && i + 1 < args.size()) {
      values.push_back(args[++i]);
    } else {
      rest.push_back(a);
    }
  }
  args = std::move(rest);
  return values;
}

}  // namespace hptune::cli

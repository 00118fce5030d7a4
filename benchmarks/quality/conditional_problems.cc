#include "benchmarks/quality/conditional_problems.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace hptune::quality {
namespace {

// Only for calls that break a precondition (a programmer's error, or a
// designer's: an assignment that is not the space's active set).
[[noreturn]] void DieBecause(const std::string& why) {
  std::fprintf(stderr, "quality: broken invariant: %s\n", why.c_str());
  std::abort();
}

double Square(double v) { return v * v; }

ParameterSpec Double(std::string name, double min, double max,
                     ScaleType scale = ScaleType::kLinear) {
  return ParameterSpec{.name = std::move(name),
                       .type = ParameterType::kDouble,
                       .min_value = min,
                       .max_value = max,
                       .scale = scale};
}

ParameterSpec Integer(std::string name, double min, double max) {
  return ParameterSpec{.name = std::move(name),
                       .type = ParameterType::kInteger,
                       .min_value = min,
                       .max_value = max,
                       .scale = ScaleType::kLinear};
}

ParameterSpec Categorical(std::string name, std::vector<std::string> values) {
  return ParameterSpec{.name = std::move(name),
                       .type = ParameterType::kCategorical,
                       .categorical_values = std::move(values)};
}

ParameterSpec Discrete(std::string name, std::vector<double> values) {
  return ParameterSpec{.name = std::move(name),
                       .type = ParameterType::kDiscrete,
                       .discrete_values = std::move(values),
                       .scale = ScaleType::kLinear};
}

// `child` hung under `parent` by the matching list of values.
ParameterSpec WhenCategory(ParameterSpec child, std::string parent,
                           std::vector<std::string> values) {
  child.condition = ParentCondition{.parent = std::move(parent),
                                    .categorical_values = std::move(values)};
  return child;
}
ParameterSpec WhenInteger(ParameterSpec child, std::string parent,
                          std::vector<int64_t> values) {
  child.condition = ParentCondition{.parent = std::move(parent),
                                    .int_values = std::move(values)};
  return child;
}
ParameterSpec WhenDiscrete(ParameterSpec child, std::string parent,
                           std::vector<double> values) {
  child.condition = ParentCondition{.parent = std::move(parent),
                                    .discrete_values = std::move(values)};
  return child;
}

// `f` behind a check that it gets exactly the active parameters of `space`.
TestFunction Problem(std::string name, SearchSpace space, double optimum,
                     double (*f)(const ParameterAssignment&)) {
  auto evaluate = [name, space, f](const ParameterAssignment& a) {
    if (absl::Status s = space.CheckAssignment(a); !s.ok()) {
      DieBecause(absl::StrCat(name, " evaluated at an assignment that is not ",
                              "its active set: ", s.message()));
    }
    return f(a);
  };
  return TestFunction{.name = std::move(name),
                      .space = std::move(space),
                      .optimum = optimum,
                      .evaluate = std::move(evaluate)};
}

double Get(const ParameterAssignment& a, const std::string& name) {
  return a.at(name).AsDouble();
}

double Jenatton(const ParameterAssignment& a) {
  if (a.at("x1").AsInteger() == 0) {
    const double r8 = Get(a, "r8");
    return a.at("x2").AsInteger() == 0 ? Square(Get(a, "x4")) + 0.1 + r8
                                       : Square(Get(a, "x5")) + 0.2 + r8;
  }
  const double r9 = Get(a, "r9");
  return a.at("x3").AsInteger() == 0 ? Square(Get(a, "x6")) + 0.3 + r9
                                     : Square(Get(a, "x7")) + 0.4 + r9;
}

TestFunction MakeJenatton() {
  return Problem("jenatton",
                 SearchSpace({
                     Integer("x1", 0, 1),
                     WhenInteger(Integer("x2", 0, 1), "x1", {0}),
                     WhenInteger(Double("x4", 0, 1), "x2", {0}),
                     WhenInteger(Double("x5", 0, 1), "x2", {1}),
                     WhenInteger(Double("r8", 0, 1), "x1", {0}),
                     WhenInteger(Integer("x3", 0, 1), "x1", {1}),
                     WhenInteger(Double("x6", 0, 1), "x3", {0}),
                     WhenInteger(Double("x7", 0, 1), "x3", {1}),
                     WhenInteger(Double("r9", 0, 1), "x1", {1}),
                 }),
                 0.1, Jenatton);
}

double OptimizerChoice(const ParameterAssignment& a) {
  const std::string& optimizer = a.at("optimizer").AsString();
  if (optimizer == "sgd") {
    const double m = Get(a, "sgd_momentum");
    const double u = std::log10(Get(a, "sgd_lr") / (1 - m));
    return 0.12 + 0.05 * Square(u) + 0.2 * Square(m - 0.9);
  }
  if (optimizer == "adam") {
    return 0.08 + 0.05 * Square(std::log10(Get(a, "adam_lr")) + 3) +
           0.3 * Square(Get(a, "adam_beta1") - 0.9) +
           0.02 * Square(std::log10(1 - Get(a, "adam_beta2")) + 3);
  }
  if (optimizer == "rmsprop") {
    return 0.10 + 0.05 * Square(std::log10(Get(a, "rmsprop_lr")) + 3.5);
  }
  DieBecause(absl::StrCat("optimizer_choice of optimizer ", optimizer));
}

TestFunction MakeOptimizerChoice() {
  constexpr std::string_view kParent = "optimizer";
  auto when = [&](ParameterSpec child, std::string value) {
    return WhenCategory(std::move(child), std::string(kParent),
                        {std::move(value)});
  };
  return Problem(
      "optimizer_choice",
      SearchSpace({
          Categorical(std::string(kParent), {"sgd", "adam", "rmsprop"}),
          when(Double("sgd_lr", 1e-4, 1, ScaleType::kLog), "sgd"),
          when(Double("sgd_momentum", 0, 0.99), "sgd"),
          when(Double("adam_lr", 1e-5, 0.1, ScaleType::kLog), "adam"),
          when(Double("adam_beta1", 0.5, 0.99), "adam"),
          when(Double("adam_beta2", 0.9, 0.9999, ScaleType::kReverseLog),
               "adam"),
          when(Double("rmsprop_lr", 1e-5, 0.1, ScaleType::kLog), "rmsprop"),
      }),
      0.08, OptimizerChoice);
}

double ModelTree(const ParameterAssignment& a) {
  const std::string& model = a.at("model").AsString();
  if (model == "linear") {
    switch (a.at("degree").AsInteger()) {
      case 1:
        return 0.30;
      case 2:
        return 0.22 + 0.02 * Square(std::log10(Get(a, "l2")) + 3);
      case 3:
        return 0.24 + 0.03 * Square(std::log10(Get(a, "l2")) + 2);
      default:
        DieBecause(
            absl::StrCat("model_tree of degree ", a.at("degree").AsInteger()));
    }
  }
  if (model != "tree") DieBecause(absl::StrCat("model_tree of model ", model));
  const std::string& booster = a.at("booster").AsString();
  const double booster_term =
      booster == "gbdt" ? 0.16 : 0.15 + 0.4 * Square(Get(a, "drop_rate") - 0.1);
  const double fraction = Get(a, "bagging_fraction");
  const double bagging = fraction == 1
                             ? 0.01
                             : 0.1 * Square(fraction - 0.7) +
                                   0.002 * Square(Get(a, "bagging_freq") - 5);
  return booster_term + 0.05 * Square(std::log10(Get(a, "learning_rate")) + 1) +
         0.004 * Square(Get(a, "max_depth") - 6) + bagging;
}

TestFunction MakeModelTree() {
  return Problem(
      "model_tree",
      SearchSpace({
          Categorical("model", {"linear", "tree"}),
          WhenCategory(Integer("degree", 1, 3), "model", {"linear"}),
          WhenInteger(Double("l2", 1e-6, 1, ScaleType::kLog), "degree", {2, 3}),
          WhenCategory(Categorical("booster", {"gbdt", "dart"}), "model",
                       {"tree"}),
          WhenCategory(Double("drop_rate", 0, 0.5), "booster", {"dart"}),
          WhenCategory(Double("learning_rate", 1e-3, 1, ScaleType::kLog),
                       "model", {"tree"}),
          WhenCategory(Integer("max_depth", 2, 12), "model", {"tree"}),
          WhenCategory(Discrete("bagging_fraction", {0.5, 0.7, 0.9, 1}),
                       "model", {"tree"}),
          WhenDiscrete(Integer("bagging_freq", 1, 10), "bagging_fraction",
                       {0.5, 0.7, 0.9}),
      }),
      0.15, ModelTree);
}

}  // namespace

const std::vector<TestFunction>& ConditionalSuite() {
  static const std::vector<TestFunction>* const kSuite =
      new std::vector<TestFunction>{MakeJenatton(), MakeOptimizerChoice(),
                                    MakeModelTree()};
  return *kSuite;
}

absl::StatusOr<const TestFunction*> FindConditionalProblem(
    std::string_view name) {
  std::vector<std::string> names;
  for (const TestFunction& f : ConditionalSuite()) {
    if (f.name == name) return &f;
    names.push_back(f.name);
  }
  return absl::NotFoundError(
      absl::StrCat("unknown conditional problem \"", std::string(name),
                   "\" (known: ", absl::StrJoin(names, ", "), ")"));
}

absl::StatusOr<ParameterAssignment> ParseAssignment(const SearchSpace& space,
                                                    std::string_view text) {
  ParameterAssignment out;
  if (text.empty()) return out;
  const std::vector<std::string> items = absl::StrSplit(std::string(text), ';');
  for (std::string_view item : items) {
    const size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected name=value, got \"", std::string(item), "\""));
    }
    const std::string name(item.substr(0, equals));
    const std::string value(item.substr(equals + 1));
    const ParameterSpec* spec = space.Find(name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("no parameter is named \"", name, "\""));
    }
    ParameterValue parsed;
    if (spec->type == ParameterType::kCategorical) {
      parsed = ParameterValue::Categorical(value);
    } else if (spec->type == ParameterType::kInteger) {
      int64_t v = 0;
      if (!absl::SimpleAtoi(value, &v)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter \"", name, "\": not an integer: \"", value, "\""));
      }
      parsed = ParameterValue::Integer(v);
    } else {
      double v = 0;
      if (!absl::SimpleAtod(value, &v)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter \"", name, "\": not a number: \"", value, "\""));
      }
      parsed = ParameterValue::Double(v);
    }
    if (!out.emplace(name, std::move(parsed)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", name, "\" given twice"));
    }
  }
  return out;
}

}  // namespace hptune::quality

// A Vertex studySpec as AI Platform's trainingInput.hyperparameters
// (vertex.h): metrics, the stopping specs, and the parameters with their
// value specs and conditional children.
#include <string>
#include <utility>
#include <vector>

#include "src/core/config/vertex_translator.h"

namespace hptune::config_internal::vertex {

void Translator::TranslateStudy(const MapReader& root,
                                ConfigNode& training_input) {
  static const FieldSet kStudyFields =
      Fields({"metrics", "parameters", "algorithm", "observationNoise",
              "measurementSelectionType", "decayCurveStoppingSpec",
              "medianAutomatedStoppingSpec", "convexAutomatedStoppingSpec",
              "earlyStoppingRule", "earlyStoppingSettings", "seed"},
             {},
             {{"studyStoppingConfig",
               "hptune ends a study at maxTrialCount; leave it out"}});
  const ConfigNode* node = root.Find("studySpec");
  if (node == nullptr) {
    sink_.AddAfter(root.node(), "studySpec", "required");
    return;
  }
  if (!ExpectMap(*node, "studySpec", sink_)) return;
  MapReader study(*node, "studySpec", kStudyFields, sink_);
  ConfigNode out = MapAt(node->order);
  Map(kStudy, "studySpec");
  TranslateMetrics(study, out);
  for (const FieldName& count : kStudyCounts) {
    Copy(root, count.vertex, out, kStudy, std::string(count.ai));
  }
  TranslateStopping(study, out);
  Copy(study, "algorithm", out, kStudy, "algorithm");
  Copy(study, "seed", out, kStudy, "seed");
  if (auto noise = study.String("observationNoise")) {
    if (*noise != "OBSERVATION_NOISE_UNSPECIFIED" && *noise != "LOW" &&
        *noise != "HIGH") {
      study.Error("observationNoise",
                  MustBeOneOf({"OBSERVATION_NOISE_UNSPECIFIED", "LOW", "HIGH"},
                              *noise));
    }
    out_.ignored.push_back(study.PathOf("observationNoise"));
  }
  // Checked and kept by the hyperparameters reader (one name table).
  Copy(study, "measurementSelectionType", out, kStudy,
       "measurementSelectionType");
  const ConfigNode* parameters = study.Find("parameters");
  if (parameters == nullptr) {
    study.Error("parameters", "required");
  } else if (ExpectList(*parameters, "studySpec.parameters", sink_)) {
    ConfigNode params = *parameters;
    params.items.clear();
    for (size_t i = 0; i < parameters->items.size(); ++i) {
      params.items.push_back(TranslateParameter(
          parameters->items[i], IndexPath("studySpec.parameters", i),
          IndexPath(std::string(kStudy) + ".params", i)));
    }
    Put(out, "params", std::move(params));
    Map(std::string(kStudy) + ".params", "studySpec.parameters");
  }
  Put(training_input, "hyperparameters", std::move(out));
}

// One metric without a safety threshold is AI Platform's goal and tag, so
// the study equals the one an AI Platform config of it gives.
void Translator::TranslateMetrics(MapReader& study, ConfigNode& out) {
  static const FieldSet kMetric = Fields({"metricId", "goal", "safetyConfig"});
  static const FieldSet kSafety =
      Fields({"safetyThreshold", "desiredMinSafeTrialsFraction"});
  const ConfigNode* metrics = study.Find("metrics");
  if (metrics == nullptr) {
    study.Error("metrics", "required");
    return;
  }
  const std::string path = study.PathOf("metrics");
  if (!ExpectList(*metrics, path, sink_)) return;
  const std::string ai = std::string(kStudy) + ".metrics";
  ConfigNode list = *metrics;
  list.items.clear();
  for (size_t i = 0; i < metrics->items.size(); ++i) {
    const std::string item = IndexPath(path, i);
    if (!ExpectMap(metrics->items[i], item, sink_)) continue;
    MapReader metric(metrics->items[i], item, kMetric, sink_);
    ConfigNode entry = MapAt(metrics->items[i].order);
    const std::string ai_item = IndexPath(ai, i);
    Map(ai_item, item);
    Copy(metric, "metricId", entry, ai_item, "metricId");
    Copy(metric, "goal", entry, ai_item, "goal");
    if (!metric.Has("metricId")) metric.Error("metricId", "required");
    if (!metric.Has("goal")) metric.Error("goal", "required");
    if (const ConfigNode* safety = metric.Find("safetyConfig");
        safety && ExpectMap(*safety, metric.PathOf("safetyConfig"), sink_)) {
      MapReader config(*safety, metric.PathOf("safetyConfig"), kSafety, sink_);
      Copy(config, "safetyThreshold", entry, ai_item, "safetyThreshold");
      Copy(config, "desiredMinSafeTrialsFraction", entry, ai_item,
           "desiredMinSafeTrialsFraction");
    }
    list.items.push_back(std::move(entry));
  }
  Map(ai, path);
  if (list.items.size() == 1 && list.items[0].fields.size() == 2 &&
      metrics->items.size() == 1) {
    for (ConfigField& field : list.items[0].fields) {
      const bool goal = field.key == "goal";
      const std::string key = goal ? "goal" : "hyperparameterMetricTag";
      Map(JoinPath(kStudy, key),
          IndexPath(path, 0) + (goal ? ".goal" : ".metricId"));
      Put(out, key, std::move(field.value));
    }
    return;
  }
  Put(out, "metrics", std::move(list));
}

// Each of Vertex's three automated stopping specs turns on the study's
// early stopping with the rule of that name (docs/config.md); hptune's
// earlyStoppingRule names any registered rule instead, and hptune's
// earlyStoppingSettings is the rule's settings block, as in AI Platform's
// form (the config's rules, errors naming the Vertex path).
void Translator::TranslateStopping(MapReader& study, ConfigNode& out) {
  static const FieldSet kDecay = Fields({"useElapsedDuration"});
  static const FieldSet kConvex =
      Fields({"maxStepCount", "minStepCount", "minMeasurementCount",
              "learningRateParameterName", "useElapsedDuration",
              "updateAllStoppedTrials"});
  const ConfigNode* chosen = nullptr;
  std::string_view rule;
  for (const auto& [key, name] : kVertexStoppingRules) {
    const ConfigNode* node = study.Find(key);
    if (node == nullptr) continue;
    if (chosen != nullptr) {
      study.Error(key, "give one automated stopping spec, got a second");
      continue;
    }
    chosen = node;
    rule = name;
    if (!ExpectMap(*node, study.PathOf(key), sink_)) continue;
    MapReader spec(*node, study.PathOf(key),
                   key == "convexAutomatedStoppingSpec" ? kConvex : kDecay,
                   sink_);
    if (auto elapsed = spec.Bool("useElapsedDuration"); elapsed && *elapsed) {
      spec.Error("useElapsedDuration",
                 "true is not supported: hptune compares trials at the same "
                 "step, got true");
    }
    if (key == "convexAutomatedStoppingSpec") {
      TranslateConvex(spec, node->order, out);
    }
  }
  if (chosen != nullptr && study.Has("earlyStoppingRule")) {
    study.Error("earlyStoppingRule",
                "give an automated stopping spec or hptune's "
                "earlyStoppingRule, not both");
  } else if (chosen != nullptr) {
    Put(out, "earlyStoppingRule",
        ScalarAt(Kind::kString, std::string(rule), chosen->order));
  } else {
    Copy(study, "earlyStoppingRule", out, kStudy, "earlyStoppingRule");
  }
  Copy(study, "earlyStoppingSettings", out, kStudy, "earlyStoppingSettings");
}

// The convex rule's settings become hptune's convexStopping; Vertex's
// learning-rate model and rewriting of stopped trials are not hptune's.
void Translator::TranslateConvex(const MapReader& spec, int order,
                                 ConfigNode& out) {
  const std::string path = JoinPath(kStudy, "convexStopping");
  ConfigNode settings = MapAt(order);
  for (const char* field :
       {"maxStepCount", "minStepCount", "minMeasurementCount"}) {
    Copy(spec, field, settings, path, field);
  }
  if (!settings.fields.empty()) Put(out, "convexStopping", std::move(settings));
  Ignore(spec, {"learningRateParameterName", "updateAllStoppedTrials"});
}

ConfigNode Translator::TranslateParameter(const ConfigNode& node,
                                          const std::string& vertex,
                                          const std::string& ai) {
  static const FieldSet kParameter =
      Fields({"parameterId", "doubleValueSpec", "integerValueSpec",
              "discreteValueSpec", "categoricalValueSpec", "scaleType",
              "conditionalParameterSpecs"});
  ConfigNode out = MapAt(node.order);
  if (!ExpectMap(node, vertex, sink_)) return node;
  MapReader reader(node, vertex, kParameter, sink_);
  Map(ai, vertex);
  Copy(reader, "parameterId", out, ai, "parameterName");
  if (!reader.Has("parameterId")) reader.Error("parameterId", "required");
  TranslateValueSpec(reader, ai, out);
  if (auto scale = reader.String("scaleType");
      scale && *scale != "SCALE_TYPE_UNSPECIFIED") {
    Copy(reader, "scaleType", out, ai, "scaleType");
  }
  if (const ConfigNode* children = reader.Find("conditionalParameterSpecs")) {
    const std::string path = reader.PathOf("conditionalParameterSpecs");
    if (ExpectList(*children, path, sink_)) {
      ConfigNode list = *children;
      list.items.clear();
      for (size_t i = 0; i < children->items.size(); ++i) {
        list.items.push_back(TranslateConditional(
            children->items[i], IndexPath(path, i),
            IndexPath(ai + ".conditionalParameterSpecs", i)));
      }
      Put(out, "conditionalParameterSpecs", std::move(list));
    }
  }
  return out;
}

void Translator::TranslateValueSpec(MapReader& reader, const std::string& ai,
                                    ConfigNode& out) {
  static const FieldSet kRange =
      Fields({"minValue", "maxValue"}, {"defaultValue"});
  static const FieldSet kValues = Fields({"values"}, {"defaultValue"});
  const ValueSpecName* chosen = nullptr;
  for (const ValueSpecName& spec : kValueSpecs) {
    const ConfigNode* node = reader.Find(spec.key);
    if (node == nullptr) continue;
    if (chosen != nullptr) {
      reader.Error(spec.key, "give one value spec, got " +
                                 std::string(chosen->key) + " too");
      continue;
    }
    chosen = &spec;
    const std::string path = reader.PathOf(spec.key);
    Put(out, "type",
        ScalarAt(Kind::kString, std::string(spec.type), node->order));
    Map(ai + ".type", path);
    if (!ExpectMap(*node, path, sink_)) continue;
    MapReader values(*node, path, spec.range ? kRange : kValues, sink_);
    Ignore(values, {"defaultValue"});
    if (spec.range) {
      for (const char* bound : {"minValue", "maxValue"}) {
        Map(ai + "." + bound, values.PathOf(bound));
        const ConfigNode* value = values.Find(bound);
        if (value == nullptr) continue;
        Put(out, bound, spec.integer ? Int64Node(*value) : *value);
      }
    } else {
      const std::string key = spec.key == "discreteValueSpec"
                                  ? "discreteValues"
                                  : "categoricalValues";
      Map(ai + "." + key, values.PathOf("values"));
      Copy(values, "values", out, ai, key);
    }
  }
  if (chosen == nullptr) {
    sink_.AddAfter(reader.node(), reader.path(),
                   "needs one of doubleValueSpec, integerValueSpec, "
                   "discreteValueSpec or categoricalValueSpec");
  }
}

ConfigNode Translator::TranslateConditional(const ConfigNode& node,
                                            const std::string& vertex,
                                            const std::string& ai) {
  static const FieldSet kConditional =
      Fields({"parentDiscreteValues", "parentIntValues",
              "parentCategoricalValues", "parameterSpec"});
  if (!ExpectMap(node, vertex, sink_)) return node;
  MapReader reader(node, vertex, kConditional, sink_);
  ConfigNode out = MapAt(node.order);
  Map(ai, vertex);
  for (std::string_view key :
       {"parentDiscreteValues", "parentIntValues", "parentCategoricalValues"}) {
    const ConfigNode* parent = reader.Find(key);
    if (parent == nullptr) continue;
    ConfigNode copy = *parent;
    if (key == "parentIntValues" && copy.kind == Kind::kMap) {
      for (ConfigField& field : copy.fields) {
        if (field.key == "values") field.value = Int64List(field.value);
      }
    }
    Put(out, std::string(key), std::move(copy));
  }
  if (const ConfigNode* spec = reader.Find("parameterSpec")) {
    Put(out, "parameterSpec",
        TranslateParameter(*spec, reader.PathOf("parameterSpec"),
                           ai + ".parameterSpec"));
  }
  return out;
}

}  // namespace hptune::config_internal::vertex

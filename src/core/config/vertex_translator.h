// The translator of a Vertex AI HyperparameterTuningJob into the config
// tree of the same job in AI Platform's form (vertex.h has the design), and
// the node helpers its parts share: vertex.cc (the root), vertex_study.cc
// (studySpec) and vertex_job_spec.cc (trialJobSpec, jobSpec). Internal to
// config parsing; a Translator reads one spec, the helpers are pure.
#ifndef HPTUNE_SRC_CORE_CONFIG_VERTEX_TRANSLATOR_H_
#define HPTUNE_SRC_CORE_CONFIG_VERTEX_TRANSLATOR_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "src/core/config/reader.h"
#include "src/core/config/text.h"
#include "src/core/config/tree.h"
#include "src/core/config/vertex.h"
#include "src/core/config/vertex_names.h"

namespace hptune::config_internal::vertex {

using Kind = ConfigNode::Kind;

inline constexpr char kTrainingInput[] = "trainingInput";
inline constexpr char kStudy[] = "trainingInput.hyperparameters";

FieldSet Fields(std::vector<std::string> accepted,
                const std::vector<std::string>& ignored = {},
                std::map<std::string, std::string> unsupported = {});
ConfigNode MapAt(int order);
ConfigNode ScalarAt(Kind kind, std::string text, int order);
void Put(ConfigNode& map, std::string key, ConfigNode value);
// An int64 of Vertex's JSON, which protobuf writes as a decimal string, as
// the number AI Platform's field takes; anything else as written.
ConfigNode Int64Node(const ConfigNode& node);
// Int64Node of each item of a list.
ConfigNode Int64List(const ConfigNode& node);

class Translator {
 public:
  explicit Translator(ErrorSink& sink) : sink_(sink) {}

  // A HyperparameterTuningJob, or a CustomJob (IsVertexCustomJob): the
  // same job without a study.
  VertexTranslation Translate(const ConfigNode& root);

 private:
  void Map(const std::string& ai, const std::string& vertex) {
    out_.paths[ai] = vertex;
  }
  void Ignore(const MapReader& reader, const std::vector<std::string>& keys) {
    for (const std::string& key : keys) {
      if (reader.Has(key)) out_.ignored.push_back(reader.PathOf(key));
    }
  }
  // Copies `key` of `reader` into `to` as `as`, mapping the paths.
  void Copy(const MapReader& reader, std::string_view key, ConfigNode& to,
            const std::string& to_path, const std::string& as) {
    const ConfigNode* node = reader.Find(key);
    if (node == nullptr) return;
    Put(to, as, *node);
    Map(JoinPath(to_path, as), reader.PathOf(key));
  }

  void TranslateStudy(const MapReader& root, ConfigNode& training_input);
  void TranslateConvex(const MapReader& spec, int order, ConfigNode& out);
  void TranslateMetrics(MapReader& study, ConfigNode& out);
  void TranslateStopping(MapReader& study, ConfigNode& out);
  ConfigNode TranslateParameter(const ConfigNode& node,
                                const std::string& vertex,
                                const std::string& ai);
  void TranslateValueSpec(MapReader& reader, const std::string& ai,
                          ConfigNode& out);
  ConfigNode TranslateConditional(const ConfigNode& node,
                                  const std::string& vertex,
                                  const std::string& ai);
  // `key`: trialJobSpec, or a CustomJob's jobSpec.
  void TranslateJobSpec(const ConfigNode& node, const std::string& key,
                        ConfigNode& training_input);
  void TranslatePool(const ConfigNode& node, size_t index,
                     const std::string& vertex, ConfigNode& training_input);
  void TranslateMachine(MapReader& pool, const PoolNames& names,
                        ConfigNode& training_input, ConfigNode& config);
  void TranslateContainer(MapReader& pool, const std::string& config_path,
                          ConfigNode& config);
  void TranslateScheduling(MapReader& job, ConfigNode& training_input);

  ErrorSink& sink_;
  VertexTranslation out_;
};

}  // namespace hptune::config_internal::vertex

#endif  // HPTUNE_SRC_CORE_CONFIG_VERTEX_TRANSLATOR_H_

// Reading a Vertex AI HyperparameterTuningJob (the REST API's camelCase
// JSON, or the same in YAML, as `gcloud ai hp-tuning-jobs create --config`
// takes it) as a job config.
//
// Private to config parsing (parser.cc). A Vertex spec is checked for its
// own shape (unknown fields, one value spec per parameter, one container
// spec per pool, ...) and rewritten, node by node with each node's place in
// the file kept, into the config tree of the same job in AI Platform's
// `trainingInput` form; the usual reader and validation then run on that
// tree, so every rule is the config file's, and each error's field path is
// mapped back to the Vertex field the user wrote
// (`trainingInput.masterType` -> `trialJobSpec.workerPoolSpecs[0]
// .machineSpec.machineType`). Pure functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_VERTEX_H_
#define HPTUNE_SRC_CORE_CONFIG_VERTEX_H_

#include <map>
#include <string>
#include <vector>

#include "src/core/config/reader.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {

// True when the mapping `root` is a HyperparameterTuningJob or a CustomJob:
// it has `studySpec`, `trialJobSpec` or `jobSpec` and no `trainingInput`.
bool IsVertexSpec(const ConfigNode& root);
// True when it is a CustomJob: `jobSpec` (the same CustomJobSpec as a
// tuning job's trialJobSpec, read by the same code) and neither `studySpec`
// nor `trialJobSpec`. It reads as the job without a study.
bool IsVertexCustomJob(const ConfigNode& root);

struct VertexTranslation {
  // {trainingInput: {...}, labels, backend, slurm}.
  ConfigNode config;
  // AI Platform field path -> the Vertex field it came from.
  std::map<std::string, std::string> paths;
  // Fields accepted and ignored (Google Cloud's own), by Vertex path.
  std::vector<std::string> ignored;
};

// Errors of the Vertex shape go to `sink` with Vertex paths.
VertexTranslation TranslateVertexSpec(const ConfigNode& root, ErrorSink& sink);

// `field` with its longest mapped prefix replaced; unchanged when none.
std::string ToVertexPath(const std::map<std::string, std::string>& paths,
                         const std::string& field);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_VERTEX_H_

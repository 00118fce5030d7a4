// A pool's container and environment in a config: the rules on an image
// reference, a container's command and arguments, a Python package's module
// and packages, and environment variables, whichever dialect named them.
//
// Private to config parsing: the AI Platform reader (training_input.cc,
// `<pool>Config.imageUri`, `containerCommand`, `containerArgs` and hptune's
// `env`, `pythonModule`, `packageUris`) and the Vertex reader (vertex.cc,
// `containerSpec` and `pythonPackageSpec`) read their fields and call the
// same checks, each passing the field paths of its own dialect. Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_CORE_CONFIG_CONTAINERS_H_
#define HPTUNE_SRC_CORE_CONFIG_CONTAINERS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hptune/core/config.h"
#include "hptune/core/job.h"
#include "src/core/config/reader.h"
#include "src/core/config/tree.h"

namespace hptune::config_internal {

// Limits on a pool's environment: Linux takes at most 128 KiB in one
// variable (MAX_ARG_STRLEN); the count keeps a spec small.
inline constexpr size_t kMaxEnvVars = 100;
inline constexpr size_t kMaxEnvNameBytes = 256;
inline constexpr size_t kMaxEnvValueBytes = 128 * 1024 - 1;
// Vertex's limit on pythonPackageSpec.packageUris.
inline constexpr size_t kMaxPackageUris = 100;

// Why `uri` is not an OCI image reference (the grammar of
// github.com/distribution/reference: [host[:port]/]path[:tag][@digest],
// path components of lowercase letters and digits joined by '.', '_', "__"
// or dashes, the name at most 255 characters, a tag at most 128); nullopt
// when it is one.
std::optional<std::string> ImageReferenceProblem(std::string_view uri);

// Each rule of one pool's container and environment; `paths` names the
// fields in the caller's dialect (an empty path skips its checks).
struct ContainerPaths {
  std::string image_uri;
  std::string command;
  std::string args;
  std::string python_module;
  std::string package_uris;
  std::string env;
};
std::vector<FieldError> ValidateContainer(const TaskPool& pool,
                                          const ContainerPaths& paths);

// A list of built packages (a pool's or the trainer's packageUris): at most
// 100, each a local path or a gs:// URI whose names are sound.
std::vector<FieldError> ValidatePackageUris(
    const std::string& field, const std::vector<std::string>& uris);

// `env: [{name: X, value: "..."}]`, Vertex's EnvVar list; nullopt (errors
// reported) when malformed. ValidateContainer checks the names and sizes.
std::optional<std::vector<EnvVar>> ReadEnv(const ConfigNode& node,
                                           const std::string& path,
                                           ErrorSink& sink);

// Adds each error of `errors` to `sink`, placed at the node of its field in
// `reader`'s mapping (or of the nearest ancestor there).
void AddAtFields(MapReader& reader, std::vector<FieldError> errors);

}  // namespace hptune::config_internal

#endif  // HPTUNE_SRC_CORE_CONFIG_CONTAINERS_H_

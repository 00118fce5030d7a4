// The rules on a pool's container and environment (containers.h).
#include "src/core/config/containers.h"

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "hptune/core/bucket_paths.h"
#include "src/core/config/text.h"

namespace hptune::config_internal {
namespace {

constexpr size_t kMaxImageReferenceBytes = 1024;
constexpr size_t kMaxImageNameBytes = 255;
constexpr size_t kMaxTagBytes = 128;
// exec's limits, as ValidateTrainerCommandLine applies to the trainer.
constexpr size_t kMaxArgumentBytes = 128 * 1024 - 1;
constexpr size_t kMaxArguments = 10'000;
constexpr size_t kMaxListBytes = 1 << 20;

bool IsLowerAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
bool IsAlnum(char c) { return IsLowerAlnum(c) || (c >= 'A' && c <= 'Z'); }
bool IsWord(char c) { return IsAlnum(c) || c == '_'; }
// path-component := [a-z0-9]+ ((\.|_|__|-+) [a-z0-9]+)*
bool IsPathComponent(std::string_view text) {
  size_t i = 0;
  while (true) {
    const size_t run = i;
    while (i < text.size() && IsLowerAlnum(text[i])) ++i;
    if (i == run) return false;
    if (i == text.size()) return true;
    const size_t separator = i;
    while (i < text.size() && !IsLowerAlnum(text[i])) ++i;
    std::string_view sep = text.substr(separator, i - separator);
    const bool dashes = sep.find_first_not_of('-') == std::string_view::npos;
    if (sep != "." && sep != "_" && sep != "__" && !dashes) return false;
  }
}

// host[:port], host being dot-separated labels of letters, digits and '-'
// that neither start nor end with '-'.
bool IsDomain(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    std::string_view port = text.substr(colon + 1);
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
    text = text.substr(0, colon);
  }
  size_t start = 0;
  while (true) {
    const size_t dot = text.find('.', start);
    std::string_view label = text.substr(start, dot - start);
    if (label.empty() || label.front() == '-' || label.back() == '-') {
      return false;
    }
    for (char c : label) {
      if (!IsAlnum(c) && c != '-') return false;
    }
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// algorithm:hex, e.g. sha256:<64 hex digits>.
bool IsDigest(std::string_view text) {
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view algorithm = text.substr(0, colon);
  std::string_view hex = text.substr(colon + 1);
  if (!IsAlnum(algorithm.front()) || hex.size() < 32) return false;
  for (char c : algorithm) {
    if (!IsAlnum(c) && c != '+' && c != '.' && c != '-' && c != '_') {
      return false;
    }
  }
  for (char c : hex) {
    if (!absl::ascii_isxdigit(c)) return false;
  }
  return true;
}

bool IsTag(std::string_view tag) {
  if (tag.empty() || tag.size() > kMaxTagBytes || !IsWord(tag.front())) {
    return false;
  }
  for (char c : tag) {
    if (!IsWord(c) && c != '.' && c != '-') return false;
  }
  return true;
}

// The first component names a registry when it could not be a path:
// it has a '.' or a ':', or is "localhost" (the reference library's rule).
bool NamesRegistry(std::string_view first) {
  return first.find_first_of(".:") != std::string_view::npos ||
         first == "localhost";
}

std::optional<std::string> NameProblem(std::string_view name) {
  if (name.size() > kMaxImageNameBytes) {
    return "its name is " + std::to_string(name.size()) +
           " characters, at most " + std::to_string(kMaxImageNameBytes) +
           " allowed";
  }
  size_t start = 0;
  for (bool first = true;; first = false) {
    const size_t slash = name.find('/', start);
    std::string_view part = name.substr(start, slash - start);
    const bool registry =
        first && slash != std::string_view::npos && NamesRegistry(part);
    if (registry ? !IsDomain(part) : !IsPathComponent(part)) {
      return std::string(registry ? "registry " : "path component ") +
             Quote(part) +
             (registry ? " is not a host[:port]"
                       : " must be lowercase letters and digits joined by "
                         "'.', '_', \"__\" or dashes");
    }
    if (slash == std::string_view::npos) return std::nullopt;
    start = slash + 1;
  }
}

// The checks of an argv-like list: exec's limits per element and in all.
void CheckArgvList(const std::string& field,
                   const std::vector<std::string>& list,
                   std::vector<FieldError>* errors) {
  size_t bytes = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].size() > kMaxArgumentBytes) {
      errors->push_back({IndexPath(field, i),
                         "must be shorter than 128 KiB (exec's limit on one "
                         "argument), got " +
                             std::to_string(list[i].size()) + " bytes"});
    }
    bytes += list[i].size() + 1 + sizeof(char*);
  }
  if (list.size() > kMaxArguments) {
    errors->push_back(
        {field, "must have at most " + std::to_string(kMaxArguments) +
                    " elements, got " + std::to_string(list.size())});
  } else if (bytes > kMaxListBytes) {
    errors->push_back({field, "must be at most 1 MiB in all, got " +
                                  std::to_string(bytes) + " bytes"});
  }
}

// Variables hptune sets in every replica (docs/trainer.md): a spec that set
// them would be silently overridden, or would break the replica.
bool IsReservedEnvName(std::string_view name) {
  static const std::set<std::string_view> kNames = {
      "TF_CONFIG",  "CLUSTER_SPEC", "MASTER_ADDR", "MASTER_PORT",
      "WORLD_SIZE", "RANK",         "LOCAL_RANK",  "CUDA_VISIBLE_DEVICES"};
  for (std::string_view prefix : {"AIP_", "CLOUD_ML_", "HPTUNE_"}) {
    if (name.starts_with(prefix)) return true;
  }
  return kNames.contains(name);
}

void CheckEnvName(const std::string& field, const std::string& name,
                  std::vector<FieldError>* errors) {
  bool valid = !name.empty() && name.size() <= kMaxEnvNameBytes &&
               !(name[0] >= '0' && name[0] <= '9');
  for (char c : name) valid = valid && IsWord(c);
  if (!valid) {
    errors->push_back({field,
                       "must be 1 to 256 letters, digits and '_', not "
                       "starting with a digit, got " +
                           Quote(name)});
  } else if (IsReservedEnvName(name)) {
    errors->push_back({field,
                       "is set by hptune in every replica (TF_CONFIG, "
                       "CLUSTER_SPEC, AIP_*, CLOUD_ML_*, ...), got " +
                           Quote(name)});
  }
}

void CheckEnv(const std::string& field, const std::vector<EnvVar>& env,
              std::vector<FieldError>* errors) {
  if (env.size() > kMaxEnvVars) {
    errors->push_back(
        {field, "must have at most " + std::to_string(kMaxEnvVars) +
                    " variables, got " + std::to_string(env.size())});
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < env.size(); ++i) {
    const std::string entry = IndexPath(field, i);
    CheckEnvName(JoinPath(entry, "name"), env[i].name, errors);
    if (!seen.insert(env[i].name).second) {
      errors->push_back(
          {JoinPath(entry, "name"), "is set twice, got " + Quote(env[i].name)});
    }
    if (env[i].value.size() > kMaxEnvValueBytes ||
        env[i].value.find('\0') != std::string::npos) {
      errors->push_back({JoinPath(entry, "value"),
                         "must be shorter than 128 KiB, without NUL bytes, "
                         "got " +
                             std::to_string(env[i].value.size()) + " bytes"});
    }
  }
}

void CheckPythonModule(const ContainerSpec& container,
                       const ContainerPaths& paths,
                       std::vector<FieldError>* errors) {
  if (!container.python_module.empty() && !container.command.empty()) {
    errors->push_back({paths.python_module,
                       "cannot be used with a container command: give one, "
                       "got " +
                           Quote(container.python_module)});
  }
  if (container.python_module.size() > kMaxArgumentBytes) {
    errors->push_back({paths.python_module,
                       "must be shorter than 128 KiB, got " +
                           std::to_string(container.python_module.size()) +
                           " bytes"});
  }
  if (!container.package_uris.empty() && container.python_module.empty()) {
    errors->push_back({paths.package_uris,
                       "needs pythonModule (what to run from the packages)"});
  }
  for (FieldError& error :
       ValidatePackageUris(paths.package_uris, container.package_uris)) {
    errors->push_back(std::move(error));
  }
}

}  // namespace

std::optional<std::string> ImageReferenceProblem(std::string_view uri) {
  if (uri.empty()) return "it is empty";
  if (uri.size() > kMaxImageReferenceBytes) {
    return "it is " + std::to_string(uri.size()) + " bytes, at most " +
           std::to_string(kMaxImageReferenceBytes) + " allowed";
  }
  std::string_view name = uri;
  const size_t at = name.find('@');
  if (at != std::string_view::npos) {
    if (!IsDigest(name.substr(at + 1))) {
      return "digest " + Quote(name.substr(at + 1)) +
             " is not algorithm:hex (e.g. sha256: and 64 hex digits)";
    }
    name = name.substr(0, at);
  }
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  if (colon != std::string_view::npos &&
      (slash == std::string_view::npos || colon > slash)) {
    if (!IsTag(name.substr(colon + 1))) {
      return "tag " + Quote(name.substr(colon + 1)) +
             " must be 1 to 128 letters, digits, '_', '.' and '-', not "
             "starting with '.' or '-'";
    }
    name = name.substr(0, colon);
  }
  return NameProblem(name);
}

std::vector<FieldError> ValidatePackageUris(
    const std::string& field, const std::vector<std::string>& uris) {
  if (uris.size() > kMaxPackageUris) {
    return {{field, "must have at most " + std::to_string(kMaxPackageUris) +
                        " packages, got " + std::to_string(uris.size())}};
  }
  std::vector<FieldError> errors;
  for (size_t i = 0; i < uris.size(); ++i) {
    const std::string& uri = uris[i];
    const std::string at = IndexPath(field, i);
    if (uri.empty() || uri.size() > kMaxPathBytes) {
      errors.push_back({at, "must be a path of 1 to 4095 bytes, got " +
                                std::to_string(uri.size()) + " bytes"});
    } else if (IsGcsUri(uri)) {
      for (FieldError& error : ValidateGcsUri(uri, at)) {
        errors.push_back(std::move(error));
      }
    } else if (uri.find("://") != std::string::npos) {
      errors.push_back({at,
                        "must be a local path or a gs:// URI (under the "
                        "runner's --gcs-root): hptune fetches nothing from "
                        "the web, got " +
                            Quote(uri)});
    }
  }
  return errors;
}

std::vector<FieldError> ValidateContainer(const TaskPool& pool,
                                          const ContainerPaths& paths) {
  std::vector<FieldError> errors;
  const ContainerSpec& container = pool.container;
  const bool has_image = !container.image_uri.empty();
  if (!has_image && !paths.image_uri.empty() &&
      (!container.command.empty() || !container.args.empty() ||
       !container.python_module.empty() || !container.package_uris.empty())) {
    errors.push_back(
        {paths.image_uri, "required: the container's other fields need it"});
  }
  if (has_image) {
    if (auto problem = ImageReferenceProblem(container.image_uri)) {
      errors.push_back({paths.image_uri,
                        "must be an image reference such as "
                        "us-docker.pkg.dev/project/repo/image:tag, got " +
                            Quote(container.image_uri) + ": " + *problem});
    }
  }
  if (!container.command.empty() && container.command.front().empty()) {
    errors.push_back(
        {IndexPath(paths.command, 0), "the program must not be empty"});
  }
  CheckArgvList(paths.command, container.command, &errors);
  CheckArgvList(paths.args, container.args, &errors);
  CheckPythonModule(container, paths, &errors);
  CheckEnv(paths.env, pool.env, &errors);
  return errors;
}

std::optional<std::vector<EnvVar>> ReadEnv(const ConfigNode& node,
                                           const std::string& path,
                                           ErrorSink& sink) {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"name", "value"}, .unsupported = {}, .hints = {}};
  if (!ExpectList(node, path, sink)) return std::nullopt;
  std::vector<EnvVar> env;
  bool ok = true;
  for (size_t i = 0; i < node.items.size(); ++i) {
    const std::string entry = IndexPath(path, i);
    if (!ExpectMap(node.items[i], entry, sink)) {
      ok = false;
      continue;
    }
    MapReader reader(node.items[i], entry, *kFields, sink);
    std::optional<std::string> name = reader.String("name");
    std::optional<std::string> value = reader.String("value");
    if (!reader.Has("name")) reader.Error("name", "required");
    // Vertex's EnvVar.value may be empty; absent reads as "".
    if (!name || (reader.Has("value") && !value)) {
      ok = false;
      continue;
    }
    env.push_back({.name = *name, .value = value.value_or("")});
  }
  if (!ok) return std::nullopt;
  return env;
}

void AddAtFields(MapReader& reader, std::vector<FieldError> errors) {
  std::map<std::string, int> orders;
  CollectPathOrders(reader.node(), reader.path(), &orders);
  for (FieldError& error : errors) {
    const int order = OrderOfPath(orders, error.field, reader.node().order);
    reader.sink().Add(order, std::move(error.field), std::move(error.message));
  }
}

}  // namespace hptune::config_internal

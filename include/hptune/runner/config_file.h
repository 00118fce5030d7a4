// Reading a job's config file through Env: what `hptune run`, `hptune jobs
// submit` and a program that runs jobs from files (docs/api.md, "C++:
// running whole jobs") call. The text is parsed once by the config reader
// (hptune/core/config.h); the file itself is read here, at the edge, so
// that core never touches the machine.
//
// Thread-safety: free functions; safe from any thread as far as `env` is.
#ifndef HPTUNE_RUNNER_CONFIG_FILE_H_
#define HPTUNE_RUNNER_CONFIG_FILE_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/core/config.h"
#include "hptune/env/env.h"

namespace hptune::runner {

// Reads config file `path` (at most the config size limit, plus one byte to
// tell a file past it) and parses it once: JSON for a ".json" name in any
// case, YAML otherwise. NotFound "cannot read config file "PATH": REASON"
// when it is missing, a directory or unreadable; InvalidArgument with every
// error, one per line, otherwise.
absl::StatusOr<LoadedConfig> LoadConfigFile(Env& env, const std::string& path,
                                            std::string_view job_id = "");

// ResolveConfigPaths (hptune/core/config.h) with `env` telling which of the
// command's elements name files beside the config.
void ResolveConfigPaths(Env& env, const std::filesystem::path& config_dir,
                        JobSpec& job);

}  // namespace hptune::runner

#endif  // HPTUNE_RUNNER_CONFIG_FILE_H_

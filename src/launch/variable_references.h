// Kubernetes' `$(VAR)` references in a container's command and args, which
// Vertex AI's containerSpec takes (docs/config.md, "Vertex AI"): each
// `$(VAR)` is the replica's value of VAR, `$$` an escaped `$` (so
// `$$(VAR)` is the literal `$(VAR)`), and a reference to a variable the
// replica lacks is left as written. Used by replica_env.cc for Vertex jobs
// only: AI Platform passed its args unchanged. Pure; thread-safe.
#ifndef HPTUNE_SRC_LAUNCH_VARIABLE_REFERENCES_H_
#define HPTUNE_SRC_LAUNCH_VARIABLE_REFERENCES_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hptune::launch {

// `text` with its references to `env` replaced, as above.
std::string ExpandVariableReferences(
    std::string_view text, const std::map<std::string, std::string>& env);

// Each of `words` expanded.
std::vector<std::string> ExpandVariableReferences(
    const std::vector<std::string>& words,
    const std::map<std::string, std::string>& env);

}  // namespace hptune::launch

#endif  // HPTUNE_SRC_LAUNCH_VARIABLE_REFERENCES_H_

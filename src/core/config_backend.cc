#include "src/core/config_backend.h"

#include <string>

#include "src/core/config_text.h"

namespace hptune::config_internal {
namespace {

const FieldSet& SlurmFields() {
  static const FieldSet* const kFields = new FieldSet{
      .accepted = {"partition", "account", "time", "options"},
      .unsupported = {},
      .hints = {{"timeLimit", "time"},
                {"time_limit", "time"},
                {"sbatchOptions", "options"},
                {"extraOptions", "options"}},
  };
  return *kFields;
}

}  // namespace

void ReadBackend(MapReader& root, BackendConfig* backend) {
  if (auto name = root.String("backend")) {
    backend->backend_named = true;
    if (*name == "local" || *name == "slurm") {
      backend->backend = *name;
    } else {
      root.Error("backend", "must be local or slurm, got " + Quote(*name));
    }
  }
  const ConfigNode* slurm = root.Find("slurm");
  if (slurm == nullptr || !ExpectMap(*slurm, "slurm", root.sink())) return;
  backend->has_slurm_block = true;
  MapReader reader(*slurm, "slurm", SlurmFields(), root.sink());
  if (auto v = reader.String("partition")) backend->slurm_partition = *v;
  if (auto v = reader.String("account")) backend->slurm_account = *v;
  if (auto v = reader.String("time")) backend->slurm_time = *v;
  if (auto v = reader.StringList("options")) backend->slurm_options = *v;
}

}  // namespace hptune::config_internal

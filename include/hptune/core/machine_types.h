// The machine-type catalogue: what each machine type a config can name has
// (vCPUs, memory, built-in GPUs) and which acceleratorConfig it accepts.
//
// Config parsing validates CUSTOM scale tiers against it, the CLI shows it in
// summaries, and launchers read the resources a replica needs from it.
// Builtin() holds AI Platform Training's machine types (Compute Engine n1, e2
// and a2 types, and the legacy standard/large_model/complex_model_* names);
// a backend with other hardware copies it and Add()s its own types.
// MachineCatalogue is a value type: thread-compatible; Builtin() is immutable
// and safe to share between threads.
#ifndef HPTUNE_CORE_MACHINE_TYPES_H_
#define HPTUNE_CORE_MACHINE_TYPES_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/config.h"
#include "hptune/core/job.h"

namespace hptune {

// GPUs an acceleratorConfig may attach to a machine type, of one GPU type.
struct AcceleratorOption {
  std::string type;         // AI Platform's name, e.g. "NVIDIA_TESLA_T4".
  std::vector<int> counts;  // The valid acceleratorConfig.count values,
                            // strictly increasing.
  bool operator==(const AcceleratorOption&) const = default;
};

struct MachineType {
  std::string name;  // e.g. "n1-standard-8", "complex_model_m_gpu".
  int vcpus = 0;
  double memory_gb = 0;
  // GPUs that come with every machine of this type (the legacy *_gpu, *_p100
  // and *_v100 types); such types take no acceleratorConfig.
  AcceleratorConfig included_gpus;
  // What an acceleratorConfig may attach, per GPU type; empty: nothing.
  std::vector<AcceleratorOption> accelerators;
  // The GPUs define the type (a2-highgpu-4g is four A100s), so the config
  // must state them in an acceleratorConfig, as AI Platform requires.
  bool requires_accelerator = false;

  bool operator==(const MachineType&) const = default;
};

class MachineCatalogue {
 public:
  // An empty catalogue; most callers want a copy of Builtin() instead.
  MachineCatalogue() = default;

  // AI Platform Training's machine types (see docs/config.md).
  static const MachineCatalogue& Builtin();

  // Adds a type. InvalidArgument when it is malformed (no name, no vCPUs or
  // memory, counts not positive and increasing, an acceleratorConfig option
  // on a type with included GPUs), AlreadyExists when the name is taken.
  [[nodiscard]] absl::Status Add(MachineType type);

  // nullptr when there is no such type.
  const MachineType* Find(std::string_view name) const;
  // In the order they were added.
  const std::vector<MachineType>& types() const { return types_; }
  std::vector<std::string> Names() const;
  // Every GPU type some machine type can attach, in the order first added.
  std::vector<std::string> AcceleratorTypes() const;

  // The GPUs each replica of `pool` gets: the machine type's included GPUs,
  // or the pool's acceleratorConfig. Count 0 for none or an unknown type.
  AcceleratorConfig GpusPerReplica(const TaskPool& pool) const;

  // Everything wrong with a task pool's machine type and acceleratorConfig:
  // an unknown type (with a suggestion), a GPU type or count the machine type
  // does not take, an acceleratorConfig on a type with built-in GPUs, a
  // missing one on an a2 type. Errors name `type_field` (e.g.
  // "trainingInput.workerType") or `accelerator_field` and its ".type" and
  // ".count" (e.g. "trainingInput.workerConfig.acceleratorConfig"). An empty
  // machine type is not checked (whether one is required is the caller's
  // rule).
  std::vector<FieldError> ValidatePool(std::string_view type_field,
                                       std::string_view accelerator_field,
                                       const TaskPool& pool) const;

 private:
  std::vector<MachineType> types_;
  std::map<std::string, size_t, std::less<>> index_;  // name -> types_ index
};

}  // namespace hptune

#endif  // HPTUNE_CORE_MACHINE_TYPES_H_

// The machine-type catalogue and AI Platform Training's built-in types.
#include "hptune/core/machine_types.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>

#include "hptune/core/check.h"
#include "src/core/config/text.h"

namespace hptune {
namespace {

using config_internal::DidYouMean;
using config_internal::JoinPath;
using config_internal::JoinWords;
using config_internal::Quote;

constexpr char kK80[] = "NVIDIA_TESLA_K80";
constexpr char kP4[] = "NVIDIA_TESLA_P4";
constexpr char kP100[] = "NVIDIA_TESLA_P100";
constexpr char kT4[] = "NVIDIA_TESLA_T4";
constexpr char kV100[] = "NVIDIA_TESLA_V100";
constexpr char kA100[] = "NVIDIA_TESLA_A100";
constexpr char kA100_80[] = "NVIDIA_A100_80GB";
constexpr char kL4[] = "NVIDIA_L4";
constexpr char kH100[] = "NVIDIA_H100_80GB";
constexpr char kH100Mega[] = "NVIDIA_H100_MEGA_80GB";
constexpr char kH200[] = "NVIDIA_H200_141GB";
constexpr char kB200[] = "NVIDIA_B200";

using Options = std::vector<AcceleratorOption>;

// AI Platform's table of valid GPU counts per N1 machine type. The 4-32 vCPU
// rows are the table of docs/config.md; the 64 and 96 vCPU rows complete it
// from AI Platform's "Using GPUs" page.
const Options kUpTo8Vcpus = {{kK80, {1, 2, 4, 8}},
                             {kP4, {1, 2, 4}},
                             {kP100, {1, 2, 4}},
                             {kT4, {1, 2, 4}},
                             {kV100, {1, 2, 4, 8}}};
const Options k16Vcpus = {{kK80, {2, 4, 8}},
                          {kP4, {1, 2, 4}},
                          {kP100, {1, 2, 4}},
                          {kT4, {1, 2, 4}},
                          {kV100, {2, 4, 8}}};
const Options k32Vcpus = {{kK80, {4, 8}},
                          {kP4, {2, 4}},
                          {kP100, {2, 4}},
                          {kT4, {2, 4}},
                          {kV100, {4, 8}}};
const Options k64Vcpus = {{kP4, {4}}, {kT4, {4}}, {kV100, {8}}};
const Options kHighcpu64 = {
    {kK80, {8}}, {kP4, {4}}, {kP100, {4}}, {kT4, {4}}, {kV100, {8}}};

// Memory is given per vCPU in MB so that sizes like 16 x 0.9 GB come out as
// the nearest double to 14.4, not 14.400000000000002.
MachineType Sized(std::string name, int vcpus, int mb_per_vcpu,
                  Options accelerators = {}) {
  MachineType type;
  type.name = std::move(name);
  type.vcpus = vcpus;
  type.memory_gb = static_cast<double>(vcpus * mb_per_vcpu) / 1000.0;
  type.accelerators = std::move(accelerators);
  return type;
}

MachineType Legacy(std::string name, int vcpus, double memory_gb,
                   int gpu_count = 0, std::string gpu_type = "") {
  MachineType type;
  type.name = std::move(name);
  type.vcpus = vcpus;
  type.memory_gb = memory_gb;
  type.included_gpus = {.count = gpu_count, .type = std::move(gpu_type)};
  return type;
}

// A machine type that comes with exactly `gpus` GPUs of one type, which its
// acceleratorConfig must ask for (Vertex AI's a2, a3, a4 and g2 families).
MachineType WithGpus(std::string name, int vcpus, double memory_gb,
                     const char* gpu_type, int gpus) {
  MachineType type;
  type.name = std::move(name);
  type.vcpus = vcpus;
  type.memory_gb = memory_gb;
  type.accelerators = {{gpu_type, {gpus}}};
  type.requires_accelerator = true;
  return type;
}

// The GPU machine types of Vertex AI's "Configure compute resources for
// custom training" page: vCPUs and memory per machine, GPUs per machine.
void AddGpuFamilies(std::vector<MachineType>& types) {
  // a2-highgpu: 12 vCPUs and 85 GB per A100; a2-megagpu-16g 96 / 1360.
  for (int n : {1, 2, 4, 8}) {
    types.push_back(WithGpus("a2-highgpu-" + std::to_string(n) + "g", 12 * n,
                             85.0 * n, kA100, n));
  }
  types.push_back(WithGpus("a2-megagpu-16g", 96, 1360, kA100, 16));
  // a2-ultragpu: 12 vCPUs and 170 GB per A100 80GB.
  for (int n : {1, 2, 4, 8}) {
    types.push_back(WithGpus("a2-ultragpu-" + std::to_string(n) + "g", 12 * n,
                             170.0 * n, kA100_80, n));
  }
  // g2-standard-N: N vCPUs, 4 GB each; 1 L4 up to 32 vCPUs but 24 (2),
  // then 48 (4) and 96 (8).
  for (int n : {4, 8, 12, 16, 24, 32, 48, 96}) {
    const int gpus = n == 24 ? 2 : n == 48 ? 4 : n == 96 ? 8 : 1;
    types.push_back(
        WithGpus("g2-standard-" + std::to_string(n), n, 4.0 * n, kL4, gpus));
  }
  // a3-highgpu: 26 vCPUs and 234 GB per H100; the 8-GPU a3 and a4 types.
  for (int n : {1, 2, 4, 8}) {
    types.push_back(WithGpus("a3-highgpu-" + std::to_string(n) + "g", 26 * n,
                             234.0 * n, kH100, n));
  }
  types.push_back(WithGpus("a3-megagpu-8g", 208, 1872, kH100Mega, 8));
  types.push_back(WithGpus("a3-ultragpu-8g", 224, 2952, kH200, 8));
  types.push_back(WithGpus("a4-highgpu-8g", 224, 3968, kB200, 8));
}

MachineCatalogue MakeBuiltin() {
  std::vector<MachineType> types;
  // n1-standard: 3.75 GB per vCPU.
  for (int n : {1, 2})
    types.push_back(Sized("n1-standard-" + std::to_string(n), n, 3750));
  for (int n : {4, 8})
    types.push_back(
        Sized("n1-standard-" + std::to_string(n), n, 3750, kUpTo8Vcpus));
  types.push_back(Sized("n1-standard-16", 16, 3750, k16Vcpus));
  types.push_back(Sized("n1-standard-32", 32, 3750, k32Vcpus));
  for (int n : {64, 96})
    types.push_back(
        Sized("n1-standard-" + std::to_string(n), n, 3750, k64Vcpus));
  // n1-highmem: 6.5 GB per vCPU.
  for (int n : {2, 4, 8})
    types.push_back(
        Sized("n1-highmem-" + std::to_string(n), n, 6500, kUpTo8Vcpus));
  types.push_back(Sized("n1-highmem-16", 16, 6500, k16Vcpus));
  types.push_back(Sized("n1-highmem-32", 32, 6500, k32Vcpus));
  for (int n : {64, 96})
    types.push_back(
        Sized("n1-highmem-" + std::to_string(n), n, 6500, k64Vcpus));
  // n1-highcpu: 0.9 GB per vCPU.
  for (int n : {2, 4, 8})
    types.push_back(Sized("n1-highcpu-" + std::to_string(n), n, 900));
  types.push_back(Sized("n1-highcpu-16", 16, 900, k16Vcpus));
  types.push_back(Sized("n1-highcpu-32", 32, 900, k32Vcpus));
  types.push_back(Sized("n1-highcpu-64", 64, 900, kHighcpu64));
  types.push_back(Sized("n1-highcpu-96", 96, 900, k64Vcpus));
  // e2: no GPUs.
  for (int n : {4, 8, 16, 32})
    types.push_back(Sized("e2-standard-" + std::to_string(n), n, 4000));
  for (int n : {2, 4, 8, 16})
    types.push_back(Sized("e2-highmem-" + std::to_string(n), n, 8000));
  for (int n : {16, 32})
    types.push_back(Sized("e2-highcpu-" + std::to_string(n), n, 1000));
  AddGpuFamilies(types);
  // AI Platform's legacy machine types, each an N1 machine with fixed GPUs.
  types.push_back(Legacy("standard", 4, 15));
  types.push_back(Legacy("large_model", 8, 52));
  types.push_back(Legacy("complex_model_s", 8, 7.2));
  types.push_back(Legacy("complex_model_m", 16, 14.4));
  types.push_back(Legacy("complex_model_l", 32, 28.8));
  types.push_back(Legacy("standard_gpu", 8, 30, 1, kK80));
  types.push_back(Legacy("complex_model_m_gpu", 16, 60, 4, kK80));
  types.push_back(Legacy("complex_model_l_gpu", 32, 120, 8, kK80));
  types.push_back(Legacy("standard_p100", 8, 30, 1, kP100));
  types.push_back(Legacy("complex_model_m_p100", 16, 60, 4, kP100));
  types.push_back(Legacy("standard_v100", 8, 30, 1, kV100));
  types.push_back(Legacy("large_model_v100", 8, 52, 1, kV100));
  types.push_back(Legacy("complex_model_m_v100", 16, 60, 4, kV100));
  types.push_back(Legacy("complex_model_l_v100", 32, 120, 8, kV100));

  MachineCatalogue catalogue;
  for (MachineType& type : types) {
    // The table above is code, not input: a bad entry is a programming error.
    absl::Status added = catalogue.Add(std::move(type));
    HPTUNE_CHECK(added.ok(), std::string(added.message()));
  }
  return catalogue;
}

std::string CountsText(const std::vector<int>& counts) {
  std::vector<std::string> words;
  for (int count : counts) words.push_back(std::to_string(count));
  return JoinWords(words);
}

absl::Status CheckWellFormed(const MachineType& type) {
  const std::string where = "machine type " + Quote(type.name) + ": ";
  if (type.name.empty()) {
    return absl::InvalidArgumentError("machine type: name must not be empty");
  }
  for (char c : type.name) {
    if (c == ' ' || c == '\t' || c == '\n') {
      return absl::InvalidArgumentError(where +
                                        "name must not contain whitespace");
    }
  }
  if (type.vcpus < 1) {
    return absl::InvalidArgumentError(where + "vcpus must be at least 1, got " +
                                      std::to_string(type.vcpus));
  }
  if (!std::isfinite(type.memory_gb) || type.memory_gb <= 0) {
    return absl::InvalidArgumentError(
        where + "memory_gb must be positive, got " +
        config_internal::FormatNumber(type.memory_gb));
  }
  const AcceleratorConfig& included = type.included_gpus;
  if (included.count < 0 || (included.count > 0) == included.type.empty()) {
    return absl::InvalidArgumentError(
        where +
        "included_gpus needs both a positive count and a type, or "
        "neither");
  }
  if (included.count > 0 && !type.accelerators.empty()) {
    return absl::InvalidArgumentError(
        where + "a type with included GPUs cannot take an acceleratorConfig");
  }
  if (type.requires_accelerator && type.accelerators.empty()) {
    return absl::InvalidArgumentError(
        where + "requires_accelerator needs at least one accelerator option");
  }
  for (size_t i = 0; i < type.accelerators.size(); ++i) {
    const AcceleratorOption& option = type.accelerators[i];
    if (option.type.empty()) {
      return absl::InvalidArgumentError(where +
                                        "accelerator type must not be empty");
    }
    for (size_t j = 0; j < i; ++j) {
      if (type.accelerators[j].type == option.type) {
        return absl::InvalidArgumentError(where + "accelerator " + option.type +
                                          " listed twice");
      }
    }
    if (option.counts.empty()) {
      return absl::InvalidArgumentError(where + "accelerator " + option.type +
                                        " has no valid counts");
    }
    for (size_t j = 0; j < option.counts.size(); ++j) {
      if (option.counts[j] < 1 ||
          (j > 0 && option.counts[j] <= option.counts[j - 1])) {
        return absl::InvalidArgumentError(
            where + "accelerator " + option.type +
            " counts must be positive and strictly increasing");
      }
    }
  }
  return absl::OkStatus();
}

// A known GPU type `machine` does not take: what it takes, and the first
// few machine types that take `gpu_type` (enough to find the family).
std::string NotAvailableWith(const MachineType& machine,
                             const std::string& gpu_type,
                             const std::vector<MachineType>& types) {
  std::vector<std::string> available;
  for (const AcceleratorOption& candidate : machine.accelerators) {
    available.push_back(candidate.type);
  }
  constexpr size_t kHostsShown = 6;
  std::vector<std::string> hosts;
  size_t more = 0;
  for (const MachineType& type : types) {
    for (const AcceleratorOption& candidate : type.accelerators) {
      if (candidate.type != gpu_type) continue;
      if (hosts.size() < kHostsShown) {
        hosts.push_back(type.name);
      } else {
        ++more;
      }
    }
  }
  if (more > 0) hosts.push_back("and " + std::to_string(more) + " more");
  return gpu_type + " is not available with machine type " + machine.name +
         " (available: " +
         (available.empty() ? "none" : JoinWords(available, ", ")) +
         "); machine types that take " + gpu_type + ": " +
         JoinWords(hosts, ", ");
}

}  // namespace

const MachineCatalogue& MachineCatalogue::Builtin() {
  static const MachineCatalogue* const kBuiltin =
      new MachineCatalogue(MakeBuiltin());
  return *kBuiltin;
}

absl::Status MachineCatalogue::Add(MachineType type) {
  if (absl::Status status = CheckWellFormed(type); !status.ok()) return status;
  if (index_.count(type.name) > 0) {
    return absl::AlreadyExistsError("machine type " + Quote(type.name) +
                                    " is already in the catalogue");
  }
  index_.emplace(type.name, types_.size());
  types_.push_back(std::move(type));
  return absl::OkStatus();
}

const MachineType* MachineCatalogue::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &types_[it->second];
}

std::vector<std::string> MachineCatalogue::Names() const {
  std::vector<std::string> names;
  names.reserve(types_.size());
  for (const MachineType& type : types_) names.push_back(type.name);
  return names;
}

std::vector<std::string> MachineCatalogue::AcceleratorTypes() const {
  std::vector<std::string> names;
  auto add = [&names](const std::string& name) {
    for (const std::string& seen : names) {
      if (seen == name) return;
    }
    names.push_back(name);
  };
  for (const MachineType& type : types_) {
    if (type.included_gpus.count > 0) add(type.included_gpus.type);
    for (const AcceleratorOption& option : type.accelerators) add(option.type);
  }
  return names;
}

AcceleratorConfig MachineCatalogue::GpusPerReplica(const TaskPool& pool) const {
  const MachineType* type = Find(pool.machine_type);
  if (type == nullptr) return {};
  if (type->included_gpus.count > 0) return type->included_gpus;
  return pool.accelerator;
}

std::vector<FieldError> MachineCatalogue::ValidatePool(
    std::string_view type_field, std::string_view accelerator_field,
    const TaskPool& pool) const {
  std::vector<FieldError> errors;
  if (pool.machine_type.empty()) return errors;
  const std::string accelerator_path(accelerator_field);
  const std::string type_path = JoinPath(accelerator_field, "type");
  const std::string count_path = JoinPath(accelerator_field, "count");
  const MachineType* machine = Find(pool.machine_type);
  if (machine == nullptr) {
    errors.push_back({std::string(type_field),
                      "unknown machine type " + Quote(pool.machine_type) +
                          DidYouMean(pool.machine_type, Names())});
    return errors;
  }
  const AcceleratorConfig& accelerator = pool.accelerator;
  if (accelerator.count == 0 && accelerator.type.empty()) {
    if (machine->requires_accelerator) {
      const AcceleratorOption& option = machine->accelerators.front();
      errors.push_back({accelerator_path, "required with machine type " +
                                              machine->name + ": count " +
                                              CountsText(option.counts) +
                                              ", type " + option.type});
    }
    return errors;
  }
  if (machine->included_gpus.count > 0) {
    errors.push_back(
        {accelerator_path, "machine type " + machine->name + " comes with " +
                               std::to_string(machine->included_gpus.count) +
                               " " + machine->included_gpus.type +
                               " and takes no acceleratorConfig"});
    return errors;
  }
  if (machine->accelerators.empty()) {
    errors.push_back({accelerator_path, "machine type " + machine->name +
                                            " takes no acceleratorConfig"});
    return errors;
  }
  if (accelerator.count < 1) {
    errors.push_back({count_path, "must be at least 1, got " +
                                      std::to_string(accelerator.count)});
  }
  if (accelerator.type.empty()) {
    errors.push_back({type_path, "required"});
    return errors;
  }
  const AcceleratorOption* option = nullptr;
  for (const AcceleratorOption& candidate : machine->accelerators) {
    if (candidate.type == accelerator.type) option = &candidate;
  }
  if (option == nullptr) {
    const std::vector<std::string> known = AcceleratorTypes();
    bool is_known = false;
    for (const std::string& name : known) is_known |= name == accelerator.type;
    if (accelerator.type.rfind("TPU", 0) == 0) {
      errors.push_back(
          {type_path,
           accelerator.type + " is not supported: hptune runs no TPUs"});
    } else if (!is_known) {
      errors.push_back(
          {type_path, config_internal::MustBeOneOf(known, accelerator.type)});
    } else {
      errors.push_back(
          {type_path, NotAvailableWith(*machine, accelerator.type, types_)});
    }
    return errors;
  }
  if (accelerator.count >= 1) {
    bool valid = false;
    for (int count : option->counts) valid |= count == accelerator.count;
    if (!valid) {
      errors.push_back({count_path, "machine type " + machine->name +
                                        " takes " + CountsText(option->counts) +
                                        " " + option->type + ", got " +
                                        std::to_string(accelerator.count)});
    }
  }
  return errors;
}

}  // namespace hptune

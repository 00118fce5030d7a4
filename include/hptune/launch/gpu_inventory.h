// The GPUs of the local machine and who holds them.
//
// GpuInventory lists the GPUs a LocalLauncher may hand to replicas: detected
// with nvidia-smi, or given by a spec string on machines and in tests without
// GPUs (the CLI's and server's --gpus). GpuAllocator hands disjoint GPUs to
// the replicas of a trial, all of them or none, and takes them back when the
// GpuLease is destroyed; LocalLauncher::Reserve is its caller.
//
// GpuInventory is a value type (thread-compatible); GpuAllocator is
// thread-safe, and a GpuLease may outlive its allocator.
#ifndef HPTUNE_LAUNCH_GPU_INVENTORY_H_
#define HPTUNE_LAUNCH_GPU_INVENTORY_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "hptune/env/env.h"
#include "hptune/launch/launcher.h"

namespace hptune::launch {

struct Gpu {
  int index = 0;  // The CUDA device index, as in CUDA_VISIBLE_DEVICES.
  // AI Platform's accelerator name, e.g. "NVIDIA_TESLA_T4". Empty for a GPU
  // of any type (a spec without types): it matches every requested type.
  std::string type;
  bool operator==(const Gpu&) const = default;
};

// AI Platform's accelerator name for an nvidia-smi product name:
// "Tesla T4" -> NVIDIA_TESLA_T4, "Tesla V100-SXM2-16GB" -> NVIDIA_TESLA_V100,
// "NVIDIA A100-SXM4-40GB" -> NVIDIA_TESLA_A100 (also P100, K80, P4),
// "NVIDIA H100 80GB HBM3" -> NVIDIA_H100_80GB, "NVIDIA H200" ->
// NVIDIA_H200_141GB, "NVIDIA L4" -> NVIDIA_L4. Any other name is upper-cased
// with runs of other characters turned into '_' and "NVIDIA_" put in front:
// "NVIDIA GeForce RTX 4090" -> NVIDIA_GEFORCE_RTX_4090.
std::string GpuTypeFromProductName(std::string_view name);

// Parses `nvidia-smi --query-gpu=index,name --format=csv,noheader`: one
// "<index>, <product name>" per line. InvalidArgument naming the line when
// one has another shape or two lines share an index.
absl::StatusOr<std::vector<Gpu>> ParseNvidiaSmiGpus(std::string_view output);

// Parses a GPU spec:
//   "4"                  four GPUs 0..3 of any type ("0": no GPUs);
//   "0,1,2,3"            these device indices, of any type (a single number
//                        is a count: write "TYPE:3" for device 3 alone);
//   "NVIDIA_TESLA_T4:4"  four T4s, numbered after the GPUs before them;
//   "NVIDIA_TESLA_T4:0,1;NVIDIA_TESLA_V100:2,3"   these indices per type.
// InvalidArgument naming the spec and the bad part, e.g.
//   GPU spec "T4:x": part "T4:x": "x" is not a count or a list of indices.
absl::StatusOr<std::vector<Gpu>> ParseGpuSpec(std::string_view spec);

class GpuInventory {
 public:
  GpuInventory() = default;  // No GPUs.

  // InvalidArgument when two GPUs share an index or one is negative.
  static absl::StatusOr<GpuInventory> Create(std::vector<Gpu> gpus);
  // ParseGpuSpec's GPUs.
  static absl::StatusOr<GpuInventory> FromSpec(std::string_view spec);
  // Runs `nvidia_smi` (looked up on PATH), its output read through `env`,
  // and parses what it prints. No GPUs when it is not installed;
  // FailedPrecondition with its output when it fails (e.g. no driver);
  // ParseNvidiaSmiGpus' error on odd output.
  static absl::StatusOr<GpuInventory> Detect(
      Env& env, const std::string& nvidia_smi = "nvidia-smi");

  // In index order.
  const std::vector<Gpu>& gpus() const { return gpus_; }
  // For messages: "no GPUs", "4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)",
  // "2 GPUs of any type (GPUs 0,1)", groups joined by ", ".
  std::string Describe() const;

 private:
  explicit GpuInventory(std::vector<Gpu> gpus) : gpus_(std::move(gpus)) {}
  std::vector<Gpu> gpus_;
};

class GpuAllocator;

// GPUs held by one trial; they return to the allocator when this is
// destroyed.
class GpuLease {
 public:
  ~GpuLease();
  GpuLease(const GpuLease&) = delete;
  GpuLease& operator=(const GpuLease&) = delete;

  // One list of device indices per request, in request order (empty for a
  // request of no GPUs).
  const std::vector<std::vector<int>>& gpus() const { return gpus_; }

 private:
  friend class GpuAllocator;
  struct State;
  GpuLease(std::shared_ptr<State> state, std::vector<std::vector<int>> gpus)
      : state_(std::move(state)), gpus_(std::move(gpus)) {}
  std::shared_ptr<State> state_;
  std::vector<std::vector<int>> gpus_;
};

class GpuAllocator {
 public:
  explicit GpuAllocator(GpuInventory inventory);
  ~GpuAllocator();

  const GpuInventory& inventory() const { return inventory_; }

  // OK when the requests fit the inventory when all of it is free (each
  // request needs its count of GPUs of its type or of any type, disjoint from
  // the others'). FailedPrecondition otherwise, naming the first replica that
  // does not fit, e.g.
  //   worker 2 asks for 4 x NVIDIA_TESLA_T4, but this machine has
  //   2 x NVIDIA_TESLA_T4 (GPUs 0,1)
  [[nodiscard]] absl::Status CheckFits(
      const std::vector<ReplicaRequest>& requests) const;

  // Takes GPUs for every request or for none: a request's own type first,
  // then GPUs of any type, lowest indices first. CheckFits' error when they
  // never fit; ResourceExhausted when other leases hold the GPUs now.
  absl::StatusOr<std::unique_ptr<GpuLease>> Allocate(
      const std::vector<ReplicaRequest>& requests);

  // GPUs no lease holds.
  int FreeCount() const;

 private:
  GpuInventory inventory_;
  std::shared_ptr<GpuLease::State> state_;
};

}  // namespace hptune::launch

#endif  // HPTUNE_LAUNCH_GPU_INVENTORY_H_

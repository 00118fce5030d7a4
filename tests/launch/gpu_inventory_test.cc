// Tests of the GPU inventory: spec strings, nvidia-smi output, product names,
// and handing out disjoint GPUs to trials (all or nothing, matching types).
#include "hptune/launch/gpu_inventory.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "hptune/launch/local_launcher.h"
#include "tests/testing/status_matchers.h"

namespace hptune::launch {
namespace {

using ::hptune_testing::StatusHasCode;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kT4[] = "NVIDIA_TESLA_T4";
constexpr char kV100[] = "NVIDIA_TESLA_V100";

GpuInventory Inventory(const std::string& spec) {
  absl::StatusOr<GpuInventory> inventory = GpuInventory::FromSpec(spec);
  EXPECT_OK(inventory);
  return inventory.ok() ? *inventory : GpuInventory();
}

ReplicaRequest Request(TaskType type, int index, int count,
                       const std::string& gpu_type) {
  return {
      .type = type, .index = index, .gpu_count = count, .gpu_type = gpu_type};
}

std::string SpecError(const std::string& spec) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseGpuSpec(spec);
  EXPECT_THAT(gpus, StatusHasCode(absl::StatusCode::kInvalidArgument)) << spec;
  return std::string(gpus.status().message());
}

TEST(GpuSpecTest, CountMeansThatManyGpusOfAnyType) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseGpuSpec("4");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus,
              ElementsAre(Gpu{0, ""}, Gpu{1, ""}, Gpu{2, ""}, Gpu{3, ""}));
  gpus = ParseGpuSpec("0");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, IsEmpty());
}

TEST(GpuSpecTest, ListMeansTheseIndicesOfAnyType) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseGpuSpec("3, 1,5");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, ElementsAre(Gpu{1, ""}, Gpu{3, ""}, Gpu{5, ""}));
}

TEST(GpuSpecTest, TypedCountsAreNumberedOneAfterAnother) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseGpuSpec("NVIDIA_TESLA_T4:4");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus,
              ElementsAre(Gpu{0, kT4}, Gpu{1, kT4}, Gpu{2, kT4}, Gpu{3, kT4}));
  gpus = ParseGpuSpec("NVIDIA_TESLA_T4:2;NVIDIA_TESLA_V100:1");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, ElementsAre(Gpu{0, kT4}, Gpu{1, kT4}, Gpu{2, kV100}));
}

TEST(GpuSpecTest, TypedIndexLists) {
  absl::StatusOr<std::vector<Gpu>> gpus =
      ParseGpuSpec("NVIDIA_TESLA_V100:2,3; NVIDIA_TESLA_T4:0,1");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, ElementsAre(Gpu{0, kT4}, Gpu{1, kT4}, Gpu{2, kV100},
                                 Gpu{3, kV100}));
}

TEST(GpuSpecTest, BadSpecsNameTheSpecAndThePart) {
  EXPECT_EQ(SpecError(""), "GPU spec \"\" is empty; write \"0\" for no GPUs");
  EXPECT_EQ(SpecError("x"),
            "GPU spec \"x\": part \"x\": \"x\" is not a count or a list of "
            "indices");
  EXPECT_EQ(SpecError("-1"),
            "GPU spec \"-1\": part \"-1\": \"-1\" is not a count or a list "
            "of indices");
  EXPECT_EQ(SpecError("5000"),
            "GPU spec \"5000\": part \"5000\": \"5000\" is not a count or a "
            "list of indices");
  EXPECT_EQ(SpecError("NVIDIA_TESLA_T4:x"),
            "GPU spec \"NVIDIA_TESLA_T4:x\": part \"NVIDIA_TESLA_T4:x\": "
            "\"x\" is not a count or a list of indices");
  EXPECT_EQ(SpecError("nvidia_tesla_t4:2"),
            "GPU spec \"nvidia_tesla_t4:2\": part \"nvidia_tesla_t4:2\": "
            "\"nvidia_tesla_t4\" is not a GPU type name (upper-case letters, "
            "digits and '_', like NVIDIA_TESLA_T4)");
  EXPECT_EQ(SpecError(":2"),
            "GPU spec \":2\": part \":2\": \"\" is not a GPU type name "
            "(upper-case letters, digits and '_', like NVIDIA_TESLA_T4)");
  EXPECT_EQ(SpecError("0,,1"),
            "GPU spec \"0,,1\": part \"0,,1\": \"\" is not a device index");
  EXPECT_EQ(SpecError("NVIDIA_TESLA_T4:2;"),
            "GPU spec \"NVIDIA_TESLA_T4:2;\": part \"\": empty");
  EXPECT_EQ(SpecError("NVIDIA_TESLA_T4:0"),
            "GPU spec \"NVIDIA_TESLA_T4:0\": part \"NVIDIA_TESLA_T4:0\": a "
            "count must be at least 1");
  EXPECT_EQ(SpecError("1,2;NVIDIA_TESLA_T4:2,3"),
            "GPU spec \"1,2;NVIDIA_TESLA_T4:2,3\": part "
            "\"NVIDIA_TESLA_T4:2,3\": GPU 2 is listed twice");
}

TEST(GpuInventoryTest, DescribeGroupsGpusByType) {
  EXPECT_EQ(GpuInventory().Describe(), "no GPUs");
  EXPECT_EQ(Inventory("NVIDIA_TESLA_T4:4").Describe(),
            "4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)");
  EXPECT_EQ(Inventory("0,1").Describe(), "2 GPUs of any type (GPUs 0,1)");
  EXPECT_EQ(Inventory("NVIDIA_TESLA_T4:2;NVIDIA_TESLA_V100:1").Describe(),
            "2 x NVIDIA_TESLA_T4 (GPUs 0,1), 1 x NVIDIA_TESLA_V100 (GPU 2)");
}

TEST(GpuInventoryTest, CreateRejectsDuplicateAndNegativeIndices) {
  absl::StatusOr<GpuInventory> inventory =
      GpuInventory::Create({{1, kT4}, {0, kT4}, {1, kV100}});
  ASSERT_THAT(inventory, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(inventory.status().message(), "GPU 1 is listed twice");
  inventory = GpuInventory::Create({{-1, kT4}});
  ASSERT_THAT(inventory, StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(inventory.status().message(), "GPU index -1 is negative");
  inventory = GpuInventory::Create({{1, kT4}, {0, kV100}});
  ASSERT_OK(inventory);
  EXPECT_THAT(inventory->gpus(), ElementsAre(Gpu{0, kV100}, Gpu{1, kT4}));
}

TEST(NvidiaSmiTest, ParsesIndexAndNameLines) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseNvidiaSmiGpus(
      "0, Tesla T4\r\n1, Tesla V100-SXM2-16GB\n\n2, NVIDIA H100 80GB HBM3\n");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, ElementsAre(Gpu{0, kT4}, Gpu{1, kV100},
                                 Gpu{2, "NVIDIA_H100_80GB"}));
  gpus = ParseNvidiaSmiGpus("");
  ASSERT_OK(gpus);
  EXPECT_THAT(*gpus, IsEmpty());
}

TEST(NvidiaSmiTest, OddOutputNamesTheLine) {
  auto error = [](const std::string& output) {
    absl::StatusOr<std::vector<Gpu>> gpus = ParseNvidiaSmiGpus(output);
    EXPECT_THAT(gpus, StatusHasCode(absl::StatusCode::kInvalidArgument));
    return std::string(gpus.status().message());
  };
  EXPECT_EQ(error("0, Tesla T4\nNo devices were found\n"),
            "nvidia-smi output line 2: expected \"<index>, <name>\", got "
            "\"No devices were found\"");
  EXPECT_EQ(error("x, Tesla T4"),
            "nvidia-smi output line 1: the index is not a number, got "
            "\"x, Tesla T4\"");
  EXPECT_EQ(error("0,  "),
            "nvidia-smi output line 1: the GPU has no name, got \"0,\"");
  EXPECT_EQ(error("0, Tesla T4\n0, Tesla T4"),
            "nvidia-smi output line 2: GPU 0 is listed twice, got "
            "\"0, Tesla T4\"");
}

TEST(NvidiaSmiTest, ProductNamesMapToAiPlatformNames) {
  EXPECT_EQ(GpuTypeFromProductName("Tesla T4"), "NVIDIA_TESLA_T4");
  EXPECT_EQ(GpuTypeFromProductName("Tesla V100-PCIE-32GB"),
            "NVIDIA_TESLA_V100");
  EXPECT_EQ(GpuTypeFromProductName("Tesla V100S-PCIE-32GB"),
            "NVIDIA_TESLA_V100");
  EXPECT_EQ(GpuTypeFromProductName("Tesla P100-PCIE-16GB"),
            "NVIDIA_TESLA_P100");
  EXPECT_EQ(GpuTypeFromProductName("Tesla K80"), "NVIDIA_TESLA_K80");
  EXPECT_EQ(GpuTypeFromProductName("Tesla P4"), "NVIDIA_TESLA_P4");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA A100-SXM4-40GB"),
            "NVIDIA_TESLA_A100");
  EXPECT_EQ(GpuTypeFromProductName("A100-SXM4-80GB"), "NVIDIA_A100_80GB");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA A100 80GB PCIe"),
            "NVIDIA_A100_80GB");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA B200"), "NVIDIA_B200");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA H100 80GB HBM3"),
            "NVIDIA_H100_80GB");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA H200"), "NVIDIA_H200_141GB");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA L4"), "NVIDIA_L4");
  EXPECT_EQ(GpuTypeFromProductName("NVIDIA GeForce RTX 4090"),
            "NVIDIA_GEFORCE_RTX_4090");
  EXPECT_EQ(GpuTypeFromProductName("Quadro RTX 6000"),
            "NVIDIA_QUADRO_RTX_6000");
}

TEST(GpuAllocatorTest, TrialsGetDisjointGpusUntilNoneAreFree) {
  GpuAllocator allocator(Inventory("4"));
  std::vector<ReplicaRequest> trial = {Request(TaskType::kMaster, 0, 1, kT4),
                                       Request(TaskType::kWorker, 0, 1, kT4)};
  auto first = allocator.Allocate(trial);
  auto second = allocator.Allocate(trial);
  ASSERT_OK(first);
  ASSERT_OK(second);
  EXPECT_THAT((*first)->gpus(), ElementsAre(ElementsAre(0), ElementsAre(1)));
  EXPECT_THAT((*second)->gpus(), ElementsAre(ElementsAre(2), ElementsAre(3)));
  EXPECT_EQ(allocator.FreeCount(), 0);

  auto third = allocator.Allocate(trial);
  ASSERT_THAT(third, StatusHasCode(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(third.status().message(),
            "GPUs are busy: master 0 asks for 1 x NVIDIA_TESLA_T4; free now: "
            "none of 4 GPUs of any type (GPUs 0,1,2,3)");

  first->reset();
  EXPECT_EQ(allocator.FreeCount(), 2);
  third = allocator.Allocate(trial);
  ASSERT_OK(third);
  EXPECT_THAT((*third)->gpus(), ElementsAre(ElementsAre(0), ElementsAre(1)));
}

TEST(GpuAllocatorTest, AllOrNothing) {
  GpuAllocator allocator(Inventory("NVIDIA_TESLA_T4:4"));
  auto held = allocator.Allocate({Request(TaskType::kMaster, 0, 1, kT4)});
  ASSERT_OK(held);
  // The master alone would fit in the 3 free GPUs; the worker would not.
  auto trial = allocator.Allocate({Request(TaskType::kMaster, 0, 2, kT4),
                                   Request(TaskType::kWorker, 0, 2, kT4)});
  ASSERT_THAT(trial, StatusHasCode(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(trial.status().message(),
            "GPUs are busy: worker 0 asks for 2 x NVIDIA_TESLA_T4; free now: "
            "GPUs 1,2,3 of 4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)");
  EXPECT_EQ(allocator.FreeCount(), 3);
}

TEST(GpuAllocatorTest, TypesMustMatchAndAnyTypeMatchesAll) {
  GpuAllocator typed(Inventory("NVIDIA_TESLA_T4:0,1;NVIDIA_TESLA_V100:2,3"));
  auto lease = typed.Allocate({Request(TaskType::kMaster, 0, 2, kV100),
                               Request(TaskType::kWorker, 0, 1, kT4)});
  ASSERT_OK(lease);
  EXPECT_THAT((*lease)->gpus(), ElementsAre(ElementsAre(2, 3), ElementsAre(0)));

  GpuAllocator any(Inventory("2"));
  lease = any.Allocate({Request(TaskType::kMaster, 0, 1, kV100),
                        Request(TaskType::kWorker, 0, 1, kT4)});
  ASSERT_OK(lease);
  EXPECT_THAT((*lease)->gpus(), ElementsAre(ElementsAre(0), ElementsAre(1)));
}

TEST(GpuAllocatorTest, TypedRequestsUseTheirOwnTypeBeforeAnyType) {
  // GPU 0 is a T4, GPUs 1 and 2 of any type: the T4 request must take GPU 0
  // so the V100 request can have 1 and 2.
  GpuAllocator allocator(Inventory("NVIDIA_TESLA_T4:1;1,2"));
  auto lease = allocator.Allocate({Request(TaskType::kMaster, 0, 1, kT4),
                                   Request(TaskType::kWorker, 0, 2, kV100)});
  ASSERT_OK(lease);
  EXPECT_THAT((*lease)->gpus(), ElementsAre(ElementsAre(0), ElementsAre(1, 2)));
}

TEST(GpuAllocatorTest, RequestsWithoutGpusNeedNoInventory) {
  GpuAllocator allocator{GpuInventory()};
  auto lease = allocator.Allocate({Request(TaskType::kMaster, 0, 0, ""),
                                   Request(TaskType::kEvaluator, 0, 0, "")});
  ASSERT_OK(lease);
  EXPECT_THAT((*lease)->gpus(), ElementsAre(IsEmpty(), IsEmpty()));
}

TEST(GpuAllocatorTest, CheckFitsNamesTheReplicaItsAskAndTheMachine) {
  GpuAllocator none{GpuInventory()};
  absl::Status status = none.CheckFits({Request(TaskType::kMaster, 0, 1, kT4)});
  ASSERT_THAT(status, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(status.message(),
            "master 0 asks for 1 x NVIDIA_TESLA_T4, but this machine has no "
            "GPUs");

  GpuAllocator two(Inventory("NVIDIA_TESLA_T4:2"));
  status = two.CheckFits({Request(TaskType::kMaster, 0, 0, ""),
                          Request(TaskType::kWorker, 0, 1, kT4),
                          Request(TaskType::kWorker, 1, 1, kT4),
                          Request(TaskType::kWorker, 2, 4, kT4)});
  ASSERT_THAT(status, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(status.message(),
            "worker 2 asks for 4 x NVIDIA_TESLA_T4, but this machine has "
            "2 x NVIDIA_TESLA_T4 (GPUs 0,1)");

  status = two.CheckFits({Request(TaskType::kMaster, 0, 1, kV100)});
  ASSERT_THAT(status, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(status.message(),
            "master 0 asks for 1 x NVIDIA_TESLA_V100, but this machine has "
            "2 x NVIDIA_TESLA_T4 (GPUs 0,1); to let it use GPUs of any type, "
            "give them without a type: --gpus N (or HPTUNE_GPUS=N) for the "
            "first N, or --gpus 0,1,... for those indices");
  // An A3 Mega's H100 is an H100.
  GpuAllocator h100(Inventory("NVIDIA_H100_80GB:8"));
  EXPECT_OK(h100.CheckFits(
      {Request(TaskType::kMaster, 0, 8, "NVIDIA_H100_MEGA_80GB")}));

  GpuAllocator four(Inventory("NVIDIA_TESLA_T4:4"));
  std::vector<ReplicaRequest> together = {
      Request(TaskType::kMaster, 0, 4, kT4),
      Request(TaskType::kWorker, 0, 4, kT4)};
  status = four.CheckFits(together);
  ASSERT_THAT(status, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(status.message(),
            "worker 0 asks for 4 x NVIDIA_TESLA_T4 on top of the 4 GPUs the "
            "replicas before it ask for, but this machine has "
            "4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)");
  // Never fitting is not a matter of waiting.
  auto lease = four.Allocate(together);
  EXPECT_EQ(lease.status(), status);
  EXPECT_OK(four.CheckFits({together[0]}));
}

TEST(GpuAllocatorTest, LeasesMayOutliveTheAllocator) {
  auto allocator = std::make_unique<GpuAllocator>(Inventory("2"));
  auto lease = allocator->Allocate({Request(TaskType::kMaster, 0, 2, kT4)});
  ASSERT_OK(lease);
  allocator.reset();
  EXPECT_THAT((*lease)->gpus(), ElementsAre(ElementsAre(0, 1)));
  lease->reset();
}

TEST(GpuAllocatorTest, ConcurrentTrialsNeverShareAGpu) {
  GpuAllocator allocator(Inventory("4"));
  std::atomic<int> holders[4] = {};
  std::atomic<bool> shared{false};
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        auto lease =
            allocator.Allocate({Request(TaskType::kMaster, 0, 1, kT4),
                                Request(TaskType::kWorker, 0, 1, kT4)});
        if (!lease.ok()) continue;
        ++granted;
        for (const auto& gpus : (*lease)->gpus()) {
          for (int gpu : gpus) {
            if (holders[gpu].fetch_add(1) != 0) shared = true;
          }
        }
        for (const auto& gpus : (*lease)->gpus()) {
          for (int gpu : gpus) holders[gpu].fetch_sub(1);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_FALSE(shared);
  EXPECT_GT(granted.load(), 0);
  EXPECT_EQ(allocator.FreeCount(), 4);
}

TEST(LocalLauncherGpuTest, CheckFitsAndReserveUseTheInventory) {
  LocalLauncher launcher({.env = &hptune::DefaultEnv(),
                          .gpus = Inventory("NVIDIA_TESLA_T4:0,1,2,3")});
  EXPECT_EQ(launcher.gpus().Describe(), "4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)");
  absl::Status status =
      launcher.CheckFits({Request(TaskType::kMaster, 0, 1, kT4),
                          Request(TaskType::kWorker, 0, 8, kT4)});
  ASSERT_THAT(status, StatusHasCode(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(status.message(),
            "worker 0 asks for 8 x NVIDIA_TESLA_T4, but this machine has "
            "4 x NVIDIA_TESLA_T4 (GPUs 0,1,2,3)");

  std::vector<ReplicaRequest> trial = {
      Request(TaskType::kMaster, 0, 0, ""),
      Request(TaskType::kWorker, 0, 2, kT4),
      Request(TaskType::kWorker, 1, 1, kT4),
      Request(TaskType::kParameterServer, 0, 0, ""),
      Request(TaskType::kEvaluator, 0, 0, "")};
  absl::StatusOr<std::unique_ptr<Placement>> placement =
      launcher.Reserve(trial);
  ASSERT_OK(placement);
  const std::vector<ReplicaPlacement>& replicas = (*placement)->replicas();
  ASSERT_EQ(replicas.size(), 5u);
  std::vector<int> ports;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(replicas[i].host, "127.0.0.1");
    EXPECT_GT(replicas[i].port, 0);
    ports.push_back(replicas[i].port);
  }
  std::sort(ports.begin(), ports.end());
  EXPECT_EQ(std::unique(ports.begin(), ports.end()), ports.end());
  EXPECT_EQ(replicas[4].port, 0);  // Evaluators serve nothing.
  EXPECT_THAT(replicas[1].gpus, ElementsAre(0, 1));
  EXPECT_THAT(replicas[2].gpus, ElementsAre(2));
  EXPECT_THAT(replicas[0].gpus, IsEmpty());

  absl::StatusOr<std::unique_ptr<Placement>> busy = launcher.Reserve(trial);
  ASSERT_THAT(busy, StatusHasCode(absl::StatusCode::kResourceExhausted));
  placement->reset();
  busy = launcher.Reserve(trial);
  EXPECT_OK(busy);
}

}  // namespace
}  // namespace hptune::launch

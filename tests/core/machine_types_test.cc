// Tests for the machine-type catalogue: the builtin AI Platform types and GPU
// table of docs/config.md, user extensions, and pool validation.
#include "hptune/core/machine_types.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testing/status_matchers.h"

namespace hptune {
namespace {

using ::hptune_testing::StatusHasCode;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

const MachineCatalogue& Builtin() { return MachineCatalogue::Builtin(); }

std::vector<int> Counts(const std::string& machine, const std::string& gpu) {
  const MachineType* type = Builtin().Find(machine);
  if (type == nullptr) return {-1};
  for (const AcceleratorOption& option : type->accelerators) {
    if (option.type == gpu) return option.counts;
  }
  return {};
}

TEST(MachineCatalogueTest, N1SizesFollowTheirFamily) {
  for (int n : {1, 2, 4, 8, 16, 32, 64, 96}) {
    const MachineType* type =
        Builtin().Find("n1-standard-" + std::to_string(n));
    ASSERT_NE(type, nullptr) << n;
    EXPECT_EQ(type->vcpus, n);
    EXPECT_EQ(type->memory_gb, 3.75 * n);
  }
  for (int n : {2, 4, 8, 16, 32, 64, 96}) {
    const MachineType* highmem =
        Builtin().Find("n1-highmem-" + std::to_string(n));
    ASSERT_NE(highmem, nullptr) << n;
    EXPECT_EQ(highmem->memory_gb, 6.5 * n);
    const MachineType* highcpu =
        Builtin().Find("n1-highcpu-" + std::to_string(n));
    ASSERT_NE(highcpu, nullptr) << n;
    EXPECT_EQ(highcpu->vcpus, n);
  }
  // 0.9 GB per vCPU, as the nearest double to the decimal figure.
  EXPECT_EQ(Builtin().Find("n1-highcpu-16")->memory_gb, 14.4);
  EXPECT_EQ(Builtin().Find("n1-highcpu-32")->memory_gb, 28.8);
}

// The table of docs/config.md, row by row.
struct GpuRow {
  std::vector<std::string> machines;
  std::vector<int> k80, p4, p100, t4, v100;
};

TEST(MachineCatalogueTest, GpuCountsMatchTheContractTable) {
  const std::vector<GpuRow> table = {
      {{"n1-standard-4", "n1-standard-8", "n1-highmem-2", "n1-highmem-4",
        "n1-highmem-8"},
       {1, 2, 4, 8},
       {1, 2, 4},
       {1, 2, 4},
       {1, 2, 4},
       {1, 2, 4, 8}},
      {{"n1-standard-16", "n1-highmem-16", "n1-highcpu-16"},
       {2, 4, 8},
       {1, 2, 4},
       {1, 2, 4},
       {1, 2, 4},
       {2, 4, 8}},
      {{"n1-standard-32", "n1-highmem-32", "n1-highcpu-32"},
       {4, 8},
       {2, 4},
       {2, 4},
       {2, 4},
       {4, 8}},
  };
  for (const GpuRow& row : table) {
    for (const std::string& machine : row.machines) {
      EXPECT_EQ(Counts(machine, "NVIDIA_TESLA_K80"), row.k80) << machine;
      EXPECT_EQ(Counts(machine, "NVIDIA_TESLA_P4"), row.p4) << machine;
      EXPECT_EQ(Counts(machine, "NVIDIA_TESLA_P100"), row.p100) << machine;
      EXPECT_EQ(Counts(machine, "NVIDIA_TESLA_T4"), row.t4) << machine;
      EXPECT_EQ(Counts(machine, "NVIDIA_TESLA_V100"), row.v100) << machine;
      EXPECT_THAT(Counts(machine, "NVIDIA_TESLA_A100"), IsEmpty()) << machine;
    }
  }
}

TEST(MachineCatalogueTest, A100sComeOnlyWithA2TypesOfTheirCount) {
  const std::vector<std::pair<std::string, int>> a2 = {{"a2-highgpu-1g", 1},
                                                       {"a2-highgpu-2g", 2},
                                                       {"a2-highgpu-4g", 4},
                                                       {"a2-highgpu-8g", 8},
                                                       {"a2-megagpu-16g", 16}};
  for (const auto& [name, gpus] : a2) {
    const MachineType* type = Builtin().Find(name);
    ASSERT_NE(type, nullptr) << name;
    EXPECT_TRUE(type->requires_accelerator);
    EXPECT_THAT(type->accelerators,
                ElementsAre(AcceleratorOption{"NVIDIA_TESLA_A100", {gpus}}));
  }
  for (const MachineType& type : Builtin().types()) {
    if (type.name.rfind("a2-", 0) == 0) continue;
    for (const AcceleratorOption& option : type.accelerators) {
      EXPECT_NE(option.type, "NVIDIA_TESLA_A100") << type.name;
    }
  }
}

// Vertex AI's current GPU machine types: each comes with a fixed number of
// one GPU type, which its acceleratorConfig must name.
TEST(MachineCatalogueTest, CurrentGpuFamiliesTakeTheirOwnGpus) {
  struct Row {
    std::string name;
    int vcpus;
    double memory_gb;
    std::string gpu;
    int gpus;
  };
  const std::vector<Row> rows = {
      {"a2-ultragpu-1g", 12, 170, "NVIDIA_A100_80GB", 1},
      {"a2-ultragpu-8g", 96, 1360, "NVIDIA_A100_80GB", 8},
      {"g2-standard-4", 4, 16, "NVIDIA_L4", 1},
      {"g2-standard-24", 24, 96, "NVIDIA_L4", 2},
      {"g2-standard-32", 32, 128, "NVIDIA_L4", 1},
      {"g2-standard-96", 96, 384, "NVIDIA_L4", 8},
      {"a3-highgpu-1g", 26, 234, "NVIDIA_H100_80GB", 1},
      {"a3-highgpu-8g", 208, 1872, "NVIDIA_H100_80GB", 8},
      {"a3-megagpu-8g", 208, 1872, "NVIDIA_H100_MEGA_80GB", 8},
      {"a3-ultragpu-8g", 224, 2952, "NVIDIA_H200_141GB", 8},
      {"a4-highgpu-8g", 224, 3968, "NVIDIA_B200", 8},
  };
  for (const Row& row : rows) {
    const MachineType* type = Builtin().Find(row.name);
    ASSERT_NE(type, nullptr) << row.name;
    EXPECT_EQ(type->vcpus, row.vcpus) << row.name;
    EXPECT_DOUBLE_EQ(type->memory_gb, row.memory_gb) << row.name;
    EXPECT_TRUE(type->requires_accelerator) << row.name;
    EXPECT_THAT(type->accelerators,
                ElementsAre(AcceleratorOption{row.gpu, {row.gpus}}))
        << row.name;
  }
}

TEST(MachineCatalogueTest, LegacyTypesIncludeTheirGpus) {
  const std::vector<std::pair<std::string, AcceleratorConfig>> legacy = {
      {"standard", {}},
      {"large_model", {}},
      {"complex_model_s", {}},
      {"complex_model_m", {}},
      {"complex_model_l", {}},
      {"standard_gpu", {1, "NVIDIA_TESLA_K80"}},
      {"complex_model_m_gpu", {4, "NVIDIA_TESLA_K80"}},
      {"complex_model_l_gpu", {8, "NVIDIA_TESLA_K80"}},
      {"standard_p100", {1, "NVIDIA_TESLA_P100"}},
      {"complex_model_m_p100", {4, "NVIDIA_TESLA_P100"}},
      {"standard_v100", {1, "NVIDIA_TESLA_V100"}},
      {"large_model_v100", {1, "NVIDIA_TESLA_V100"}},
      {"complex_model_m_v100", {4, "NVIDIA_TESLA_V100"}},
      {"complex_model_l_v100", {8, "NVIDIA_TESLA_V100"}},
  };
  for (const auto& [name, gpus] : legacy) {
    const MachineType* type = Builtin().Find(name);
    ASSERT_NE(type, nullptr) << name;
    EXPECT_EQ(type->included_gpus, gpus) << name;
    EXPECT_THAT(type->accelerators, IsEmpty()) << name;
    EXPECT_GT(type->vcpus, 0) << name;
    EXPECT_GT(type->memory_gb, 0) << name;
  }
}

TEST(MachineCatalogueTest, AcceleratorTypesAreAiPlatformsGpus) {
  EXPECT_THAT(
      Builtin().AcceleratorTypes(),
      ElementsAre("NVIDIA_TESLA_K80", "NVIDIA_TESLA_P4", "NVIDIA_TESLA_P100",
                  "NVIDIA_TESLA_T4", "NVIDIA_TESLA_V100", "NVIDIA_TESLA_A100",
                  "NVIDIA_A100_80GB", "NVIDIA_L4", "NVIDIA_H100_80GB",
                  "NVIDIA_H100_MEGA_80GB", "NVIDIA_H200_141GB", "NVIDIA_B200"));
}

TEST(MachineCatalogueTest, FindReturnsNullForUnknownTypes) {
  EXPECT_EQ(Builtin().Find("n1-standard-3"), nullptr);
  EXPECT_EQ(Builtin().Find(""), nullptr);
  EXPECT_EQ(Builtin().Names().size(), Builtin().types().size());
  EXPECT_EQ(Builtin().Names().front(), "n1-standard-1");
}

TEST(MachineCatalogueTest, GpusPerReplicaAreIncludedOrConfigured) {
  EXPECT_EQ(Builtin().GpusPerReplica(
                {.count = 2, .machine_type = "complex_model_l_gpu"}),
            (AcceleratorConfig{8, "NVIDIA_TESLA_K80"}));
  EXPECT_EQ(Builtin().GpusPerReplica({.count = 1,
                                      .machine_type = "n1-standard-8",
                                      .accelerator = {2, "NVIDIA_TESLA_T4"}}),
            (AcceleratorConfig{2, "NVIDIA_TESLA_T4"}));
  EXPECT_EQ(
      Builtin().GpusPerReplica({.count = 1, .machine_type = "n1-standard-8"}),
      AcceleratorConfig{});
  EXPECT_EQ(Builtin().GpusPerReplica({.count = 1, .machine_type = "nope"}),
            AcceleratorConfig{});
}

std::vector<std::string> PoolErrors(const TaskPool& pool) {
  std::vector<std::string> lines;
  for (const FieldError& error : Builtin().ValidatePool("type", "acc", pool)) {
    lines.push_back(error.ToString());
  }
  return lines;
}

TEST(MachineCatalogueTest, ValidatePoolAcceptsValidCombinations) {
  EXPECT_THAT(PoolErrors({}), IsEmpty());
  EXPECT_THAT(PoolErrors({.count = 3,
                          .machine_type = "n1-highmem-2",
                          .accelerator = {8, "NVIDIA_TESLA_V100"}}),
              IsEmpty());
  EXPECT_THAT(PoolErrors({.count = 1, .machine_type = "standard_v100"}),
              IsEmpty());
}

TEST(MachineCatalogueTest, ValidatePoolNamesTheFieldAndValue) {
  EXPECT_THAT(PoolErrors({.count = 1, .machine_type = "n1-standard-7"}),
              ElementsAre("type: unknown machine type \"n1-standard-7\" (did "
                          "you mean n1-standard-1?)"));
  EXPECT_THAT(PoolErrors({.count = 1,
                          .machine_type = "n1-standard-8",
                          .accelerator = {3, ""}}),
              ElementsAre("acc.type: required"));
  EXPECT_THAT(PoolErrors({.count = 1,
                          .machine_type = "n1-standard-8",
                          .accelerator = {-1, "NVIDIA_TESLA_T4"}}),
              ElementsAre("acc.count: must be at least 1, got -1"));
  EXPECT_THAT(
      PoolErrors({.count = 1,
                  .machine_type = "n1-standard-96",
                  .accelerator = {4, "NVIDIA_TESLA_K80"}}),
      ElementsAre("acc.type: NVIDIA_TESLA_K80 is not available with "
                  "machine type n1-standard-96 (available: "
                  "NVIDIA_TESLA_P4, NVIDIA_TESLA_T4, NVIDIA_TESLA_V100); "
                  "machine types that take NVIDIA_TESLA_K80: n1-standard-4, "
                  "n1-standard-8, n1-standard-16, n1-standard-32, "
                  "n1-highmem-2, n1-highmem-4, and 6 more"));
  EXPECT_THAT(PoolErrors({.count = 1,
                          .machine_type = "n1-standard-4",
                          .accelerator = {3, "NVIDIA_TESLA_V100"}}),
              ElementsAre("acc.count: machine type n1-standard-4 takes 1, 2, 4 "
                          "or 8 NVIDIA_TESLA_V100, got 3"));
  EXPECT_THAT(PoolErrors({.count = 1,
                          .machine_type = "complex_model_m",
                          .accelerator = {1, "NVIDIA_TESLA_K80"}}),
              ElementsAre("acc: machine type complex_model_m takes no "
                          "acceleratorConfig"));
}

MachineType Box(std::string name) {
  return {.name = std::move(name),
          .vcpus = 64,
          .memory_gb = 512,
          .accelerators = {{"NVIDIA_RTX_PRO_6000", {1, 2, 4, 8}}}};
}

TEST(MachineCatalogueTest, UsersExtendACopyOfTheBuiltinCatalogue) {
  MachineCatalogue catalogue = MachineCatalogue::Builtin();
  ASSERT_OK(catalogue.Add(Box("rtx-box")));
  ASSERT_NE(catalogue.Find("rtx-box"), nullptr);
  EXPECT_EQ(catalogue.Find("rtx-box")->vcpus, 64);
  EXPECT_EQ(catalogue.AcceleratorTypes().back(), "NVIDIA_RTX_PRO_6000");
  EXPECT_THAT(
      catalogue.ValidatePool("t", "a",
                             {.count = 1,
                              .machine_type = "rtx-box",
                              .accelerator = {8, "NVIDIA_RTX_PRO_6000"}}),
      IsEmpty());
  EXPECT_EQ(MachineCatalogue::Builtin().Find("rtx-box"), nullptr);
}

TEST(MachineCatalogueTest, AddRejectsDuplicates) {
  MachineCatalogue catalogue;
  ASSERT_OK(catalogue.Add(Box("box")));
  absl::Status status = catalogue.Add(Box("box"));
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kAlreadyExists,
                       "machine type \"box\" is already in the catalogue"));
}

TEST(MachineCatalogueTest, AddRejectsMalformedTypes) {
  const auto message = [](MachineType type) {
    MachineCatalogue catalogue;
    absl::Status status = catalogue.Add(std::move(type));
    EXPECT_THAT(status, StatusHasCode(absl::StatusCode::kInvalidArgument));
    return std::string(status.message());
  };
  MachineType type = Box("");
  EXPECT_EQ(message(type), "machine type: name must not be empty");
  type = Box("a b");
  EXPECT_EQ(message(type),
            "machine type \"a b\": name must not contain whitespace");
  type = Box("box");
  type.vcpus = 0;
  EXPECT_EQ(message(type),
            "machine type \"box\": vcpus must be at least 1, got 0");
  type = Box("box");
  type.memory_gb = -1;
  EXPECT_EQ(message(type),
            "machine type \"box\": memory_gb must be positive, got -1");
  type = Box("box");
  type.accelerators = {{"G", {2, 1}}};
  EXPECT_EQ(message(type),
            "machine type \"box\": accelerator G counts must be positive and "
            "strictly increasing");
  type = Box("box");
  type.accelerators = {{"", {1}}};
  EXPECT_EQ(message(type),
            "machine type \"box\": accelerator type must not be empty");
  type = Box("box");
  type.accelerators = {{"G", {}}};
  EXPECT_EQ(message(type),
            "machine type \"box\": accelerator G has no valid counts");
  type = Box("box");
  type.accelerators = {{"G", {1}}, {"G", {2}}};
  EXPECT_EQ(message(type), "machine type \"box\": accelerator G listed twice");
  type = Box("box");
  type.included_gpus = {1, "G"};
  EXPECT_EQ(message(type),
            "machine type \"box\": a type with included GPUs cannot take an "
            "acceleratorConfig");
  type = Box("box");
  type.accelerators.clear();
  type.included_gpus = {1, ""};
  EXPECT_EQ(message(type),
            "machine type \"box\": included_gpus needs both a positive count "
            "and a type, or neither");
  type = Box("box");
  type.accelerators.clear();
  type.requires_accelerator = true;
  EXPECT_EQ(message(type),
            "machine type \"box\": requires_accelerator needs at least one "
            "accelerator option");
}

}  // namespace
}  // namespace hptune

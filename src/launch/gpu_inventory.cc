#include "hptune/launch/gpu_inventory.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hptune/core/mutex.h"
#include "hptune/launch/replica_env.h"
#include "src/launch/capture_output.h"

namespace hptune::launch {

// Device indices held by leases, shared by the allocator and its leases so a
// lease can return its GPUs after the allocator is gone.
struct GpuLease::State {
  Mutex mutex;
  std::set<int> busy ABSL_GUARDED_BY(mutex);
};

namespace {

// Above any real machine; keeps a typo like "T4:40000" from building a huge
// inventory.
constexpr int kMaxGpus = 1024;

constexpr char kNvidiaSmiQuery[] = "--query-gpu=index,name";
constexpr char kNvidiaSmiFormat[] = "--format=csv,noheader";

// absl's split and strip take absl::string_view, which Debian's abseil does
// not alias to std::string_view.
std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> pieces;
  for (;;) {
    size_t at = text.find(separator);
    pieces.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + 1);
  }
}

std::string_view Strip(std::string_view text) {
  auto space = [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' ||
           c == '\f';
  };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

std::string Quote(std::string_view text) {
  return absl::StrCat("\"", std::string(text), "\"");
}

// Non-negative decimal integer, digits only, at most kMaxGpus.
std::optional<int> ParseSmallNumber(std::string_view text) {
  if (text.empty() || text.size() > 4) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value > kMaxGpus) return std::nullopt;
  return value;
}

bool IsTypeName(std::string_view text) {
  if (text.empty()) return false;
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string JoinIndices(const std::vector<int>& indices) {
  return absl::StrJoin(indices, ",");
}

// Product-name tokens (upper case, split at non-alphanumerics) that name a
// GPU family Vertex AI knows, checked in this order; `memory`, when set,
// must be a token too ("NVIDIA A100-SXM4-80GB" is an A100 80GB, "NVIDIA
// A100-SXM4-40GB" an A100).
struct KnownFamily {
  std::string_view token;
  std::string_view type;
  std::string_view memory = {};
};
constexpr KnownFamily kKnownFamilies[] = {
    {"T4", "NVIDIA_TESLA_T4"},
    {"V100", "NVIDIA_TESLA_V100"},
    {"V100S", "NVIDIA_TESLA_V100"},
    {"P100", "NVIDIA_TESLA_P100"},
    {"K80", "NVIDIA_TESLA_K80"},
    {"P4", "NVIDIA_TESLA_P4"},
    {"A100", "NVIDIA_A100_80GB", "80GB"},
    {"A100", "NVIDIA_TESLA_A100"},
    {"H100", "NVIDIA_H100_80GB"},
    {"H200", "NVIDIA_H200_141GB"},
    {"B200", "NVIDIA_B200"},
    {"L4", "NVIDIA_L4"},
};

// The GPU a requested type runs on: an A3 Mega's H100 is an H100 (Vertex AI
// tells them apart by the machine's network, which hptune does not manage).
std::string_view ChipOf(std::string_view type) {
  if (type == "NVIDIA_H100_MEGA_80GB") return "NVIDIA_H100_80GB";
  return type;
}

std::string DescribeRequest(const ReplicaRequest& request) {
  if (request.gpu_type.empty()) {
    return absl::StrCat(request.gpu_count,
                        request.gpu_count == 1 ? " GPU" : " GPUs");
  }
  return absl::StrCat(request.gpu_count, " x ", request.gpu_type);
}

bool Matches(const Gpu& gpu, const std::string& requested_type) {
  return gpu.type.empty() || requested_type.empty() ||
         ChipOf(gpu.type) == ChipOf(requested_type);
}

// Disjoint GPUs for `requests` out of `available`, or the position in
// `requests` of the first one that cannot be served.
//
// Typed requests go first and take GPUs of their own type before GPUs of
// any type; requests of any type then take what is left. Each type's own
// GPUs serve only that type, so this uses the fewest any-type GPUs on typed
// requests and finds an assignment whenever one exists.
struct Assignment {
  std::vector<std::vector<int>> gpus;
  int failed = -1;
};
Assignment Assign(const std::vector<Gpu>& available,
                  const std::vector<ReplicaRequest>& requests) {
  Assignment result;
  result.gpus.resize(requests.size());
  std::vector<bool> taken(available.size(), false);
  auto take = [&](size_t r, auto&& eligible) {
    const ReplicaRequest& request = requests[r];
    for (size_t g = 0; g < available.size(); ++g) {
      if (static_cast<int>(result.gpus[r].size()) == request.gpu_count) break;
      if (!taken[g] && eligible(available[g])) {
        taken[g] = true;
        result.gpus[r].push_back(available[g].index);
      }
    }
  };
  std::vector<size_t> order;
  for (size_t r = 0; r < requests.size(); ++r) {
    if (requests[r].gpu_count > 0 && !requests[r].gpu_type.empty()) {
      order.push_back(r);
    }
  }
  for (size_t r = 0; r < requests.size(); ++r) {
    if (requests[r].gpu_count > 0 && requests[r].gpu_type.empty()) {
      order.push_back(r);
    }
  }
  for (size_t r : order) {
    const std::string& type = requests[r].gpu_type;
    if (!type.empty()) {
      take(r, [&](const Gpu& gpu) { return gpu.type == type; });
    }
    take(r, [&](const Gpu& gpu) { return Matches(gpu, type); });
    if (static_cast<int>(result.gpus[r].size()) < requests[r].gpu_count) {
      result.failed = static_cast<int>(r);
      return result;
    }
  }
  for (std::vector<int>& gpus : result.gpus)
    std::sort(gpus.begin(), gpus.end());
  return result;
}

}  // namespace

std::string GpuTypeFromProductName(std::string_view name) {
  std::string normalised;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      normalised +=
          static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (!normalised.empty() && normalised.back() != '_') {
      normalised += '_';
    }
  }
  while (!normalised.empty() && normalised.back() == '_') normalised.pop_back();
  std::vector<std::string_view> tokens = Split(normalised, '_');
  auto has = [&tokens](std::string_view token) {
    return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
  };
  for (const KnownFamily& family : kKnownFamilies) {
    if (has(family.token) && (family.memory.empty() || has(family.memory))) {
      return std::string(family.type);
    }
  }
  if (normalised.empty()) return "NVIDIA_UNKNOWN";
  if (normalised.rfind("NVIDIA_", 0) == 0) return normalised;
  return "NVIDIA_" + normalised;
}

absl::StatusOr<std::vector<Gpu>> ParseNvidiaSmiGpus(std::string_view output) {
  std::vector<Gpu> gpus;
  std::set<int> seen;
  int line_number = 0;
  for (std::string_view line : Split(output, '\n')) {
    ++line_number;
    line = Strip(line);
    if (line.empty()) continue;
    auto bad_line = [&](std::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("nvidia-smi output line ", line_number, ": ",
                       std::string(why), ", got ", Quote(line)));
    };
    size_t comma = line.find(',');
    if (comma == std::string_view::npos) {
      return bad_line("expected \"<index>, <name>\"");
    }
    std::string_view index_text = Strip(line.substr(0, comma));
    std::string_view name = Strip(line.substr(comma + 1));
    std::optional<int> index = ParseSmallNumber(index_text);
    if (!index) return bad_line("the index is not a number");
    if (name.empty()) return bad_line("the GPU has no name");
    if (!seen.insert(*index).second) {
      return bad_line(absl::StrCat("GPU ", *index, " is listed twice"));
    }
    gpus.push_back({.index = *index, .type = GpuTypeFromProductName(name)});
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const Gpu& a, const Gpu& b) { return a.index < b.index; });
  return gpus;
}

absl::StatusOr<std::vector<Gpu>> ParseGpuSpec(std::string_view spec) {
  auto error = [&](std::string_view part, std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("GPU spec ", Quote(spec),
                                                   ": part ", Quote(part), ": ",
                                                   std::string(why)));
  };
  std::string_view whole = Strip(spec);
  if (whole.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "GPU spec ", Quote(spec), " is empty; write \"0\" for no GPUs"));
  }
  if (whole == "0") return std::vector<Gpu>{};

  std::vector<Gpu> gpus;
  std::set<int> seen;
  int next_index = 0;
  for (std::string_view raw_part : Split(whole, ';')) {
    std::string_view part = Strip(raw_part);
    if (part.empty()) return error(raw_part, "empty");
    std::string type;
    std::string_view body = part;
    size_t colon = part.find(':');
    if (colon != std::string_view::npos) {
      std::string_view type_text = Strip(part.substr(0, colon));
      if (!IsTypeName(type_text)) {
        return error(part, absl::StrCat(Quote(type_text),
                                        " is not a GPU type name (upper-case "
                                        "letters, digits and '_', like "
                                        "NVIDIA_TESLA_T4)"));
      }
      type = std::string(type_text);
      body = Strip(part.substr(colon + 1));
    }
    std::vector<int> indices;
    if (body.find(',') == std::string_view::npos) {
      std::optional<int> count = ParseSmallNumber(body);
      if (!count) {
        return error(
            part,
            absl::StrCat(Quote(body), " is not a count or a list of indices"));
      }
      if (*count == 0) return error(part, "a count must be at least 1");
      for (int i = 0; i < *count; ++i) indices.push_back(next_index + i);
    } else {
      for (std::string_view item : Split(body, ',')) {
        item = Strip(item);
        std::optional<int> index = ParseSmallNumber(item);
        if (!index) {
          return error(part,
                       absl::StrCat(Quote(item), " is not a device index"));
        }
        indices.push_back(*index);
      }
    }
    for (int index : indices) {
      if (!seen.insert(index).second) {
        return error(part, absl::StrCat("GPU ", index, " is listed twice"));
      }
      if (static_cast<int>(seen.size()) > kMaxGpus) {
        return error(part, absl::StrCat("more than ", kMaxGpus, " GPUs"));
      }
      gpus.push_back({.index = index, .type = type});
      next_index = std::max(next_index, index + 1);
    }
  }
  std::sort(gpus.begin(), gpus.end(),
            [](const Gpu& a, const Gpu& b) { return a.index < b.index; });
  return gpus;
}

absl::StatusOr<GpuInventory> GpuInventory::Create(std::vector<Gpu> gpus) {
  std::sort(gpus.begin(), gpus.end(),
            [](const Gpu& a, const Gpu& b) { return a.index < b.index; });
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("GPU index ", gpus[i].index, " is negative"));
    }
    if (i > 0 && gpus[i].index == gpus[i - 1].index) {
      return absl::InvalidArgumentError(
          absl::StrCat("GPU ", gpus[i].index, " is listed twice"));
    }
  }
  return GpuInventory(std::move(gpus));
}

absl::StatusOr<GpuInventory> GpuInventory::FromSpec(std::string_view spec) {
  absl::StatusOr<std::vector<Gpu>> gpus = ParseGpuSpec(spec);
  if (!gpus.ok()) return gpus.status();
  return GpuInventory(*std::move(gpus));
}

absl::StatusOr<GpuInventory> GpuInventory::Detect(
    Env& env, const std::string& nvidia_smi) {
  absl::StatusOr<CapturedOutput> run =
      RunCapturingOutput(env, {nvidia_smi, kNvidiaSmiQuery, kNvidiaSmiFormat});
  if (absl::IsNotFound(run.status())) return GpuInventory();
  if (!run.ok()) return run.status();
  if (run->signal != 0 || run->exit_code != 0) {
    std::string how = run->signal != 0
                          ? absl::StrCat("was killed by signal ", run->signal)
                          : absl::StrCat("exited with ", run->exit_code);
    std::string output = run->out + run->err;
    std::string said(Strip(output));
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot list GPUs: \"", nvidia_smi, " ", kNvidiaSmiQuery, " ",
        kNvidiaSmiFormat, "\" ", how, said.empty() ? "" : ": ", said));
  }
  absl::StatusOr<std::vector<Gpu>> gpus = ParseNvidiaSmiGpus(run->out);
  if (!gpus.ok()) return gpus.status();
  return GpuInventory(*std::move(gpus));
}

std::string GpuInventory::Describe() const {
  if (gpus_.empty()) return "no GPUs";
  // Groups in order of first appearance.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (const Gpu& gpu : gpus_) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == gpu.type; });
    if (it == groups.end()) {
      groups.push_back({gpu.type, {}});
      it = groups.end() - 1;
    }
    it->second.push_back(gpu.index);
  }
  std::vector<std::string> parts;
  for (const auto& [type, indices] : groups) {
    std::string what =
        type.empty() ? absl::StrCat(indices.size(),
                                    indices.size() == 1 ? " GPU" : " GPUs",
                                    " of any type")
                     : absl::StrCat(indices.size(), " x ", type);
    parts.push_back(absl::StrCat(what, " (GPU",
                                 indices.size() == 1 ? " " : "s ",
                                 JoinIndices(indices), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

GpuLease::~GpuLease() {
  MutexLock lock(&state_->mutex);
  for (const std::vector<int>& gpus : gpus_) {
    for (int index : gpus) state_->busy.erase(index);
  }
}

GpuAllocator::GpuAllocator(GpuInventory inventory)
    : inventory_(std::move(inventory)),
      state_(std::make_shared<GpuLease::State>()) {}

GpuAllocator::~GpuAllocator() = default;

absl::Status GpuAllocator::CheckFits(
    const std::vector<ReplicaRequest>& requests) const {
  const std::vector<Gpu>& all = inventory_.gpus();
  if (Assign(all, requests).failed < 0) return absl::OkStatus();
  // The first replica whose GPUs, on top of those before it, cannot be had.
  std::vector<ReplicaRequest> prefix;
  int asked_before = 0;
  for (const ReplicaRequest& request : requests) {
    prefix.push_back(request);
    if (request.gpu_count <= 0) continue;
    if (Assign(all, prefix).failed >= 0) {
      std::string what = absl::StrCat(DescribeReplica(request), " asks for ",
                                      DescribeRequest(request));
      if (Assign(all, {request}).failed < 0) {
        absl::StrAppend(&what, " on top of the ", asked_before,
                        asked_before == 1 ? " GPU" : " GPUs",
                        " the replicas before it ask for");
      }
      // Enough GPUs of another type (a workstation card Vertex AI does not
      // name, say): the same requests without types would fit.
      std::vector<ReplicaRequest> untyped_prefix = prefix;
      for (ReplicaRequest& r : untyped_prefix) r.gpu_type.clear();
      const std::string untyped =
          request.gpu_type.empty() || Assign(all, untyped_prefix).failed >= 0
              ? ""
              : absl::StrCat(
                    "; to let it use GPUs of any type, give them without a "
                    "type: --gpus N (or HPTUNE_GPUS=N) for the first N, or "
                    "--gpus 0,1,... for those indices");
      return absl::FailedPreconditionError(absl::StrCat(
          what, ", but this machine has ", inventory_.Describe(), untyped));
    }
    asked_before += request.gpu_count;
  }
  return absl::InternalError("GPU requests fit one by one but not together");
}

absl::StatusOr<std::unique_ptr<GpuLease>> GpuAllocator::Allocate(
    const std::vector<ReplicaRequest>& requests) {
  absl::Status fits = CheckFits(requests);
  if (!fits.ok()) return fits;
  MutexLock lock(&state_->mutex);
  std::vector<Gpu> free;
  std::vector<int> free_indices;
  for (const Gpu& gpu : inventory_.gpus()) {
    if (state_->busy.count(gpu.index) == 0) {
      free.push_back(gpu);
      free_indices.push_back(gpu.index);
    }
  }
  Assignment assignment = Assign(free, requests);
  if (assignment.failed >= 0) {
    const ReplicaRequest& request = requests[assignment.failed];
    return absl::ResourceExhaustedError(absl::StrCat(
        "GPUs are busy: ", DescribeReplica(request), " asks for ",
        DescribeRequest(request), "; free now: ",
        free_indices.empty()
            ? "none"
            : absl::StrCat("GPU", free_indices.size() == 1 ? " " : "s ",
                           JoinIndices(free_indices)),
        " of ", inventory_.Describe()));
  }
  for (const std::vector<int>& gpus : assignment.gpus) {
    state_->busy.insert(gpus.begin(), gpus.end());
  }
  return std::unique_ptr<GpuLease>(
      new GpuLease(state_, std::move(assignment.gpus)));
}

int GpuAllocator::FreeCount() const {
  MutexLock lock(&state_->mutex);
  return static_cast<int>(inventory_.gpus().size() - state_->busy.size());
}

}  // namespace hptune::launch

#include "tests/testing/fake_env.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "tests/testing/fake_directory.h"

namespace hptune::testing {
namespace {

// The key of `path`: absolute (relative paths are taken from "/") and
// normalised, without a trailing slash.
std::string Key(const std::filesystem::path& path) {
  std::string key = ("/" / path).lexically_normal().string();
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  return key;
}

std::string Parent(const std::string& key) {
  return std::filesystem::path(key).parent_path().string();
}

absl::Status NotFound(std::string_view what, const std::string& key) {
  return absl::NotFoundError(
      absl::StrCat(std::string(what), " ", key, ": No such file"));
}

// A snapshot of a file's contents when it was opened, as an open
// descriptor keeps reading the file it opened.
class MemoryFile : public RandomAccessFile {
 public:
  explicit MemoryFile(std::string contents) : contents_(std::move(contents)) {}
  uint64_t size() const override { return contents_.size(); }
  absl::StatusOr<size_t> ReadAt(uint64_t offset, char* buffer,
                                size_t length) override {
    if (offset >= contents_.size()) return 0;
    const size_t n = std::min<size_t>(length, contents_.size() - offset);
    std::memcpy(buffer, contents_.data() + offset, n);
    return n;
  }

 private:
  const std::string contents_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<RandomAccessFile>> FakeEnv::OpenForReading(
    const std::filesystem::path& path, std::string_view what) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  if (dirs_.contains(key)) {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(what), " \"", key, "\" is not a regular file"));
  }
  auto it = files_.find(key);
  if (it == files_.end())
    return NotFound(absl::StrCat("cannot open ", std::string(what)), key);
  return std::make_unique<MemoryFile>(it->second);
}

absl::StatusOr<std::string> FakeEnv::ReadFile(
    const std::filesystem::path& path) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  auto it = files_.find(key);
  if (it == files_.end()) return NotFound("cannot open", key);
  return it->second;
}

absl::Status FakeEnv::WriteFileAtomically(const std::filesystem::path& path,
                                          std::string_view contents, int mode,
                                          Durability) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  if (!dirs_.contains(Parent(key))) return NotFound("cannot create in", key);
  if (dirs_.contains(key)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot rename into ", key, ": Is a directory"));
  }
  files_[key] = std::string(contents);
  modes_[key] = mode;
  return absl::OkStatus();
}

absl::Status FakeEnv::CreateFileAtomically(const std::filesystem::path& path,
                                           std::string_view contents,
                                           int mode) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  if (!dirs_.contains(Parent(key))) return NotFound("cannot create in", key);
  if (dirs_.contains(key) || files_.contains(key)) {
    return absl::AlreadyExistsError(
        absl::StrCat("cannot create ", key, ": File exists"));
  }
  files_[key] = std::string(contents);
  modes_[key] = mode;
  return absl::OkStatus();
}

class FakeEnv::FakeAppendFile : public AppendFile {
 public:
  FakeAppendFile(FakeEnv& env, std::string key)
      : env_(env), key_(std::move(key)) {}
  // A file removed meanwhile takes nothing, as an unlinked file's data
  // goes nowhere anyone reads.
  absl::Status Append(std::string_view data) override {
    MutexLock lock(&env_.mu_);
    auto it = env_.files_.find(key_);
    if (it != env_.files_.end()) it->second.append(data);
    return absl::OkStatus();
  }

 private:
  FakeEnv& env_;
  const std::string key_;
};

absl::StatusOr<std::unique_ptr<AppendFile>> FakeEnv::OpenForAppending(
    const std::filesystem::path& path, int mode) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  if (!dirs_.contains(Parent(key))) {
    return absl::NotFoundError(
        absl::StrCat("cannot open \"", key, "\": No such file or directory"));
  }
  if (dirs_.contains(key)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open \"", key, "\": Is a directory"));
  }
  if (files_.try_emplace(key).second) modes_[key] = mode;
  return std::make_unique<FakeAppendFile>(*this, key);
}

absl::Status FakeEnv::Rename(const std::filesystem::path& from,
                             const std::filesystem::path& to) {
  const std::string source = Key(from);
  const std::string target = Key(to);
  MutexLock lock(&mu_);
  auto it = files_.find(source);
  if (it == files_.end()) return NotFound("cannot rename", source);
  if (!dirs_.contains(Parent(target)))
    return NotFound("cannot rename to", target);
  std::string contents = std::move(it->second);
  files_.erase(it);
  files_[target] = std::move(contents);
  modes_[target] = modes_[source];
  modes_.erase(source);
  owners_.erase(target);
  if (auto owner = owners_.extract(source)) {
    owners_[target] = owner.mapped();
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> FakeEnv::Remove(const std::filesystem::path& path) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  modes_.erase(key);
  if (files_.erase(key) > 0) {
    owners_.erase(key);
    return true;
  }
  if (!dirs_.contains(key)) return false;
  const std::string prefix = key + "/";
  auto below = [&](const std::string& name) {
    return absl::StartsWith(name, prefix);
  };
  if (std::any_of(files_.begin(), files_.end(),
                  [&](const auto& file) { return below(file.first); }) ||
      std::any_of(dirs_.begin(), dirs_.end(), below)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove ", key, ": Directory not empty"));
  }
  dirs_.erase(key);
  owners_.erase(key);
  return true;
}

absl::StatusOr<FileInfo> FakeEnv::InfoOf(const std::filesystem::path& path,
                                         Links) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  auto owner = owners_.find(key);
  const uint32_t owned_by = owner == owners_.end() ? uid : owner->second;
  if (dirs_.contains(key)) {
    return FileInfo{
        .type = FileType::kDirectory, .mode = 0700, .owner = owned_by};
  }
  auto it = files_.find(key);
  if (it == files_.end()) return NotFound("cannot stat", key);
  return FileInfo{.type = FileType::kRegular,
                  .size = static_cast<int64_t>(it->second.size()),
                  .mode = modes_[key],
                  .owner = owned_by};
}

absl::StatusOr<std::vector<DirectoryEntry>> FakeEnv::ListDirectory(
    const std::filesystem::path& dir) {
  const std::string key = Key(dir);
  MutexLock lock(&mu_);
  if (!dirs_.contains(key)) return NotFound("cannot list", key);
  std::vector<DirectoryEntry> entries;
  auto add = [&](const std::string& name, FileType type, size_t size) {
    if (name != key && Parent(name) == key) {
      entries.push_back({.name = std::filesystem::path(name).filename(),
                         .type = type,
                         .size = static_cast<int64_t>(size)});
    }
  };
  for (const auto& [name, contents] : files_) {
    add(name, FileType::kRegular, contents.size());
  }
  for (const std::string& name : dirs_) add(name, FileType::kDirectory, 0);
  std::sort(entries.begin(), entries.end(),
            [](const DirectoryEntry& a, const DirectoryEntry& b) {
              return a.name < b.name;
            });
  return entries;
}

absl::Status FakeEnv::SetPermissions(const std::filesystem::path& path,
                                     int mode) {
  const std::string key = Key(path);
  MutexLock lock(&mu_);
  if (files_.contains(key)) {
    modes_[key] = mode;
    return absl::OkStatus();
  }
  if (dirs_.contains(key)) return absl::OkStatus();
  return NotFound("cannot change the mode of", key);
}

absl::Status FakeEnv::CreatePrivateDirectories(
    const std::filesystem::path& dir) {
  const std::string key = Key(dir);
  MutexLock lock(&mu_);
  std::filesystem::path built = "/";
  for (const std::filesystem::path& part : std::filesystem::path(key)) {
    built /= part;
    const std::string name = Key(built);
    if (files_.contains(name)) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot create directory ", name, ": Not a directory"));
    }
    dirs_.insert(name);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<DirectoryHandle>> FakeEnv::OpenDirectory(
    const std::filesystem::path& path) {
  return OpenFakeDirectory(*this, path);
}

void FakeEnv::SetOwner(const std::filesystem::path& path, uint32_t owner) {
  MutexLock lock(&mu_);
  owners_[Key(path)] = owner;
}

std::vector<std::string> FakeEnv::Files() const {
  MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, contents] : files_) names.push_back(name);
  return names;
}

uint64_t FakeEnv::RandomSeed() {
  uint64_t z = (seeds_drawn_.fetch_add(1) + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace hptune::testing

#include "tests/testing/fake_directory.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::testing {
namespace {

namespace fs = std::filesystem;

class FakeDirectoryHandle : public DirectoryHandle {
 public:
  FakeDirectoryHandle(Env& env, fs::path path)
      : env_(env), path_(std::move(path)) {}

  const fs::path& path() const override { return path_; }
  int descriptor() const override { return -1; }

  absl::StatusOr<FileInfo> Info() override {
    return env_.InfoOf(path_, Links::kNotFollowed);
  }

  absl::StatusOr<FileContents> ReadAt(std::string_view name,
                                      int64_t max_bytes) override {
    const fs::path file = path_ / name;
    HPTUNE_ASSIGN_OR_RETURN(FileInfo info, Regular(file));
    HPTUNE_ASSIGN_OR_RETURN(std::string text, env_.ReadFile(file));
    if (static_cast<int64_t>(text.size()) > max_bytes) {
      text.resize(static_cast<size_t>(max_bytes));
    }
    return FileContents{.text = std::move(text), .info = info};
  }

  absl::Status WriteAt(std::string_view name, std::string_view text) override {
    const fs::path file = path_ / name;
    HPTUNE_ASSIGN_OR_RETURN(FileInfo info, Regular(file));
    return env_.WriteFileAtomically(file, text, info.mode);
  }

  absl::Status CreateSubdirectory(std::string_view name, int) override {
    const fs::path dir = path_ / name;
    if (env_.Exists(dir)) {
      return absl::AlreadyExistsError(
          absl::StrCat("cannot create directory ", dir.string(), ": exists"));
    }
    HPTUNE_RETURN_IF_ERROR(Info().status());
    return env_.CreatePrivateDirectories(dir);
  }

  absl::Status RemoveSubdirectory(std::string_view name) override {
    const fs::path dir = path_ / name;
    HPTUNE_ASSIGN_OR_RETURN(FileInfo info,
                            env_.InfoOf(dir, Links::kNotFollowed));
    if (info.type != FileType::kDirectory) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot remove directory ", dir.string(), ": Not a directory"));
    }
    return env_.Remove(dir).status();
  }

  absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenSubdirectory(
      std::string_view name) override {
    return OpenFakeDirectory(env_, path_ / name);
  }

  absl::StatusOr<std::vector<DirectoryEntry>> List() override {
    return env_.ListDirectory(path_);
  }

 private:
  absl::StatusOr<FileInfo> Regular(const fs::path& file) {
    HPTUNE_ASSIGN_OR_RETURN(FileInfo info,
                            env_.InfoOf(file, Links::kNotFollowed));
    if (info.type != FileType::kRegular) {
      return absl::FailedPreconditionError(
          absl::StrCat("file ", file.string(), " is not a regular file"));
    }
    return info;
  }

  Env& env_;
  const fs::path path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<DirectoryHandle>> OpenFakeDirectory(
    Env& env, const fs::path& path) {
  HPTUNE_ASSIGN_OR_RETURN(FileInfo info, env.InfoOf(path, Links::kNotFollowed));
  if (info.type != FileType::kDirectory) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot open directory ", path.string(), ": Not a directory"));
  }
  return std::make_unique<FakeDirectoryHandle>(env, path);
}

}  // namespace hptune::testing

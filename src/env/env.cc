// Env's helpers over its virtual calls (include/hptune/env/env.h).
#include "hptune/env/env.h"

#include <algorithm>
#include <string>

#include "hptune/core/status.h"

namespace hptune {

absl::StatusOr<FileType> Env::TypeOf(const std::filesystem::path& path) {
  HPTUNE_ASSIGN_OR_RETURN(FileInfo info, InfoOf(path, Links::kNotFollowed));
  return info.type;
}

absl::StatusOr<std::filesystem::path> Env::Absolute(
    const std::filesystem::path& path) {
  if (path.is_absolute()) return path;
  HPTUNE_ASSIGN_OR_RETURN(std::filesystem::path dir, WorkingDirectory());
  return dir / path;
}

absl::StatusOr<FileChunk> Env::ReadFileChunk(const std::filesystem::path& path,
                                             int64_t offset, int64_t max_bytes,
                                             std::string_view what) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          OpenForReading(path, what));
  FileChunk chunk{.size = static_cast<int64_t>(file->size()), .offset = offset};
  if (offset >= chunk.size || max_bytes <= 0) return chunk;
  // A capped log's punched hole reads as zeros: no reader wants them.
  const auto [begin, end] = file->DataAt(static_cast<uint64_t>(offset));
  chunk.offset = static_cast<int64_t>(begin);
  const int64_t available = static_cast<int64_t>(end) - chunk.offset;
  if (available <= 0) return chunk;
  chunk.data.resize(static_cast<size_t>(std::min(max_bytes, available)));
  HPTUNE_ASSIGN_OR_RETURN(
      size_t n, file->ReadAt(begin, chunk.data.data(), chunk.data.size()));
  chunk.data.resize(n);
  return chunk;
}

}  // namespace hptune

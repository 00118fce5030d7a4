// Env's helpers over its virtual calls (include/hptune/env/env.h).
#include "hptune/env/env.h"

#include <algorithm>
#include <string>

#include "hptune/core/status.h"

namespace hptune {

absl::StatusOr<FileChunk> Env::ReadFileChunk(const std::filesystem::path& path,
                                             int64_t offset, int64_t max_bytes,
                                             std::string_view what) {
  HPTUNE_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                          OpenForReading(path, what));
  FileChunk chunk{.size = static_cast<int64_t>(file->size())};
  if (offset >= chunk.size || max_bytes <= 0) return chunk;
  chunk.data.resize(
      static_cast<size_t>(std::min(max_bytes, chunk.size - offset)));
  HPTUNE_ASSIGN_OR_RETURN(
      size_t n, file->ReadAt(static_cast<uint64_t>(offset), chunk.data.data(),
                             chunk.data.size()));
  chunk.data.resize(n);
  return chunk;
}

}  // namespace hptune

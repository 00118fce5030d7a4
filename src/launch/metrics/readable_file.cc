#include "src/launch/metrics/readable_file.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"

namespace hptune::launch {

absl::StatusOr<std::unique_ptr<RandomAccessFile>> OpenMetricsFile(
    Env& env, const std::filesystem::path& path) {
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> file =
      env.OpenForReading(path, "metrics file");
  if (absl::IsNotFound(file.status())) return nullptr;
  return file;
}

absl::Status ReadCompleteLines(
    RandomAccessFile& file, LineCursor& cursor,
    const std::function<void(uint64_t offset,
                             std::optional<std::string_view> line)>& on_line) {
  constexpr size_t kChunkBytes = 64 * 1024;
  // The current line's bytes so far (at most kMaxLineBytes + 1 of them);
  // cursor.offset stays at the line's start unless it is over-long.
  std::string line;
  uint64_t line_start = cursor.offset;
  bool overlong = cursor.in_overlong_line;
  std::vector<char> chunk(kChunkBytes);
  uint64_t pos = cursor.offset;
  // Stops at the size seen on opening, so a program writing fast cannot
  // keep this call reading.
  while (pos < file.size()) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(chunk.size(), file.size() - pos));
    HPTUNE_ASSIGN_OR_RETURN(size_t n, file.ReadAt(pos, chunk.data(), want));
    if (n == 0) break;  // Truncated since it was opened.
    std::string_view data(chunk.data(), n);
    while (!data.empty()) {
      const size_t newline = data.find('\n');
      std::string_view piece = data.substr(0, newline);
      if (!overlong) {
        line.append(piece.substr(0, kMaxLineBytes + 1 - line.size()));
        if (line.size() > kMaxLineBytes) {
          overlong = true;
          line.clear();
        }
      }
      if (newline == std::string_view::npos) {
        pos += data.size();
        if (overlong) cursor.offset = pos;
        break;
      }
      pos += newline + 1;
      data.remove_prefix(newline + 1);
      cursor.offset = pos;
      if (overlong) {
        on_line(line_start, std::nullopt);
      } else {
        std::string_view text = line;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        on_line(line_start, text);
      }
      line.clear();
      overlong = false;
      line_start = pos;
    }
  }
  cursor.in_overlong_line = overlong;
  return absl::OkStatus();
}

std::string LineExcerpt(std::string_view line) {
  return std::string(line.substr(0, 256));
}

}  // namespace hptune::launch

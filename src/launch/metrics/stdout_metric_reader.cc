// StdoutMetricReader (include/hptune/launch/metrics.h): tails a replica's
// log for Katib-style metric lines.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hptune/core/status.h"
#include "hptune/launch/metrics.h"
#include "src/launch/metrics/readable_file.h"

namespace hptune::launch {
namespace {

constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr size_t kChunkBytes = 64 * 1024;

}  // namespace

StdoutMetricReader::StdoutMetricReader(std::filesystem::path log_path,
                                       std::string metric)
    : path_(std::move(log_path)), metric_(std::move(metric)) {}

absl::StatusOr<std::vector<Measurement>> StdoutMetricReader::ReadNew() {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<ReadableFile> file,
                          ReadableFile::Open(path_));
  std::vector<Measurement> found;
  if (!file) return found;
  if (file->size() < offset_) {
    offset_ = 0;
    in_overlong_line_ = false;
  }
  // The current line's bytes so far (at most kMaxLineBytes + 1 of them) and
  // whether it is over the limit; offset_ stays at the line's start unless
  // it is.
  std::string line;
  bool overlong = in_overlong_line_;
  std::vector<char> chunk(kChunkBytes);
  uint64_t pos = offset_;
  // Stops at the size seen on opening, so a program writing fast cannot
  // keep this call reading.
  while (pos < file->size()) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(chunk.size(), file->size() - pos));
    HPTUNE_ASSIGN_OR_RETURN(size_t n, file->ReadAt(pos, chunk.data(), want));
    if (n == 0) break;
    std::string_view data(chunk.data(), n);
    while (!data.empty()) {
      size_t newline = data.find('\n');
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
        // An over-long line's bytes are consumed as they come.
        if (overlong) offset_ = pos;
        break;
      }
      pos += newline + 1;
      data.remove_prefix(newline + 1);
      offset_ = pos;
      if (!overlong) {
        std::string_view text = line;
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (std::optional<Measurement> m =
                ParseMetricLine(text, metric_, lines_with_metric_ + 1)) {
          ++lines_with_metric_;
          found.push_back(std::move(*m));
        }
      }
      line.clear();
      overlong = false;
    }
  }
  in_overlong_line_ = overlong;
  return found;
}

}  // namespace hptune::launch

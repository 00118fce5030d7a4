#include "src/dashboard/http_encoding.h"

#include <zlib.h>

#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace hptune::dashboard {

bool AcceptsGzip(std::string_view accept_encoding) {
  for (absl::string_view item : absl::StrSplit(
           absl::string_view(accept_encoding.data(), accept_encoding.size()),
           ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, ';');
    const std::string coding =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[0]));
    if (coding != "gzip" && coding != "*") continue;
    bool refused = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      std::string param =
          absl::AsciiStrToLower(absl::StripAsciiWhitespace(parts[i]));
      // q=0, q=0.0, q=0.000: the client refuses this coding.
      if (param.starts_with("q=") &&
          param.find_first_not_of("0.", 2) == std::string::npos) {
        refused = true;
      }
    }
    if (!refused) return true;
  }
  return false;
}

std::string Gzip(std::string_view data) {
  z_stream stream{};
  // windowBits 15 + 16: a gzip header and trailer rather than zlib's.
  if (deflateInit2(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    std::abort();  // Only on out-of-memory or bad arguments.
  }
  std::string out(deflateBound(&stream, data.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) std::abort();  // deflateBound guarantees room.
  return out;
}

}  // namespace hptune::dashboard

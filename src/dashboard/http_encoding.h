// Response compression for the dashboard's HTTP server.
//
// cpp-httplib compresses a body itself, with brotli at its highest quality
// when the browser accepts it: about 1.4 s for the 900 KiB of points of a
// 100,000-trial study on a 2-core machine, longer than the page takes to
// draw. The dashboard compresses instead with gzip at a fast level (a few
// milliseconds for the same body) and hands httplib a body it leaves alone.
// Used by dashboard_server.cc. Pure functions; thread-safe.
#ifndef HPTUNE_SRC_DASHBOARD_HTTP_ENCODING_H_
#define HPTUNE_SRC_DASHBOARD_HTTP_ENCODING_H_

#include <string>
#include <string_view>

namespace hptune::dashboard {

// Bodies shorter than this go uncompressed: the gzip header and a
// round of deflate buy nothing on them.
inline constexpr size_t kMinCompressedBody = 1400;

// True when an Accept-Encoding header value accepts gzip: the token "gzip"
// (or "*") without "q=0" (RFC 9110, section 12.5.3).
bool AcceptsGzip(std::string_view accept_encoding);

// `data` as a gzip member (RFC 1952), deflated at zlib level 1: its speed
// matters more than the last percent of size for JSON sent once.
std::string Gzip(std::string_view data);

}  // namespace hptune::dashboard

#endif  // HPTUNE_SRC_DASHBOARD_HTTP_ENCODING_H_

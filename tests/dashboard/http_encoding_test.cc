#include "src/dashboard/http_encoding.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace hptune::dashboard {
namespace {

std::string Gunzip(const std::string& gz) {
  z_stream stream{};
  EXPECT_EQ(inflateInit2(&stream, 15 + 16), Z_OK);
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  stream.avail_in = static_cast<uInt>(gz.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return out;
}

TEST(AcceptsGzipTest, ReadsTheHeaderAsBrowsersAndToolsSendIt) {
  EXPECT_TRUE(AcceptsGzip("gzip, deflate, br"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_TRUE(AcceptsGzip("gzip;q=0.001"));
  EXPECT_FALSE(AcceptsGzip(""));
  EXPECT_FALSE(AcceptsGzip("br"));
  EXPECT_FALSE(AcceptsGzip("identity"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("gzip; q=0.000, br"));
  EXPECT_FALSE(AcceptsGzip("x-gzip-not"));
}

TEST(GzipTest, RoundTripsAndShrinksJson) {
  std::string json = "[";
  for (int i = 0; i < 5000; ++i) {
    json += "{\"trial\":" + std::to_string(i) + ",\"value\":0.5},";
  }
  json += "{}]";
  const std::string gz = Gzip(json);
  EXPECT_LT(gz.size(), json.size() / 4);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // The gzip magic.
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  EXPECT_EQ(Gunzip(gz), json);
  EXPECT_EQ(Gunzip(Gzip("")), "");
}

}  // namespace
}  // namespace hptune::dashboard

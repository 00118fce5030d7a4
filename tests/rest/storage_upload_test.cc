// Cloud Storage's upload on the REST gateway, without HTTP: the hashes
// gcloud checks, a multipart body as gcloud writes it, and the refusals.
#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/rest/object_hashes.h"
#include "src/rest/storage_routes.h"

namespace hptune::rest {
namespace {

using ::testing::HasSubstr;

TEST(ObjectHashesTest, KnownValues) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);  // RFC 3720's check value.
  EXPECT_EQ(Crc32cBase64("123456789"), "4waSgw==");
  EXPECT_EQ(Crc32cBase64("hello world"), "yZRlqg==");
  EXPECT_EQ(Md5Base64("hello world"), "XrY7u+Ae7tCTyyK7j1rNww==");
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
}

// What the storage options write to, in memory.
struct Written {
  std::map<std::string, std::string> files;
  StorageOptions Options(std::string root) {
    return {.gcs_root = std::move(root),
            .authorize =
                [](std::string_view authorization) {
                  return authorization == "Bearer t"
                             ? absl::OkStatus()
                             : absl::UnauthenticatedError("no token");
                },
            .write = [this](const std::string& path,
                            std::string_view data) -> absl::StatusOr<int64_t> {
              files[path] = std::string(data);
              return 1700000000000000;
            }};
  }
};

// apitools' multipart/related body: LF line ends, a JSON part, the bytes;
// gcloud 528 quotes the boundary with single quotes.
constexpr char kBoundary[] = "===============0123456789==";
std::string GcloudBody(const std::string& data) {
  return std::string("--") + kBoundary +
         "\nContent-Type: application/json\nMIME-Version: 1.0\n\n"
         "{\"size\": \"11\"}\n--" +
         kBoundary +
         "\nContent-Type: application/x-tar\nMIME-Version: 1.0\n"
         "Content-Transfer-Encoding: binary\n\n" +
         data + "\n--" + kBoundary + "--";
}

UploadRequest Upload(std::string_view body) {
  return {.bucket = "bkt",
          .upload_type = "multipart",
          .name = "j1/ab/trainer-0.0.0.tar.gz",
          .content_type =
              std::string("multipart/related; boundary='") + kBoundary + "'",
          .authorization = "Bearer t",
          .body = body};
}

TEST(StorageUploadTest, AMultipartUploadIsWrittenUnderTheRootWithItsHashes) {
  Written written;
  const std::string body = GcloudBody("hello world");
  RestReply reply = UploadObject(written.Options("/g"), Upload(body));
  ASSERT_EQ(reply.http_status, 200) << reply.json;
  EXPECT_EQ(written.files["/g/bkt/j1/ab/trainer-0.0.0.tar.gz"], "hello world");
  nlohmann::json object = nlohmann::json::parse(reply.json);
  EXPECT_EQ(object["bucket"], "bkt");
  EXPECT_EQ(object["name"], "j1/ab/trainer-0.0.0.tar.gz");
  EXPECT_EQ(object["size"], "11");
  EXPECT_EQ(object["md5Hash"], "XrY7u+Ae7tCTyyK7j1rNww==");
  EXPECT_EQ(object["crc32c"], "yZRlqg==");
  EXPECT_EQ(object["generation"], "1700000000000000");
}

TEST(StorageUploadTest, CrlfPartsAndAMediaUploadKeepTheBytesExactly) {
  const std::string crlf = std::string("--b\r\nContent-Type: a/json\r\n\r\n") +
                           "{\"name\": \"x/y.bin\"}\r\n--b\r\n\r\n" +
                           "a\nb\r\n\r\n--b--\r\n";
  auto split = SplitMultipartRelated("multipart/related; boundary=b", crlf);
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(split->data, "a\nb\r\n");
  Written written;
  UploadRequest request = Upload(crlf);
  request.name = "";
  request.content_type = "multipart/related; boundary=b";
  EXPECT_EQ(UploadObject(written.Options("/g"), request).http_status, 200);
  EXPECT_EQ(written.files["/g/bkt/x/y.bin"], "a\nb\r\n");
  request.upload_type = "media";
  request.name = "m.bin";
  request.body = "raw";
  EXPECT_EQ(UploadObject(written.Options("/g"), request).http_status, 200);
  EXPECT_EQ(written.files["/g/bkt/m.bin"], "raw");
}

TEST(StorageUploadTest, RefusalsNameWhatIsWrong) {
  Written written;
  const std::string body = GcloudBody("hello world");
  // No root: the flag that gives one.
  RestReply reply = UploadObject(written.Options(""), Upload(body));
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json, HasSubstr("--gcs-root DIR"));
  // No token, or another.
  UploadRequest request = Upload(body);
  request.authorization = "";
  EXPECT_EQ(UploadObject(written.Options("/g"), request).http_status, 401);
  // A name that would leave its bucket.
  request = Upload(body);
  request.name = "../../etc/passwd";
  reply = UploadObject(written.Options("/g"), request);
  EXPECT_EQ(reply.http_status, 400);
  EXPECT_THAT(reply.json, HasSubstr("\\\"..\\\" segment"));
  // A bad bucket.
  request = Upload(body);
  request.bucket = "B";
  EXPECT_THAT(UploadObject(written.Options("/g"), request).json,
              HasSubstr("a bucket name must be 3 to 63 characters"));
  // Past the size limit: 413 naming it.
  StorageOptions small = written.Options("/g");
  small.max_object_bytes = 4;
  reply = UploadObject(small, Upload(body));
  EXPECT_EQ(reply.http_status, 413);
  EXPECT_THAT(reply.json, HasSubstr("got 11 bytes"));
  // A resumable upload is not taken.
  request = Upload(body);
  request.upload_type = "resumable";
  EXPECT_EQ(UploadObject(written.Options("/g"), request).http_status, 501);
  EXPECT_TRUE(written.files.empty());
}

}  // namespace
}  // namespace hptune::rest

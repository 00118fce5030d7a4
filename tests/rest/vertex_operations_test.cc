// The Operation a Vertex delete answers and its GET: the JSON Google's
// clients read (name, done, response, metadata), and the IDs that name no
// operation, refused before any call.
#include "src/rest/vertex_operations.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace hptune::rest {
namespace {

using ::testing::HasSubstr;

const VertexPlace kPlace = {.project = "p1", .location = "us-central1"};

TEST(VertexOperationsTest, ADeleteIsNamedInItsLocationByItsJob) {
  EXPECT_EQ(DeleteOperationName(kPlace, "hpt_17"),
            "projects/p1/locations/us-central1/operations/delete-hpt_17");
}

TEST(VertexOperationsTest, ADeleteIsADoneOperationWithAnEmptyResponse) {
  const nlohmann::json op = nlohmann::json::parse(DeleteOperationJson(
      "projects/p1/locations/us-central1/operations/delete-j",
      FromUnixMicros(1'800'000'000'500'000)));
  EXPECT_EQ(op["name"],
            "projects/p1/locations/us-central1/operations/delete-j");
  EXPECT_EQ(op["done"], true);
  EXPECT_FALSE(op.contains("error"));
  EXPECT_EQ(
      op["response"],
      nlohmann::json({{"@type", "type.googleapis.com/google.protobuf.Empty"}}));
  EXPECT_EQ(op["metadata"]["@type"],
            "type.googleapis.com/google.cloud.aiplatform.v1."
            "DeleteOperationMetadata");
  EXPECT_EQ(op["metadata"]["genericMetadata"]["createTime"],
            "2027-01-15T08:00:00.500000Z");
  EXPECT_EQ(op["metadata"]["genericMetadata"]["updateTime"],
            op["metadata"]["genericMetadata"]["createTime"]);

  // Polled later, when it is no longer known: no times.
  const nlohmann::json polled =
      nlohmann::json::parse(DeleteOperationJson("n", std::nullopt));
  EXPECT_EQ(polled["done"], true);
  EXPECT_EQ(polled["metadata"]["genericMetadata"], nlohmann::json::object());
}

// No channel is needed: these never reach the service.
TEST(VertexOperationsTest, AnIdThatNamesNoDeleteIsNotFound) {
  for (const char* id : {"123", "delete-", "cancel-j"}) {
    SCOPED_TRACE(id);
    const RestReply reply = GetVertexOperation({}, kPlace, id);
    EXPECT_EQ(reply.http_status, 404);
    const nlohmann::json error = nlohmann::json::parse(reply.json)["error"];
    EXPECT_EQ(error["status"], "NOT_FOUND");
    EXPECT_THAT(error["message"].get<std::string>(),
                HasSubstr(std::string("operations/") + id));
  }
}

}  // namespace
}  // namespace hptune::rest

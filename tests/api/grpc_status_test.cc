#include "src/api/grpc_status.h"

#include <gtest/gtest.h>

#include <string>

namespace hptune::api {
namespace {

TEST(ToGrpcStatusTest, KeepsCodeAndMessage) {
  struct Case {
    absl::Status in;
    grpc::StatusCode code;
  };
  const Case cases[] = {
      {absl::InvalidArgumentError("a"), grpc::StatusCode::INVALID_ARGUMENT},
      {absl::NotFoundError("b"), grpc::StatusCode::NOT_FOUND},
      {absl::AlreadyExistsError("c"), grpc::StatusCode::ALREADY_EXISTS},
      {absl::FailedPreconditionError("d"),
       grpc::StatusCode::FAILED_PRECONDITION},
      {absl::AbortedError("e"), grpc::StatusCode::ABORTED},
      {absl::UnavailableError("f"), grpc::StatusCode::UNAVAILABLE},
      {absl::ResourceExhaustedError("g"), grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::UnauthenticatedError("h"), grpc::StatusCode::UNAUTHENTICATED},
      {absl::PermissionDeniedError("i"), grpc::StatusCode::PERMISSION_DENIED},
      {absl::InternalError("j"), grpc::StatusCode::INTERNAL},
      {absl::DeadlineExceededError("k"), grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::CancelledError("l"), grpc::StatusCode::CANCELLED},
  };
  for (const Case& c : cases) {
    grpc::Status out = ToGrpcStatus(c.in);
    EXPECT_EQ(out.error_code(), c.code) << c.in;
    EXPECT_EQ(out.error_message(), std::string(c.in.message()));
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST(ToGrpcStatusTest, EmptyMessageNamesTheCode) {
  grpc::Status out =
      ToGrpcStatus(absl::Status(absl::StatusCode::kNotFound, ""));
  EXPECT_EQ(out.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(out.error_message(), "error NOT_FOUND");
}

// The message travels in a trailer that clients cap at 8 KiB: a longer
// one is cut at kMaxMessageBytes, saying how much was left out.
TEST(ToGrpcStatusTest, ALongMessageIsCutSayingHowMuch) {
  const std::string exact(kMaxMessageBytes, 'a');
  EXPECT_EQ(ToGrpcStatus(absl::InvalidArgumentError(exact)).error_message(),
            exact);
  grpc::Status out = ToGrpcStatus(
      absl::InvalidArgumentError(std::string(kMaxMessageBytes + 10, 'b')));
  EXPECT_EQ(out.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(out.error_message(),
            std::string(kMaxMessageBytes, 'b') + "... (10 more bytes)");
}

TEST(GrpcCodeTest, EveryCodeMapsToTheSameNumberAndBack) {
  for (int raw = 0; raw <= 16; ++raw) {
    const auto code = static_cast<absl::StatusCode>(raw);
    const grpc::StatusCode wire = ToGrpcCode(code);
    EXPECT_EQ(static_cast<int>(wire), raw);
    EXPECT_EQ(FromGrpcCode(wire), code);
  }
}

TEST(GrpcCodeTest, CodesOutsideTheSharedRangeAreNotPassedOn) {
  EXPECT_EQ(ToGrpcCode(static_cast<absl::StatusCode>(42)),
            grpc::StatusCode::INTERNAL);
  EXPECT_EQ(FromGrpcCode(grpc::StatusCode::DO_NOT_USE),
            absl::StatusCode::kUnknown);
}

}  // namespace
}  // namespace hptune::api

// The filters `gcloud ai-platform jobs stream-logs` sends to entries.list.
#include "src/rest/log_filter.h"

#include <gtest/gtest.h>

namespace hptune::rest {
namespace {

constexpr char kBase[] =
    R"((resource.type="ml_job" OR resource.type="cloudml_job") AND )"
    R"(resource.labels.job_id="j1")";

absl::Time At(const char* text) {
  absl::Time time;
  std::string error;
  EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, text, &time, &error));
  return time;
}

TEST(LogFilterTest, ReadsTheJobTaskAndWindowOfAPoll) {
  absl::StatusOr<LogFilter> filter =
      ParseLogFilter(std::string(kBase) +
                     R"( AND (resource.labels.task_name="worker-replica-1" OR )"
                     R"(labels.task_name="worker-replica-1") AND )"
                     R"(timestamp>="2026-11-29T10:00:00.000000000Z" AND )"
                     R"(timestamp<"2026-11-29T10:05:00.000000+00:00")");
  ASSERT_TRUE(filter.ok()) << filter.status();
  EXPECT_EQ(filter->job_id, "j1");
  EXPECT_EQ(filter->task_name, "worker-replica-1");
  EXPECT_TRUE(filter->Admits(At("2026-11-29T10:00:00Z"), "a"));
  EXPECT_FALSE(filter->Admits(At("2026-11-29T09:59:59Z"), "a"));
  EXPECT_FALSE(filter->Admits(At("2026-11-29T10:05:00Z"), "a"));
}

TEST(LogFilterTest, AfterEntriesOfOneTimestampOnlyGreaterInsertIdsPass) {
  absl::StatusOr<LogFilter> filter =
      ParseLogFilter(std::string(kBase) +
                     R"( AND ((timestamp="2026-11-29T10:00:00.000001000Z" AND )"
                     R"(insertId>"j1-1-master-0-000000000007") OR )"
                     R"(timestamp>"2026-11-29T10:00:00.000001000Z"))");
  ASSERT_TRUE(filter.ok()) << filter.status();
  const absl::Time t = At("2026-11-29T10:00:00.000001Z");
  EXPECT_FALSE(filter->Admits(t, "j1-1-master-0-000000000007"));
  EXPECT_TRUE(filter->Admits(t, "j1-1-master-0-000000000009"));
  EXPECT_TRUE(filter->Admits(t + absl::Microseconds(1), "a"));
  EXPECT_EQ(LogTimestamp(t), "2026-11-29T10:00:00.000001000Z");
}

TEST(LogFilterTest, NoJobOrABadTimeIsRefused) {
  EXPECT_EQ(ParseLogFilter(R"(resource.type="ml_job")").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseLogFilter(std::string(kBase) + R"( AND timestamp<"soon")")
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hptune::rest

// gs:// URIs on a local root: names checked, paths mapped, and a job
// naming a bucket refused where no root is given.
#include "hptune/core/bucket_paths.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(BucketPathsTest, AUriMapsUnderTheRoot) {
  EXPECT_EQ(*ResolveGcsUri("/srv/gcs", "gs://bkt/out/", "f"),
            "/srv/gcs/bkt/out/");
  EXPECT_EQ(*ResolveGcsUri("/srv/gcs/", "gs://bkt", "f"), "/srv/gcs/bkt");
  EXPECT_EQ(
      *ResolveGcsUri("/srv/gcs", "gs://my-bkt.1/j/ab/t-0.0.0.tar.gz", "f"),
      "/srv/gcs/my-bkt.1/j/ab/t-0.0.0.tar.gz");
  // Anything else is left as it is.
  EXPECT_EQ(*ResolveGcsUri("/srv/gcs", "/data/out", "f"), "/data/out");
  EXPECT_EQ(*ResolveGcsUri("", "rel/out", "f"), "rel/out");
}

TEST(BucketPathsTest, ANameThatWouldLeaveTheRootIsRefused) {
  for (const char* uri :
       {"gs://bkt/../etc", "gs://bkt/a/../../x", "gs://bkt/./a",
        "gs://bkt//etc", "gs://bkt/a/..", "gs://../etc", "gs://bkt/\n"}) {
    absl::StatusOr<std::string> path =
        ResolveGcsUri("/srv/gcs", uri, "trainingInput.jobDir");
    EXPECT_EQ(path.status().code(), absl::StatusCode::kInvalidArgument) << uri;
    EXPECT_THAT(path.status().message(), HasSubstr("trainingInput.jobDir: "))
        << uri;
  }
  EXPECT_EQ(
      ResolveGcsUri("/srv/gcs", "gs://bkt/../etc", "f").status().message(),
      "f: an object name must not hold a \".\" or \"..\" segment (it "
      "would leave its bucket), got \"gs://bkt/../etc\"");
}

TEST(BucketPathsTest, BucketNamesFollowCloudStorageRules) {
  EXPECT_EQ(BucketNameProblem("bkt"), "");
  EXPECT_EQ(BucketNameProblem("a_b-c.d9"), "");
  EXPECT_EQ(BucketNameProblem("ab"),
            "a bucket name must be 3 to 63 characters");
  EXPECT_EQ(BucketNameProblem(std::string(64, 'a')),
            "a bucket name must be 3 to 63 characters");
  EXPECT_THAT(BucketNameProblem("Bkt"), HasSubstr("only lowercase"));
  EXPECT_THAT(BucketNameProblem("b/t"), HasSubstr("only lowercase"));
  EXPECT_THAT(BucketNameProblem(".bkt"), HasSubstr("start and end"));
  EXPECT_THAT(BucketNameProblem("bkt-"), HasSubstr("start and end"));
  EXPECT_THAT(ValidateGcsUri("gs://UPx/x", "trainingInput.jobDir"),
              ElementsAre(FieldError{
                  "trainingInput.jobDir",
                  "a bucket name takes only lowercase letters, digits, '.', "
                  "'_' and '-', got \"gs://UPx/x\""}));
  EXPECT_TRUE(ValidateGcsUri("/not/a/uri/..", "f").empty());
}

TEST(BucketPathsTest, WithoutARootAJobNamingABucketIsRefusedNamingTheFlag) {
  JobSpec job;
  job.job_dir = "gs://bkt/out";
  absl::StatusOr<JobSpec> resolved = ResolveJobBuckets(job, "");
  EXPECT_EQ(resolved.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(resolved.status().message(),
            "trainingInput.jobDir: \"gs://bkt/out\" names a Cloud Storage "
            "bucket, and no local root for buckets is given: start the "
            "runner with --gcs-root DIR (gs://B/P is then DIR/B/P)");
  // A job with no bucket needs no root.
  job.job_dir = "/data/out";
  EXPECT_TRUE(ResolveJobBuckets(job, "").ok());
}

TEST(BucketPathsTest, EveryBucketFieldOfAJobIsResolvedAndTheRestKept) {
  JobSpec job;
  job.job_dir = "gs://bkt/out";
  job.base_output_directory = "gs://bkt/base";
  job.module_name = "trainer.task";
  job.package_uris = {"gs://bkt/j/t.tar.gz", "/local/u.whl"};
  job.worker.container.package_uris = {"gs://bkt/w.tar.gz"};
  absl::StatusOr<JobSpec> resolved = ResolveJobBuckets(job, "/g");
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->job_dir, "/g/bkt/out");
  EXPECT_EQ(resolved->base_output_directory, "/g/bkt/base");
  EXPECT_THAT(resolved->package_uris,
              ElementsAre("/g/bkt/j/t.tar.gz", "/local/u.whl"));
  EXPECT_THAT(resolved->worker.container.package_uris,
              ElementsAre("/g/bkt/w.tar.gz"));
  EXPECT_EQ(resolved->module_name, "trainer.task");
  // The error names the pool's field.
  job.evaluator.container.package_uris = {"gs://bkt/../x"};
  EXPECT_THAT(ResolveJobBuckets(job, "/g").status().message(),
              HasSubstr("trainingInput.evaluatorConfig.packageUris[0]: "));
}

}  // namespace
}  // namespace hptune

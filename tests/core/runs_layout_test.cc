#include "hptune/core/runs_layout.h"

#include <gtest/gtest.h>

#include <string>

namespace hptune {
namespace {

TEST(RunsLayoutTest, JobsTrialsAndReplicaFilesHaveOnePlace) {
  const RunsLayout layout("/srv/runs");
  EXPECT_EQ(layout.JobDir("mnist_1"), "/srv/runs/mnist_1");
  EXPECT_EQ(layout.TrialDir("mnist_1", 12), "/srv/runs/mnist_1/12");
  EXPECT_EQ(layout.ReplicaLog("mnist_1", 12, "worker-3"),
            "/srv/runs/mnist_1/12/worker-3.log");
  EXPECT_EQ(ReplicaMetricsIn("/t", "chief-0"), "/t/chief-0.metrics");
  EXPECT_EQ(DrainedAttemptIn("/t"), "/t/attempt.drained");
}

TEST(RunsLayoutTest, OnlyReplicaNamesReachAPath) {
  for (const char* name :
       {"master-0", "chief-0", "worker-12", "ps-1", "evaluator-0"}) {
    EXPECT_TRUE(IsReplicaName(name)) << name;
  }
  for (const char* name :
       {"", "master", "master-", "-0", "trainer-0", "master-x", "master-0/..",
        "../master-0", "worker-1 ", "Worker-1", "master-0.log"}) {
    EXPECT_FALSE(IsReplicaName(name)) << name;
  }
  EXPECT_FALSE(IsReplicaName("worker-" + std::string(60, '1')));
}

TEST(RunsLayoutTest, ReplicaOfLogNamesOnlyReplicaLogs) {
  EXPECT_EQ(ReplicaOfLog("worker-1.log"), "worker-1");
  EXPECT_EQ(ReplicaOfLog("worker-1.log.1"), "");  // Moved aside.
  EXPECT_EQ(ReplicaOfLog("worker-1.metrics"), "");
  EXPECT_EQ(ReplicaOfLog("notes.log"), "");
}

}  // namespace
}  // namespace hptune

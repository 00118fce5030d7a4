// CopyStore (store_copy.h) on real stores: a SQLite file with something in
// every table copied to another file, to a PostgreSQL database of the
// test's server and back, compared record by record through the Store API,
// new writes numbered after the copied ones; and what it refuses: a target
// that holds anything, a source a server holds, memory:, a missing file,
// and never a password in its messages.
#include "hptune/store/store_copy.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/status.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/expected.h"
#include "tests/testing/postgres_server.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::absl::StatusCode;
using ::hptune::store::test::MakeMeasurement;
using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::MakeTrial;
using ::hptune::store::test::TempDir;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::Gt;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kOwner = 1000;

// Everything the Store API shows of a store.
struct Contents {
  std::vector<StudyRecord> studies;
  std::vector<std::vector<Trial>> trials;         // Per study.
  std::vector<std::string> designer_states;       // Per study.
  std::vector<std::vector<std::string>> notes;    // Per study: 0, then trials.
  std::vector<std::vector<NoteEdit>> note_edits;  // The same notes'.
  std::vector<JobRecord> jobs;
  std::vector<Event> events;
  std::vector<UserUsage> usage;  // Of no owner and kOwner.
};

Contents Read(Store& store) {
  Contents c;
  c.studies = store.ListStudies().value();
  for (const StudyRecord& study : c.studies) {
    c.trials.push_back(store.ListTrials(study.name).value());
    c.designer_states.push_back(store.GetDesignerState(study.name).value());
    c.notes.emplace_back();
    for (int64_t trial = 0; trial <= int64_t(c.trials.back().size()); ++trial) {
      Note note = store.GetNote(study.name, trial).value();
      c.notes.back().push_back(note.text);
      c.note_edits.push_back(note.edits);
    }
  }
  c.jobs = store.ListJobs().value();
  c.events = store.ListEvents(0, 100000).value();
  for (int64_t uid : {int64_t{-1}, kOwner}) {
    c.usage.push_back(store.GetUserUsage(uid).value());
  }
  return c;
}

void ExpectSame(const Contents& a, const Contents& b) {
  EXPECT_EQ(a.studies, b.studies);
  EXPECT_EQ(a.trials, b.trials);
  EXPECT_EQ(a.designer_states, b.designer_states);
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.note_edits, b.note_edits);
  EXPECT_EQ(a.jobs, b.jobs);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.usage, b.usage);
}

// Trial `number` of `study` moved from REQUESTED through ACTIVE to `to`,
// one state change a call, as the engine makes them.
void Finish(Store& store, Clock& clock, const std::string& study,
            int64_t number, TrialState to) {
  for (TrialState next : {TrialState::kActive, to}) {
    ASSERT_OK(store.UpdateTrial(study, number, [&](Trial& t) {
      if (t.state == next) return absl::OkStatus();
      if (next == TrialState::kSucceeded) {
        t.final_measurement = MakeMeasurement(100, 0.9);
      }
      return t.TransitionTo(next, clock.Now());
    }));
  }
}

// Something in every table: studies with and without an owner, one deleted
// (a gap in the ids), trials in every state, measurements of two attempts,
// a warm start, designer state of every byte, notes and their edits, jobs
// with labels and an owner, replica events.
void Fill(Store& store, FakeClock& clock) {
  StudyRecord alpha = MakeStudy("alpha");
  alpha.owner_uid = kOwner;
  alpha.seed = 0xfedcba9876543210;  // Past int64's range: stored as its bits.
  ASSERT_OK(store.CreateStudy(alpha));
  ASSERT_OK(store.CreateStudy(MakeStudy("gone")));
  ASSERT_OK(store.CreateStudy(MakeStudy("beta")));
  ASSERT_OK(store.DeleteStudy("gone"));
  std::string designer_state;
  for (int byte = 0; byte < 256; ++byte) designer_state.push_back(char(byte));
  ASSERT_OK(store.AddTrials("alpha", std::vector<Trial>(7, MakeTrial(0.01)),
                            designer_state));
  const TrialState states[] = {TrialState::kActive,    TrialState::kStopping,
                               TrialState::kSucceeded, TrialState::kInfeasible,
                               TrialState::kFailed,    TrialState::kCancelled};
  for (int i = 0; i < 6; ++i) {
    clock.Advance(std::chrono::microseconds(1234567));
    Finish(store, clock, "alpha", i + 1, states[i]);
  }
  ASSERT_OK(store.UpdateTrial("alpha", 1, [&](Trial& t) {
    t.client_id = "client-a";
    t.lease_seconds = 60;
    t.heartbeat_time = clock.Now();
    t.attempt = 2;
    return absl::OkStatus();
  }));
  for (int step = 1; step <= 3; ++step) {
    Measurement m = MakeMeasurement(step, 0.1 * step);
    m.attempt = step < 3 ? 1 : 2;
    ASSERT_OK(store.AddMeasurement("alpha", 1, m));
  }
  Trial warm = MakeTrial(0.2);
  warm.state = TrialState::kSucceeded;
  warm.final_measurement = MakeMeasurement(5, 0.95);
  ASSERT_OK(store.AddTrials("beta", {warm}, std::nullopt));
  ASSERT_OK(store.SetNote("alpha", 0, "# study note",
                          {.peer = "127.0.0.1:1", .client = "dashboard"}));
  ASSERT_OK(store.SetNote("alpha", 3, "first", {.peer = "p", .client = "c"}));
  clock.Advance(std::chrono::seconds(1));
  ASSERT_OK(store.SetNote("alpha", 3, "second", {.peer = "p", .client = "c"}));
  JobRecord job;
  job.job_id = "job_a";
  job.study_name = "alpha";
  job.training_input_json = R"({"scaleTier":"BASIC"})";
  job.labels = {{"team", "vision"}};
  job.owner = {.uid = kOwner, .gid = kOwner};
  ASSERT_OK(store.CreateJob(job));
  for (JobState next : {JobState::kPreparing, JobState::kRunning}) {
    ASSERT_OK(store.UpdateJob("job_a", [&](JobRecord& j) {
      return j.TransitionTo(next, clock.Now());
    }));
  }
  ASSERT_OK(store.RecordReplicaEvent("job_a", 1, "worker-1 started"));
  job.job_id = "job_b";
  ASSERT_OK(store.CreateJob(job));
}

// New writes on `copy` come after what was copied from `before`.
void ExpectWritesContinue(Store& copy, Clock& clock, const Contents& before) {
  ASSERT_OK(copy.CreateStudy(MakeStudy("after")));
  EXPECT_EQ(copy.ListStudies().value().back().name, "after");
  const std::vector<Event> events = copy.ListEvents(0, 100000).value();
  ASSERT_EQ(events.size(), before.events.size() + 1);
  EXPECT_THAT(events.back().id, Gt(before.events.back().id));
  auto added = copy.AddTrials("alpha", {MakeTrial(0.3)}, std::nullopt);
  ASSERT_OK(added.status());
  EXPECT_EQ(added->front().number, 8);
  JobRecord job = before.jobs.front();
  job.job_id = "job_c";
  job.state = JobState::kQueued;
  job.start_time.reset();
  ASSERT_OK(copy.CreateJob(job));
  EXPECT_EQ(copy.ListJobs().value().back().job_id, "job_c");
  ASSERT_OK(copy.SetNote("alpha", 3, "third", {.peer = "p", .client = "c"}));
  Note note = copy.GetNote("alpha", 3).value();
  ASSERT_EQ(note.edits.size(), 3u);
  EXPECT_EQ(note.edits.back().time, clock.Now());
}

std::vector<CopiedTable> Copy(const std::string& from, const std::string& to,
                              Clock& clock) {
  absl::StatusOr<std::vector<CopiedTable>> copied =
      CopyStore(from, to, clock, {.env = &DefaultEnv()});
  EXPECT_OK(copied.status());
  return copied.ok() ? *copied : std::vector<CopiedTable>{};
}

class StoreCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenStore(Source(), clock_);
    ASSERT_OK(store.status());
    Fill(**store, clock_);
    before_ = Read(**store);
  }

  std::string Source() const { return "sqlite:" + dir_.File("source.db"); }
  // A database of the test's PostgreSQL server, or a skip.
  std::string PostgresUrl() {
    absl::StatusOr<testing::PostgresServer*> server =
        testing::PostgresServer::Shared();
    if (!server.ok()) return "";
    absl::StatusOr<std::string> url = (*server)->NewDatabase();
    return url.ok() ? *url : "";
  }
  void ExpectCopyOf(const std::string& url) {
    auto copy = OpenStore(url, clock_);
    ASSERT_OK(copy.status());
    ExpectSame(Read(**copy), before_);
    ExpectWritesContinue(**copy, clock_, before_);
  }

  TempDir dir_;
  FakeClock clock_;
  Contents before_;
};

TEST_F(StoreCopyTest, SqliteToSqliteCopiesEveryRecordExactly) {
  const std::string target = "sqlite:" + dir_.File("copy.db");
  const std::vector<CopiedTable> copied = Copy(Source(), target, clock_);
  EXPECT_THAT(copied, Contains(CopiedTable{"trials", 8}));
  EXPECT_THAT(copied, Contains(CopiedTable{"measurements", 3}));
  EXPECT_THAT(copied, Contains(CopiedTable{"note_edits", 3}));
  ExpectCopyOf(target);
}

TEST_F(StoreCopyTest, SqliteToPostgresAndBackCopiesEveryRecordExactly) {
  const std::string postgres = PostgresUrl();
  HPTUNE_SKIP_UNLESS_AVAILABLE(!postgres.empty(), "postgresql",
                               "no PostgreSQL server");
  Copy(Source(), postgres, clock_);
  const std::string back = "sqlite:" + dir_.File("back.db");
  Copy(postgres, back, clock_);
  ExpectCopyOf(back);
  ExpectCopyOf(postgres);
}

TEST_F(StoreCopyTest, ANonEmptyTargetIsRefusedAndKeptAsItWas) {
  const std::string target = "sqlite:" + dir_.File("used.db");
  {
    auto used = OpenStore(target, clock_);
    ASSERT_OK(used.status());
    ASSERT_OK((*used)->CreateStudy(MakeStudy("mine")));
  }
  EXPECT_THAT(CopyStore(Source(), target, clock_, {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(dir_.File("used.db")),
                             HasSubstr("not empty: it holds 1 studies, 1 "
                                       "events"))));
  auto used = OpenStore(target, clock_);
  ASSERT_OK(used.status());
  EXPECT_EQ((*used)->ListStudies().value().size(), 1u);
  EXPECT_EQ((*used)->ListEvents(0, 100).value().size(), 1u);
}

// A column the target lacks fails the copy at the jobs, after the studies,
// trials and measurements went in: the one transaction leaves none of them.
TEST_F(StoreCopyTest, AFailureHalfWayLeavesTheTargetEmpty) {
  test::RawDb(dir_.File("source.db"))
      .Exec("ALTER TABLE jobs ADD COLUMN extra TEXT");
  std::vector<std::string> targets = {"sqlite:" + dir_.File("copy.db")};
  if (const std::string postgres = PostgresUrl(); !postgres.empty()) {
    targets.push_back(postgres);
  }
  for (const std::string& target : targets) {
    EXPECT_THAT(CopyStore(Source(), target, clock_, {.env = &DefaultEnv()}),
                StatusIs(StatusCode::kFailedPrecondition,
                         HasSubstr("table \"jobs\" has other columns")));
    auto copy = OpenStore(target, clock_);
    ASSERT_OK(copy.status());
    EXPECT_TRUE((*copy)->ListStudies().value().empty()) << target;
    EXPECT_TRUE((*copy)->ListEvents(0, 10).value().empty()) << target;
  }
}

TEST_F(StoreCopyTest, ASourceAServerHoldsIsRefused) {
  auto source = OpenStore(Source(), clock_, {.env = &DefaultEnv()});
  ASSERT_OK(source.status());
  auto lease = (*source)->AcquireRunnerLease(RunnerHolder::kServer, "");
  ASSERT_OK(lease.status());
  const std::string target = "sqlite:" + dir_.File("copy.db");
  EXPECT_THAT(CopyStore(Source(), target, clock_, {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kUnavailable,
                       AllOf(HasSubstr("cannot copy from it"),
                             HasSubstr("already served by another hptune "
                                       "serve"))));
  auto copy = OpenStore(target, clock_);
  ASSERT_OK(copy.status());
  EXPECT_TRUE((*copy)->ListStudies().value().empty());
}

TEST_F(StoreCopyTest, MemoryAMissingFileAndTheSameStoreAreRefused) {
  const std::string target = "sqlite:" + dir_.File("copy.db");
  EXPECT_THAT(CopyStore("memory:", target, clock_, {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("memory:")));
  EXPECT_THAT(CopyStore(Source(), "memory:", clock_, {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("memory:")));
  EXPECT_THAT(CopyStore("sqlite:" + dir_.File("none.db"), target, clock_,
                        {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kNotFound, HasSubstr("does not exist")));
  EXPECT_FALSE(std::filesystem::exists(dir_.File("none.db")));
  EXPECT_THAT(CopyStore(Source(), Source(), clock_, {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("same store")));
}

TEST_F(StoreCopyTest, APasswordInAUrlIsNeverInItsMessages) {
  for (const std::string url :
       {"postgresql://u:secret@/h?host=/nonexistent/hptune",
        "postgresql:///h?host=/nonexistent/hptune&password=secret"}) {
    for (const auto& [from, to] :
         {std::pair(Source(), url), std::pair(url, Source())}) {
      const absl::Status status =
          CopyStore(from, to, clock_, {.env = &DefaultEnv()}).status();
      EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable,
                                   AllOf(HasSubstr("/nonexistent/hptune"),
                                         Not(HasSubstr("secret")))));
    }
  }
}

// A passfile= option passes through to libpq (which refuses an option it
// does not know); the test server trusts its socket, so the file is read
// but its password not asked for.
TEST_F(StoreCopyTest, APassfileOptionReachesLibpq) {
  const std::string postgres = PostgresUrl();
  HPTUNE_SKIP_UNLESS_AVAILABLE(!postgres.empty(), "postgresql",
                               "no PostgreSQL server");
  const std::string with_passfile =
      postgres + "&passfile=" + dir_.File("pgpass");
  Copy(Source(), with_passfile, clock_);
  ExpectCopyOf(postgres);
}

TEST_F(StoreCopyTest, APostgresSourceAServerHoldsIsRefused) {
  const std::string postgres = PostgresUrl();
  HPTUNE_SKIP_UNLESS_AVAILABLE(!postgres.empty(), "postgresql",
                               "no PostgreSQL server");
  auto store = OpenStore(postgres, clock_);
  ASSERT_OK(store.status());
  auto lease = (*store)->AcquireRunnerLease(RunnerHolder::kServer, "");
  ASSERT_OK(lease.status());
  EXPECT_THAT(CopyStore(postgres, "sqlite:" + dir_.File("copy.db"), clock_,
                        {.env = &DefaultEnv()}),
              StatusIs(StatusCode::kUnavailable,
                       HasSubstr("already served by another hptune serve")));
}

}  // namespace
}  // namespace hptune::store

// What only the file-backed store has: persistence across reopening, the
// schema and its versions, refusing foreign files, WAL, integrity, atomic
// rollback on a failure inside a transaction, and busy handling.
#include "src/store/sqlite_store.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/config.h"
#include "hptune/env/clock.h"
#include "src/store/schema.h"
#include "tests/store/store_test_util.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store {
namespace {

using ::absl::StatusCode;
using ::hptune::store::test::MakeMeasurement;
using ::hptune::store::test::MakeStudy;
using ::hptune::store::test::MakeTrial;
using ::hptune::store::test::RawDb;
using ::hptune::store::test::TempDir;
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> OpenStore(SqliteStoreOptions options = {}) {
    auto store = SqliteStore::Open(path_, clock_, options);
    EXPECT_OK(store.status());
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // A study with one of everything the store keeps.
  void Populate(Store& store) {
    ASSERT_OK(store.CreateStudy(MakeStudy("mnist")));
    ASSERT_OK(store.AddTrials("mnist", {MakeTrial(0.1), MakeTrial(0.2)},
                              "grid-cursor=2"));
    ASSERT_OK(store.UpdateTrial("mnist", 1, [](Trial& t) {
      t.state = TrialState::kActive;
      return absl::OkStatus();
    }));
    ASSERT_OK(store.AddMeasurement("mnist", 1, MakeMeasurement(10, 0.5)));
    ASSERT_OK(store.AddMeasurement("mnist", 1, MakeMeasurement(20, 0.7)));
    JobRecord job;
    job.job_id = "mnist";
    job.training_input_json = "{}";
    job.study_name = "mnist";
    job.slurm = {.time = "30", .options = {"--qos=high"}};
    ASSERT_OK(store.CreateJob(job));
  }

  FakeClock clock_;
  TempDir dir_;
  const std::string path_ = dir_.File("hptune.db");
};

TEST_F(SqliteStoreTest, DataSurvivesCloseAndReopen) {
  std::vector<StudyRecord> studies;
  std::vector<Trial> trials;
  std::vector<JobRecord> jobs;
  std::vector<Event> events;
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
    studies = *store->ListStudies();
    trials = *store->ListTrials("mnist");
    jobs = *store->ListJobs();
    events = *store->ListEvents(0, 100);
  }
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->ListStudies(), IsOkAndHolds(studies));
  EXPECT_THAT(store->ListTrials("mnist"), IsOkAndHolds(trials));
  EXPECT_THAT(store->ListJobs(), IsOkAndHolds(jobs));
  EXPECT_THAT(store->ListEvents(0, 100), IsOkAndHolds(events));
  EXPECT_THAT(store->GetDesignerState("mnist"),
              IsOkAndHolds(std::string("grid-cursor=2")));
  // Numbering and event ids continue where they stopped.
  EXPECT_THAT(store->AddTrials("mnist", {MakeTrial(0.3)}, std::nullopt),
              IsOkAndHolds(ElementsAre(::testing::Field(&Trial::number, 3))));
  ASSERT_OK_AND_ASSIGN(std::vector<Event> more,
                       store->ListEvents(events.back().id, 10));
  ASSERT_THAT(more, SizeIs(1));
  EXPECT_EQ(more[0].id, events.back().id + 1);
}

// A parameter that joined the space (Store::AddTrialParameter) is kept in
// the study's stored spec, first_trial included ("firstTrial").
TEST_F(SqliteStoreTest, AGrownSpaceSurvivesReopening) {
  ParameterSpec dropout;
  dropout.name = "dropout";
  dropout.type = ParameterType::kDouble;
  dropout.max_value = 0.5;
  dropout.scale = ScaleType::kLinear;
  StudyRecord study;
  Trial trial;
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
    ASSERT_OK_AND_ASSIGN(trial,
                         store->AddTrialParameter("mnist", 2, dropout,
                                                  ParameterValue::Double(0.2)));
    ASSERT_OK_AND_ASSIGN(study, store->GetStudy("mnist"));
  }
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->GetStudy("mnist"), IsOkAndHolds(study));
  ASSERT_THAT(study.spec.search_space.parameters(), SizeIs(5));
  dropout.first_trial = 2;
  EXPECT_EQ(study.spec.search_space.parameters().back(), dropout);
  EXPECT_THAT(store->GetTrial("mnist", 2), IsOkAndHolds(trial));
  EXPECT_EQ(trial.parameters.at("dropout"), ParameterValue::Double(0.2));
}

TEST_F(SqliteStoreTest, EmptyFileIsMigratedToTheCurrentSchema) {
  std::ofstream(path_).close();  // Zero bytes.
  ASSERT_NE(OpenStore(), nullptr);

  RawDb raw(path_);
  EXPECT_THAT(raw.Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  EXPECT_THAT(raw.Query("PRAGMA application_id"),
              ElementsAre(std::to_string(internal::kApplicationId)));
  EXPECT_THAT(raw.Query("PRAGMA journal_mode"), ElementsAre("wal"));
  EXPECT_THAT(raw.Query("SELECT name FROM sqlite_master WHERE type = 'table' "
                        "ORDER BY name"),
              ElementsAre("designer_state", "events", "jobs", "measurements",
                          "note_edits", "notes", "sqlite_sequence", "studies",
                          "trials"));
}

// Every connection this process opens while `capturing` is set, recorded by
// an SQLite auto-extension (run inside each sqlite3_open_v2).
std::vector<sqlite3*>* captured = nullptr;

int CaptureConnection(sqlite3* db, char**, const sqlite3_api_routines*) {
  if (captured != nullptr) captured->push_back(db);
  return SQLITE_OK;
}

int Synchronous(sqlite3* db) {
  sqlite3_stmt* statement = nullptr;
  int level = -1;
  if (sqlite3_prepare_v2(db, "PRAGMA synchronous", -1, &statement, nullptr) ==
          SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    level = sqlite3_column_int(statement, 0);
  }
  sqlite3_finalize(statement);
  return level;
}

// architecture.md: WAL mode with synchronous=NORMAL, the mode in which
// SQLite keeps a committed change through a killed process and the file
// intact through a power loss. The writer commits with NORMAL (FULL would
// fsync every measurement); no connection of the store runs with OFF,
// which would skip the fsyncs of checkpoints that keep the file intact.
TEST_F(SqliteStoreTest, WritesInWalModeWithSynchronousNormal) {
  std::vector<sqlite3*> connections;
  captured = &connections;
  ASSERT_EQ(
      sqlite3_auto_extension(reinterpret_cast<void (*)()>(&CaptureConnection)),
      SQLITE_OK);
  std::unique_ptr<SqliteStore> store = OpenStore();
  captured = nullptr;
  sqlite3_cancel_auto_extension(
      reinterpret_cast<void (*)()>(&CaptureConnection));
  ASSERT_NE(store, nullptr);
  Populate(*store);

  // The first connection opened is the writer's.
  ASSERT_GE(connections.size(), 2u);
  constexpr int kNormal = 1;
  EXPECT_EQ(Synchronous(connections[0]), kNormal);
  for (sqlite3* db : connections) EXPECT_GE(Synchronous(db), kNormal);
  RawDb raw(path_);
  EXPECT_THAT(raw.Query("PRAGMA journal_mode"), ElementsAre("wal"));
}

TEST_F(SqliteStoreTest, MissingFileIsCreated) {
  ASSERT_NE(OpenStore(), nullptr);
  EXPECT_TRUE(std::ifstream(path_).good());
}

// A new database is 0600 whatever the umask: a umask that takes the owner's
// write bit (0277 makes O_CREAT's 0600 a 0400) leaves it private and
// writable.
TEST_F(SqliteStoreTest, ANewFileIsPrivateAndWritableUnderAnyUmask) {
  const mode_t umask_before = ::umask(0277);
  auto store = SqliteStore::Open(path_, clock_);
  ::umask(umask_before);
  ASSERT_OK(store);
  struct stat info;
  ASSERT_EQ(::stat(path_.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
  EXPECT_OK((*store)->CreateStudy(MakeStudy("mnist")));
}

// A link to a missing file: SQLite would create the link's target, a file
// another user may have chosen; the store creates nothing and says why.
TEST_F(SqliteStoreTest, ADanglingLinkIsRefusedAndItsTargetNotCreated) {
  const std::string target = dir_.File("elsewhere.db");
  std::filesystem::create_symlink(target, path_);
  EXPECT_THAT(SqliteStore::Open(path_, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       "sqlite store \"" + path_ +
                           "\": is a symbolic link to a missing file; a "
                           "database is created only at a path that is no "
                           "link"));
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST_F(SqliteStoreTest, ReopeningACurrentFileChangesNothing) {
  { ASSERT_NE(OpenStore(), nullptr); }
  RawDb raw(path_);
  const std::vector<std::string> schema =
      raw.Query("SELECT sql FROM sqlite_master ORDER BY name");
  { ASSERT_NE(OpenStore(), nullptr); }
  EXPECT_EQ(raw.Query("SELECT sql FROM sqlite_master ORDER BY name"), schema);
}

TEST_F(SqliteStoreTest, NewerSchemaVersionIsAClearError) {
  { ASSERT_NE(OpenStore(), nullptr); }
  RawDb(path_).Exec("PRAGMA user_version = 99");

  EXPECT_THAT(
      SqliteStore::Open(path_, clock_),
      StatusIs(StatusCode::kFailedPrecondition,
               "sqlite store \"" + path_ +
                   "\": schema version 99 is newer than this hptune supports "
                   "(" +
                   std::to_string(internal::CurrentSchemaVersion()) +
                   "); open it with a newer hptune"));
}

// What schema versions 4 and 5 added, dropped to make an older file.
// MakeStudy("mnist")'s spec as schema versions 1 to 5 stored it, with
// maxTrials, resumePreviousJobId and customAlgorithm to fill in.
std::string LegacyMnistSpec(int max_trials, const std::string& resumed_from,
                            const std::string& custom_algorithm) {
  return R"({"goal":"MAXIMIZE","hyperparameterMetricTag":"accuracy",)"
         R"("maxTrials":)" +
         std::to_string(max_trials) +
         R"(,"maxParallelTrials":2,"maxFailedTrials":0,)"
         R"("enableTrialEarlyStopping":false,"resumePreviousJobId":")" +
         resumed_from + R"(","algorithm":"RANDOM_SEARCH",)" +
         (custom_algorithm.empty()
              ? std::string()
              : R"("customAlgorithm":")" + custom_algorithm + R"(",)") +
         R"("params":[)"
         R"({"parameterName":"lr","type":"DOUBLE","minValue":1e-05,)"
         R"("maxValue":0.1,"discreteValues":[],"categoricalValues":[],)"
         R"("scaleType":"UNIT_LOG_SCALE"},)"
         R"({"parameterName":"layers","type":"INTEGER","minValue":1.0,)"
         R"("maxValue":8.0,"discreteValues":[],"categoricalValues":[],)"
         R"("scaleType":"UNIT_LINEAR_SCALE"},)"
         R"({"parameterName":"width","type":"DISCRETE","minValue":0.0,)"
         R"("maxValue":0.0,"discreteValues":[32.0,64.0,128.0],)"
         R"("categoricalValues":[],"scaleType":"NONE"},)"
         R"({"parameterName":"cell","type":"CATEGORICAL","minValue":0.0,)"
         R"("maxValue":0.0,"discreteValues":[],)"
         R"("categoricalValues":["GRU","LSTM"],"scaleType":"NONE"}]})";
}

// Back to schema 8: studies without owners or measurement bytes.
const std::string kDropStudyOwners =
    "DROP INDEX studies_by_owner; "
    "ALTER TABLE studies DROP COLUMN owner_uid; "
    "ALTER TABLE studies DROP COLUMN measurement_bytes; ";

// Back to schema 7: no notes.
const std::string kDropNotes =
    kDropStudyOwners + "DROP TABLE note_edits; DROP TABLE notes; ";

// Back to schema 6's trials: no leases.
const std::string kDropLeases =
    kDropNotes +
    "ALTER TABLE trials DROP COLUMN lease_seconds; "
    "ALTER TABLE trials DROP COLUMN heartbeat_time; ";

// Back to schema 5's studies: no columns beside the spec, the spec in the
// form of versions 1 to 5.
std::string DropCanonicalSpecs(const std::string& legacy_spec) {
  return kDropLeases +
         "ALTER TABLE studies DROP COLUMN custom_algorithm; "
         "ALTER TABLE studies DROP COLUMN resumed_trials; "
         "UPDATE studies SET spec_json = '" +
         legacy_spec + "'; ";
}

const std::string kDropOwners =
    DropCanonicalSpecs(LegacyMnistSpec(20, "", "")) +
    "ALTER TABLE jobs DROP COLUMN owner_uid; "
    "ALTER TABLE jobs DROP COLUMN owner_gid; ";
const std::string kDropAttempts =
    kDropOwners +
    "ALTER TABLE trials DROP COLUMN attempt; "
    "ALTER TABLE trials DROP COLUMN drained_attempts; "
    "ALTER TABLE measurements DROP COLUMN attempt; ";

// A file of schema version 1 (no jobs.slurm_json or jobs.labels_json) with
// a job: opening it adds the columns, and the job reads back with no Slurm
// options.
TEST_F(SqliteStoreTest, VersionOneFileIsMigratedAndKeepsItsJobs) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(
      "ALTER TABLE jobs DROP COLUMN slurm_json; "
      "ALTER TABLE jobs DROP COLUMN labels_json; " +
      kDropAttempts + "PRAGMA user_version = 1;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(JobRecord job, store->GetJob("mnist"));
  EXPECT_EQ(job.study_name, "mnist");
  EXPECT_TRUE(job.slurm.empty());
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  ASSERT_OK(store->UpdateJob("mnist", [](JobRecord& j) {
    j.slurm.partition = "gpu";
    return absl::OkStatus();
  }));
  EXPECT_THAT(store->GetJob("mnist"),
              IsOkAndHolds(::testing::Field(
                  &JobRecord::slurm,
                  ::testing::Field(&SlurmJobOptions::partition, "gpu"))));
}

// A file of schema version 2 (no jobs.labels_json): opening it adds the
// column; the job keeps its Slurm options and has no labels until given some.
TEST_F(SqliteStoreTest, VersionTwoFileIsMigratedAndItsJobsGainLabels) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec("ALTER TABLE jobs DROP COLUMN labels_json; " +
                    kDropAttempts + "PRAGMA user_version = 2;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(JobRecord job, store->GetJob("mnist"));
  EXPECT_EQ(job.slurm.time, "30");
  EXPECT_THAT(job.labels, IsEmpty());
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  ASSERT_OK(store->UpdateJob("mnist", [](JobRecord& j) {
    j.labels = {{"team", "vision"}};
    return absl::OkStatus();
  }));
  EXPECT_THAT(RawDb(path_).Query("SELECT labels_json FROM jobs"),
              ElementsAre(R"({"team":"vision"})"));
  EXPECT_THAT(store->GetJob("mnist"),
              IsOkAndHolds(::testing::Field(&JobRecord::labels,
                                            JobLabels{{"team", "vision"}})));
}

// A file of schema version 3 (no attempts): opening it adds the columns; what
// was stored has attempt 0 (unknown), and new reports keep theirs.
TEST_F(SqliteStoreTest, VersionThreeFileIsMigratedAndGainsAttempts) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(kDropAttempts + "PRAGMA user_version = 3;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  ASSERT_OK_AND_ASSIGN(Trial trial, store->GetTrial("mnist", 1));
  EXPECT_EQ(trial.attempt, 0);
  ASSERT_THAT(trial.measurements, SizeIs(2));
  EXPECT_EQ(trial.measurements[0].attempt, 0);
  Measurement next = MakeMeasurement(30, 0.9);
  next.attempt = 1;
  ASSERT_OK(store->AddMeasurement("mnist", 1, next));
  EXPECT_THAT(RawDb(path_).Query("SELECT attempt FROM measurements "
                                 "ORDER BY seq"),
              ElementsAre("0", "0", "1"));
}

// A file of schema version 4 (no job owners): its jobs read back as the
// runner's own user's, and a new owner is kept.
TEST_F(SqliteStoreTest, VersionFourFileIsMigratedAndGainsOwners) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(kDropOwners + "PRAGMA user_version = 4;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(JobRecord job, store->GetJob("mnist"));
  EXPECT_FALSE(job.owner.known());
  job.owner = {.uid = 1234, .gid = 56};
  ASSERT_OK(store->UpdateJob(job.job_id, [&](JobRecord& stored) {
    stored.owner = job.owner;
    return absl::OkStatus();
  }));
  EXPECT_THAT(store->GetJob("mnist"),
              IsOkAndHolds(::testing::Field(&JobRecord::owner,
                                            JobOwner{.uid = 1234, .gid = 56})));
}

// A file of schema version 5: its specs are rewritten in the canonical
// config form, the custom algorithm moves to its column, and the trials a
// job resumed move out of maxTrials (where version 5 added them; the job's
// own trainingInput keeps the user's) into resumed_trials.
TEST_F(SqliteStoreTest, VersionFiveFileGetsCanonicalSpecsAndResumedTrials) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(
      DropCanonicalSpecs(LegacyMnistSpec(26, "mnist_0", "mine")) +
      "UPDATE jobs SET training_input_json = "
      "'{\"trainingInput\":{\"hyperparameters\":{\"maxTrials\":20}}}'; "
      "PRAGMA user_version = 5;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  StudyRecord expected = MakeStudy("mnist");
  expected.spec.resume_previous_job_id = "mnist_0";
  expected.spec.custom_algorithm = "mine";
  expected.resumed_trials = 6;
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store->GetStudy("mnist"));
  EXPECT_EQ(study.spec, expected.spec);
  EXPECT_EQ(study.resumed_trials, 6);
  EXPECT_EQ(study.TrialBudget(), 26);
  EXPECT_THAT(RawDb(path_).Query("SELECT spec_json FROM studies"),
              ElementsAre(StudySpecToJson(expected.spec)));
}

TEST_F(SqliteStoreTest, AVersionFiveSpecThatDoesNotReadStopsTheMigration) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(DropCanonicalSpecs(R"({"goal":"SIDEWAYS"})") +
                    "PRAGMA user_version = 5;");
  EXPECT_THAT(SqliteStore::Open(path_, clock_),
              StatusIs(StatusCode::kDataLoss, HasSubstr("study \"mnist\": ")));
  // Nothing of the migration stayed: the file is as it was.
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"), ElementsAre("5"));
  EXPECT_THAT(RawDb(path_).Query("SELECT spec_json FROM studies"),
              ElementsAre(R"({"goal":"SIDEWAYS"})"));
}

// A file of schema version 6 (no leases): its ACTIVE trial gains none, so
// no engine ends it for want of a heartbeat.
TEST_F(SqliteStoreTest, VersionSixFileIsMigratedAndItsTrialsHaveNoLease) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(kDropLeases + "PRAGMA user_version = 6;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK_AND_ASSIGN(Trial trial, store->GetTrial("mnist", 1));
  EXPECT_EQ(trial.state, TrialState::kActive);
  EXPECT_EQ(trial.lease_seconds, 0);
  EXPECT_FALSE(trial.heartbeat_time.has_value());
  ASSERT_OK(store->UpdateTrial("mnist", 1, [&](Trial& t) {
    t.lease_seconds = 60;
    t.heartbeat_time = clock_.Now();
    return absl::OkStatus();
  }));
  ASSERT_OK_AND_ASSIGN(trial, store->GetTrial("mnist", 1));
  EXPECT_EQ(trial.lease_seconds, 60);
  EXPECT_TRUE(trial.heartbeat_time == clock_.Now());
}

TEST_F(SqliteStoreTest, FileThatIsNotSqliteIsAClearError) {
  const std::string text =
      "trainingInput:\n  scaleTier: BASIC\n" + std::string(2000, '#');
  std::ofstream(path_) << text;

  EXPECT_THAT(SqliteStore::Open(path_, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       "sqlite store \"" + path_ +
                           "\": not an SQLite database (file is not a "
                           "database)"));
  std::stringstream after;
  after << std::ifstream(path_).rdbuf();
  EXPECT_EQ(after.str(), text);  // Left alone.
}

TEST_F(SqliteStoreTest, OtherApplicationsDatabaseIsRefused) {
  RawDb(path_).Exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)");
  EXPECT_THAT(SqliteStore::Open(path_, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       "sqlite store \"" + path_ +
                           "\": not an hptune database (application_id "
                           "0x00000000, expected 0x48505455; 1 schema "
                           "objects)"));
}

TEST_F(SqliteStoreTest, UnopenablePathNamesTheFile) {
  const std::string path = dir_.File("no/such/dir/hptune.db");
  EXPECT_THAT(SqliteStore::Open(path, clock_),
              StatusIs(StatusCode::kFailedPrecondition,
                       "sqlite store \"" + path +
                           "\": cannot open: unable to open database file"));
}

TEST_F(SqliteStoreTest, IntegrityAndForeignKeysHoldAfterAWorkload) {
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Populate(*store);
  ASSERT_OK(store->CreateStudy(MakeStudy("gone")));
  ASSERT_OK(store->AddTrials("gone", {MakeTrial(0.1)}, "x"));
  ASSERT_OK(store->DeleteStudy("gone"));

  RawDb raw(path_);
  EXPECT_THAT(raw.Query("PRAGMA integrity_check"), ElementsAre("ok"));
  EXPECT_THAT(raw.Query("PRAGMA foreign_key_check"), IsEmpty());
  // The deleted study's rows went with it (ON DELETE CASCADE).
  EXPECT_THAT(raw.Query("SELECT count(*) FROM trials WHERE study = 'gone'"),
              ElementsAre("0"));
  EXPECT_THAT(
      raw.Query("SELECT count(*) FROM designer_state WHERE study = 'gone'"),
      ElementsAre("0"));
}

TEST_F(SqliteStoreTest, FailureInsideATransactionRollsBackEverything) {
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateStudy(MakeStudy("mnist")));
  // Fail the last write of AddTrials, after its trials and events went in.
  RawDb(path_).Exec(
      "CREATE TRIGGER fail_designer_state BEFORE INSERT ON designer_state "
      "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");

  EXPECT_THAT(
      store->AddTrials("mnist", {MakeTrial(0.1), MakeTrial(0.2)}, "cursor=2"),
      StatusIs(StatusCode::kInternal, HasSubstr("injected failure")));
  EXPECT_THAT(store->ListTrials("mnist"), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store->ListEvents(0, 100), IsOkAndHolds(SizeIs(1)));
  EXPECT_THAT(store->AddTrials("mnist", {MakeTrial(0.3)}, std::nullopt),
              IsOkAndHolds(ElementsAre(::testing::Field(&Trial::number, 1))));
}

TEST_F(SqliteStoreTest, CorruptStoredRecordIsDataLossNamingIt) {
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  Populate(*store);
  RawDb(path_).Exec(
      "UPDATE trials SET parameters_json = '{\"lr\": ' WHERE number = 2");
  EXPECT_THAT(store->GetTrial("mnist", 2),
              StatusIs(StatusCode::kDataLoss,
                       HasSubstr("study \"mnist\": trial 2: cannot read "
                                 "stored parameters: ")));
  EXPECT_OK(store->GetTrial("mnist", 1).status());
}

// A connection keeps the specs it decoded by their stored text
// (spec_cache.h): a row whose text changed, here by another connection,
// reads back with its new spec, never the one kept for the old text.
TEST_F(SqliteStoreTest, AStudyRowWhoseSpecChangedReadsTheNewSpec) {
  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateStudy(MakeStudy("mnist")));
  ASSERT_OK_AND_ASSIGN(StudyRecord before, store->GetStudy("mnist"));
  StudySpec changed = before.spec;
  changed.max_trials += 7;
  RawDb(path_).Exec("UPDATE studies SET spec_json = '" +
                    StudySpecToJson(changed) + "'");
  ASSERT_OK_AND_ASSIGN(StudyRecord after, store->GetStudy("mnist"));
  EXPECT_EQ(after.spec.max_trials, before.spec.max_trials + 7);
}

TEST_F(SqliteStoreTest, LockedDatabaseIsUnavailableAfterTheDeadline) {
  constexpr auto kDeadline = std::chrono::milliseconds(500);
  std::unique_ptr<SqliteStore> store = OpenStore({.busy_deadline = kDeadline});
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->CreateStudy(MakeStudy("mnist")));

  RawDb other(path_);
  other.Exec("BEGIN IMMEDIATE");  // Another writer holds the lock.
  const auto start = std::chrono::steady_clock::now();
  const absl::Status status = store->CreateStudy(MakeStudy("blocked"));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(status, StatusIs(StatusCode::kUnavailable,
                               "sqlite store \"" + path_ +
                                   "\": other connections kept the database "
                                   "locked for 500 ms; try again later"));
  EXPECT_THAT(std::string(status.message()), Not(HasSubstr("is locked")));
  EXPECT_GE(waited, kDeadline);
  // Not much longer either: the deadline bounds the whole call, retries
  // included (a loaded machine adds milliseconds, not seconds).
  EXPECT_LT(waited, 5 * kDeadline);
  // WAL: readers are not blocked by the writer.
  EXPECT_OK(store->GetStudy("mnist").status());

  other.Exec("ROLLBACK");
  EXPECT_OK(store->CreateStudy(MakeStudy("blocked")));
}

// A file of schema version 7 (no notes): opening it adds the tables, and
// its study and trials take notes.
TEST_F(SqliteStoreTest, VersionSevenFileIsMigratedAndTakesNotes) {
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
  }
  RawDb(path_).Exec(kDropNotes + "PRAGMA user_version = 7;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  ASSERT_OK_AND_ASSIGN(Note none, store->GetNote("mnist", 1));
  EXPECT_EQ(none.text, "");
  ASSERT_OK(store->SetNote("mnist", 1, "kept", {.peer = "p", .client = "c"}));
  EXPECT_THAT(RawDb(path_).Query("SELECT text FROM notes"),
              ElementsAre("kept"));
  EXPECT_THAT(RawDb(path_).Query("SELECT peer || ' ' || client || ' ' || "
                                 "bytes FROM note_edits"),
              ElementsAre("p c 4"));
}

// A file of schema version 8 (issue 84): a job's study becomes its job's
// owner's, an ask/tell study no one's, and each study's measurement bytes
// are counted once from its rows, as the store keeps them afterwards.
TEST_F(SqliteStoreTest, VersionEightFileIsMigratedAndCountsOwnersAndBytes) {
  std::string kept_bytes;
  {
    std::unique_ptr<SqliteStore> store = OpenStore();
    ASSERT_NE(store, nullptr);
    Populate(*store);
    ASSERT_OK(store->UpdateJob("mnist", [](JobRecord& j) {
      j.owner = {.uid = 1234, .gid = 56};
      return absl::OkStatus();
    }));
    ASSERT_OK(store->CreateStudy(MakeStudy("asktell")));
    kept_bytes = RawDb(path_).Query(
        "SELECT measurement_bytes FROM studies WHERE name = 'mnist'")[0];
  }
  ASSERT_NE(kept_bytes, "0");
  RawDb(path_).Exec(kDropStudyOwners + "PRAGMA user_version = 8;");

  std::unique_ptr<SqliteStore> store = OpenStore();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(RawDb(path_).Query("PRAGMA user_version"),
              ElementsAre(std::to_string(internal::CurrentSchemaVersion())));
  EXPECT_THAT(store->GetStudy("mnist"),
              IsOkAndHolds(::testing::Field(&StudyRecord::owner_uid, 1234)));
  EXPECT_THAT(store->GetStudy("asktell"),
              IsOkAndHolds(::testing::Field(&StudyRecord::owner_uid, -1)));
  EXPECT_THAT(
      store->GetUserUsage(1234),
      IsOkAndHolds(UserUsage{.uid = 1234,
                             .studies = 1,
                             .measurement_bytes = std::stoll(kept_bytes)}));
  EXPECT_THAT(store->GetStudyOwnerUsage("asktell"), IsOkAndHolds(UserUsage{}));
}

}  // namespace
}  // namespace hptune::store

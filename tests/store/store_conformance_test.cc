// The Store contract, run against every implementation: MemoryStore,
// SqliteStore on a temp file and PostgresStore on a database of a real
// server started by this binary (tests/testing/postgres_server.h) must
// behave identically, errors and events included.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hptune/core/mutex.h"
#include "hptune/core/status.h"
#include "hptune/env/clock.h"
#include "hptune/env/env.h"
#include "hptune/store/open_store.h"
#include "hptune/store/store.h"
#include "src/store/record_codec.h"
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
using ::hptune_testing::IsOkAndHolds;
using ::hptune_testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

struct StoreFactory {
  std::string name;
  bool needs_postgres = false;
  std::function<absl::StatusOr<std::unique_ptr<Store>>(Clock&, const TempDir&)>
      open;
};

std::vector<StoreFactory> Factories() {
  return {
      {"Memory", false,
       [](Clock& clock,
          const TempDir&) -> absl::StatusOr<std::unique_ptr<Store>> {
         return NewMemoryStore(clock);
       }},
      {"Sqlite", false,
       [](Clock& clock, const TempDir& dir) {
         return OpenSqliteStore(dir.File("hptune.db"), clock);
       }},
      {"Postgres", true,
       [](Clock& clock,
          const TempDir&) -> absl::StatusOr<std::unique_ptr<Store>> {
         HPTUNE_ASSIGN_OR_RETURN(testing::PostgresServer * server,
                                 testing::PostgresServer::Shared());
         HPTUNE_ASSIGN_OR_RETURN(std::string url, server->NewDatabase());
         return OpenStore(url, clock);
       }},
  };
}

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    if (GetParam().needs_postgres) {
      const absl::StatusOr<testing::PostgresServer*> server =
          testing::PostgresServer::Shared();
      HPTUNE_SKIP_UNLESS_AVAILABLE(server.ok(), "postgresql",
                                   server.status().message());
    }
    auto store = GetParam().open(clock_, dir_);
    ASSERT_OK(store.status());
    store_ = std::move(store).value();
  }

  // Creates study `name` with trial 1 in `state`, reached through the state
  // machine as the engine would.
  void CreateStudyWithTrial(const std::string& name, TrialState state) {
    ASSERT_OK(store_->CreateStudy(MakeStudy(name)));
    ASSERT_OK(store_->AddTrials(name, {MakeTrial(0.01)}, std::nullopt));
    auto move = [&](TrialState to) {
      return store_->UpdateTrial(name, 1, [&](Trial& t) {
        if (to == TrialState::kSucceeded) {
          t.final_measurement = MakeMeasurement(100, 0.9);
        }
        return t.TransitionTo(to, clock_.Now());
      });
    };
    if (state == TrialState::kRequested) return;
    ASSERT_OK(move(TrialState::kActive));
    if (state == TrialState::kActive) return;
    if (state == TrialState::kStopping) {
      ASSERT_OK(move(TrialState::kStopping));
      return;
    }
    ASSERT_OK(move(state));
  }

  // Study `name` with trial 1 ACTIVE and trial 2 added SUCCEEDED with a
  // final measurement at step 5 (a warm start).
  void CreateStudyWithActiveAndDoneTrial(const std::string& name) {
    CreateStudyWithTrial(name, TrialState::kActive);
    Trial done = MakeTrial(0.2);
    done.state = TrialState::kSucceeded;
    done.final_measurement = MakeMeasurement(5, 0.9);
    ASSERT_OK(store_->AddTrials(name, {done}, std::nullopt));
  }

  std::vector<Event> AllEvents() {
    auto events = store_->ListEvents(0, 1000);
    EXPECT_OK(events.status());
    return events.ok() ? *events : std::vector<Event>{};
  }

  // A study, one of its trials and the event log, to check that a refused
  // call changed none of them.
  struct Snapshot {
    StudyRecord study;
    Trial trial;
    std::vector<Event> events;
  };
  Snapshot Take(const std::string& study, int64_t number) {
    auto record = store_->GetStudy(study);
    auto trial = store_->GetTrial(study, number);
    EXPECT_OK(record.status());
    EXPECT_OK(trial.status());
    return {record.value_or(StudyRecord{}), trial.value_or(Trial{}),
            AllEvents()};
  }
  void ExpectUnchanged(const Snapshot& before) {
    EXPECT_THAT(store_->GetStudy(before.study.name),
                IsOkAndHolds(before.study));
    EXPECT_THAT(store_->GetTrial(before.study.name, before.trial.number),
                IsOkAndHolds(before.trial));
    EXPECT_EQ(AllEvents(), before.events);
  }

  FakeClock clock_;
  TempDir dir_;
  std::unique_ptr<Store> store_;
};

// --- Studies ---

TEST_P(StoreConformanceTest, CreatesGetsListsAndDeletesStudies) {
  StudyRecord b = MakeStudy("b");
  b.create_time = FromUnixMicros(1'600'000'000'000'001);
  ASSERT_OK(store_->CreateStudy(b));
  clock_.Advance(std::chrono::seconds(1));
  ASSERT_OK(store_->CreateStudy(MakeStudy("a")));

  ASSERT_OK_AND_ASSIGN(StudyRecord got_b, store_->GetStudy("b"));
  EXPECT_EQ(got_b, b);
  ASSERT_OK_AND_ASSIGN(StudyRecord got_a, store_->GetStudy("a"));
  StudyRecord expected_a = MakeStudy("a");
  expected_a.create_time = clock_.Now();  // Stamped when left unset.
  EXPECT_EQ(got_a, expected_a);

  ASSERT_OK_AND_ASSIGN(std::vector<StudyRecord> studies, store_->ListStudies());
  ASSERT_THAT(studies, SizeIs(2));
  EXPECT_EQ(studies[0].name, "b");  // Creation order, not name order.
  EXPECT_EQ(studies[1].name, "a");

  ASSERT_OK(store_->DeleteStudy("b"));
  EXPECT_THAT(store_->GetStudy("b"),
              StatusIs(StatusCode::kNotFound, "study \"b\" not found"));
  ASSERT_OK_AND_ASSIGN(studies, store_->ListStudies());
  ASSERT_THAT(studies, SizeIs(1));
  EXPECT_EQ(studies[0].name, "a");
}

TEST_P(StoreConformanceTest, DuplicateStudyIsAlreadyExists) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  EXPECT_THAT(
      store_->CreateStudy(MakeStudy("mnist")),
      StatusIs(StatusCode::kAlreadyExists, "study \"mnist\" already exists"));
}

TEST_P(StoreConformanceTest, StudyWithoutNameIsInvalid) {
  EXPECT_THAT(
      store_->CreateStudy(MakeStudy("")),
      StatusIs(StatusCode::kInvalidArgument, "a study needs a name, got \"\""));
}

// A spec is kept in one form, its canonical config JSON: one that would
// not read back as itself is refused, so GetStudy returns what was created.
TEST_P(StoreConformanceTest, ASpecItsStoredFormWouldChangeIsRefused) {
  StudyRecord invalid = MakeStudy("empty");
  invalid.spec.search_space = SearchSpace(std::vector<ParameterSpec>{});
  EXPECT_THAT(store_->CreateStudy(invalid),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("study \"empty\": cannot store its spec: "
                                 "hyperparameters.params: ")));
  StudyRecord scaled = MakeStudy("scaled");
  std::vector<ParameterSpec> params = scaled.spec.search_space.parameters();
  params.back().scale = ScaleType::kLog;  // "cell", a CATEGORICAL: no scale.
  scaled.spec.search_space = SearchSpace(params);
  EXPECT_THAT(store_->CreateStudy(scaled),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"scaled\": cannot store its spec: "
                       "hyperparameters.params[3].scaleType: not allowed "
                       "with type CATEGORICAL, got UNIT_LOG_SCALE"));
  // Valid, but the stored form nests a child under its parent: a child
  // listed after another root would come back in another order.
  StudyRecord changed = MakeStudy("changed");
  params = changed.spec.search_space.parameters();
  ParameterSpec child{.name = "dropout",
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 0.5};
  child.condition = ParentCondition{.parent = "width", .discrete_values = {64}};
  params.push_back(child);
  changed.spec.search_space = SearchSpace(params);
  EXPECT_THAT(
      store_->CreateStudy(changed),
      StatusIs(StatusCode::kInvalidArgument,
               "study \"changed\": cannot store its spec: "
               "hyperparameters.params[2].conditionalParameterSpecs[0]."
               "parameterSpec: the child \"dropout\" must be listed right "
               "after its parent \"width\" and that parent's earlier "
               "children, before \"cell\" (index 3), as its nested form "
               "reads back; it is at index 4"));
  EXPECT_THAT(store_->ListStudies(), IsOkAndHolds(IsEmpty()));
}

// Listed where its nested form puts it, the child is kept, and GetStudy
// returns exactly the spec created.
TEST_P(StoreConformanceTest, AChildListedAfterItsParentComesBackAsCreated) {
  StudyRecord study = MakeStudy("nested");
  std::vector<ParameterSpec> params = study.spec.search_space.parameters();
  ParameterSpec child{.name = "dropout",
                      .type = ParameterType::kDouble,
                      .min_value = 0,
                      .max_value = 0.5};
  child.condition = ParentCondition{.parent = "width", .discrete_values = {64}};
  params.insert(params.begin() + 3, child);  // Right after "width".
  study.spec.search_space = SearchSpace(params);
  ASSERT_OK(store_->CreateStudy(study));
  ASSERT_OK_AND_ASSIGN(StudyRecord back, store_->GetStudy("nested"));
  EXPECT_EQ(back.spec, study.spec);
}

TEST_P(StoreConformanceTest, EveryCallOnAMissingStudyIsNotFound) {
  const auto not_found =
      StatusIs(StatusCode::kNotFound, "study \"nope\" not found");
  EXPECT_THAT(store_->GetStudy("nope"), not_found);
  EXPECT_THAT(store_->DeleteStudy("nope"), not_found);
  EXPECT_THAT(store_->SetStudyState("nope", StudyState::kCompleted, ""),
              not_found);
  EXPECT_THAT(store_->AddTrials("nope", {MakeTrial(0.1)}, std::nullopt),
              not_found);
  EXPECT_THAT(store_->GetTrial("nope", 1), not_found);
  EXPECT_THAT(store_->ListTrials("nope"), not_found);
  EXPECT_THAT(
      store_->UpdateTrial("nope", 1, [](Trial&) { return absl::OkStatus(); }),
      not_found);
  EXPECT_THAT(store_->AddMeasurement("nope", 1, MakeMeasurement(1, 0.5)),
              not_found);
  EXPECT_THAT(store_->GetDesignerState("nope"), not_found);
  EXPECT_THAT(AllEvents(), IsEmpty());
}

TEST_P(StoreConformanceTest, MissingTrialIsNotFoundNamingStudyAndTrial) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  const auto not_found =
      StatusIs(StatusCode::kNotFound, "study \"mnist\": trial 7 not found");
  EXPECT_THAT(store_->GetTrial("mnist", 7), not_found);
  EXPECT_THAT(
      store_->UpdateTrial("mnist", 7, [](Trial&) { return absl::OkStatus(); }),
      not_found);
  EXPECT_THAT(store_->AddMeasurement("mnist", 7, MakeMeasurement(1, 0.5)),
              not_found);
}

TEST_P(StoreConformanceTest, SetStudyStateStoresStateAndReason) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  ASSERT_OK(store_->SetStudyState("mnist", StudyState::kCompleted,
                                  "maxTrials reached"));
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  EXPECT_EQ(study.state, StudyState::kCompleted);
  EXPECT_EQ(study.reason, "maxTrials reached");
}

TEST_P(StoreConformanceTest, TheStatesShownOfAStudyWhoseJobEndedAreNotStored) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  EXPECT_THAT(store_->SetStudyState("mnist", StudyState::kFailed, "job"),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": FAILED is shown of a study whose "
                       "job ended so, never stored"));
  StudyRecord cancelled = MakeStudy("other");
  cancelled.state = StudyState::kCancelled;
  EXPECT_THAT(store_->CreateStudy(cancelled),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"other\": CANCELLED is shown of a study whose "
                       "job ended so, never stored"));
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  EXPECT_EQ(study.state, StudyState::kActive);
}

TEST_P(StoreConformanceTest, DeleteStudyRemovesTrialsAndDesignerState) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddMeasurement("mnist", 1, MakeMeasurement(1, 0.5)));
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.02)}, "cursor=2"));

  ASSERT_OK(store_->DeleteStudy("mnist"));
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  EXPECT_THAT(store_->ListTrials("mnist"), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->GetDesignerState("mnist"), IsOkAndHolds(""));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Trial> added,
      store_->AddTrials("mnist", {MakeTrial(0.03)}, std::nullopt));
  EXPECT_EQ(added[0].number, 1);  // Numbering starts again.
  ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("mnist", 1));
  EXPECT_THAT(trial.measurements, IsEmpty());
}

// --- Usage (issue 84: per-user quotas) ---

StudyRecord OwnedStudy(const std::string& name, int64_t owner_uid) {
  StudyRecord study = MakeStudy(name);
  study.owner_uid = owner_uid;
  return study;
}

TEST_P(StoreConformanceTest, AStudyKeepsItsOwnerAndCountsAgainstThem) {
  ASSERT_OK(store_->CreateStudy(OwnedStudy("a1", 1001)));
  ASSERT_OK(store_->CreateStudy(OwnedStudy("a2", 1001)));
  ASSERT_OK(store_->CreateStudy(OwnedStudy("b1", 1002)));
  ASSERT_OK(store_->CreateStudy(MakeStudy("nobody")));

  EXPECT_THAT(store_->GetStudy("a1"),
              IsOkAndHolds(::testing::Field(&StudyRecord::owner_uid, 1001)));
  EXPECT_THAT(store_->GetStudy("nobody"),
              IsOkAndHolds(::testing::Field(&StudyRecord::owner_uid, -1)));
  EXPECT_THAT(store_->GetUserUsage(1001),
              IsOkAndHolds(UserUsage{.uid = 1001, .studies = 2}));
  EXPECT_THAT(store_->GetUserUsage(1003),
              IsOkAndHolds(UserUsage{.uid = 1003, .studies = 0}));
  EXPECT_THAT(store_->GetStudyOwnerUsage("b1"),
              IsOkAndHolds(UserUsage{.uid = 1002, .studies = 1}));
  EXPECT_THAT(store_->GetStudyOwnerUsage("nobody"), IsOkAndHolds(UserUsage{}));
  EXPECT_THAT(store_->GetStudyOwnerUsage("missing"),
              StatusIs(StatusCode::kNotFound, "study \"missing\" not found"));

  ASSERT_OK(store_->DeleteStudy("a2"));
  EXPECT_THAT(store_->GetUserUsage(1001),
              IsOkAndHolds(UserUsage{.uid = 1001, .studies = 1}));
}

TEST_P(StoreConformanceTest, MeasurementBytesAreKeptPerOwnerAsRowsAreAdded) {
  ASSERT_OK(store_->CreateStudy(OwnedStudy("mine", 1001)));
  ASSERT_OK(store_->AddTrials("mine", {MakeTrial(0.01)}, std::nullopt));
  ASSERT_OK(store_->UpdateTrial("mine", 1, [&](Trial& t) {
    return t.TransitionTo(TrialState::kActive, clock_.Now());
  }));
  CreateStudyWithTrial("theirs", TrialState::kActive);
  const Measurement m = MakeMeasurement(1, 0.5);
  ASSERT_OK_AND_ASSIGN(std::string metrics, internal::EncodeMetrics(m.metrics));
  const int64_t row =
      kMeasurementRowBytes + static_cast<int64_t>(metrics.size());

  ASSERT_OK(store_->AddMeasurement("mine", 1, m));
  ASSERT_OK(store_->AddMeasurement("mine", 1, m));
  ASSERT_OK(store_->AddMeasurement("theirs", 1, m));
  // Refused measurements count nothing.
  EXPECT_FALSE(store_->AddMeasurement("mine", 7, m).ok());

  const UserUsage mine{.uid = 1001, .studies = 1, .measurement_bytes = 2 * row};
  EXPECT_THAT(store_->GetUserUsage(1001), IsOkAndHolds(mine));
  EXPECT_THAT(store_->GetStudyOwnerUsage("mine"), IsOkAndHolds(mine));
  EXPECT_THAT(store_->GetStudyOwnerUsage("theirs"), IsOkAndHolds(UserUsage{}));
  ASSERT_OK(store_->DeleteStudy("mine"));
  EXPECT_THAT(store_->GetUserUsage(1001), IsOkAndHolds(UserUsage{.uid = 1001}));
}

// --- Trials ---

TEST_P(StoreConformanceTest, TrialNumbersAreDenseFromOne) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  ASSERT_OK(store_->CreateStudy(MakeStudy("other")));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Trial> first,
      store_->AddTrials("mnist", {MakeTrial(0.1), MakeTrial(0.2)},
                        std::nullopt));
  ASSERT_OK(store_->AddTrials("other", {MakeTrial(0.3)}, std::nullopt));
  Trial numbered = MakeTrial(0.4);
  numbered.number = 99;  // Ignored: the store numbers trials.
  ASSERT_OK_AND_ASSIGN(
      std::vector<Trial> second,
      store_->AddTrials("mnist", {numbered, MakeTrial(0.5), MakeTrial(0.6)},
                        std::nullopt));

  EXPECT_EQ(first[0].number, 1);
  EXPECT_EQ(first[1].number, 2);
  EXPECT_EQ(second[0].number, 3);
  EXPECT_EQ(second[2].number, 5);
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store_->ListTrials("mnist"));
  ASSERT_THAT(trials, SizeIs(5));
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(trials[i].number, i + 1);
    EXPECT_EQ(trials[i].create_time, clock_.Now());
  }
  EXPECT_EQ(trials[3].parameters.at("lr"), ParameterValue::Double(0.5));
  EXPECT_EQ(second[1], trials[3]);  // Returned as stored.
}

TEST_P(StoreConformanceTest, AddTrialsStoresDesignerStateInTheSameCall) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  EXPECT_THAT(store_->GetDesignerState("mnist"), IsOkAndHolds(""));

  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.1)}, "cursor=1"));
  EXPECT_THAT(store_->GetDesignerState("mnist"),
              IsOkAndHolds(std::string("cursor=1")));
  // No state given: the stored one stays.
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.2)}, std::nullopt));
  EXPECT_THAT(store_->GetDesignerState("mnist"),
              IsOkAndHolds(std::string("cursor=1")));
  // A state alone (no trials) is stored too, bytes and all.
  const std::string binary("\0\x01\xff state", 9);
  ASSERT_OK(store_->AddTrials("mnist", {}, binary));
  EXPECT_THAT(store_->GetDesignerState("mnist"), IsOkAndHolds(binary));

  // A bad trial anywhere in the batch: nothing of the call is stored.
  Trial failed = MakeTrial(0.4);
  failed.state = TrialState::kFailed;
  EXPECT_THAT(store_->AddTrials("mnist", {MakeTrial(0.3), failed}, "cursor=9"),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": new trial 2 of 2: a new trial must be "
                       "REQUESTED, ACTIVE, SUCCEEDED or INFEASIBLE, got "
                       "FAILED"));
  EXPECT_THAT(store_->GetDesignerState("mnist"), IsOkAndHolds(binary));
  EXPECT_THAT(store_->ListTrials("mnist"), IsOkAndHolds(SizeIs(2)));
}

TEST_P(StoreConformanceTest, AddTrialsAcceptsWarmStartResults) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  Trial succeeded = MakeTrial(0.1);
  succeeded.state = TrialState::kSucceeded;
  succeeded.final_measurement = MakeMeasurement(1000, 0.97);
  succeeded.measurements = {MakeMeasurement(500, 0.9),
                            MakeMeasurement(1000, 0.97)};
  succeeded.origin = "user";
  Trial infeasible = MakeTrial(0.2);
  infeasible.state = TrialState::kInfeasible;
  infeasible.reason = "out of memory";
  Trial active = MakeTrial(0.3);
  active.state = TrialState::kActive;
  active.client_id = "worker-1";

  ASSERT_OK_AND_ASSIGN(
      std::vector<Trial> added,
      store_->AddTrials("mnist", {succeeded, infeasible, active},
                        std::nullopt));
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store_->ListTrials("mnist"));
  EXPECT_EQ(trials, added);
  EXPECT_EQ(trials[0].state, TrialState::kSucceeded);
  EXPECT_EQ(trials[0].final_measurement, succeeded.final_measurement);
  EXPECT_EQ(trials[0].measurements, succeeded.measurements);
  EXPECT_EQ(trials[0].end_time, clock_.Now());  // Ended on arrival.
  EXPECT_EQ(trials[1].reason, "out of memory");
  EXPECT_EQ(trials[2].start_time, clock_.Now());  // Started on arrival.
  EXPECT_EQ(trials[2].client_id, "worker-1");
  EXPECT_EQ(trials[2].end_time, std::nullopt);
}

TEST_P(StoreConformanceTest, AddTrialsRejectsTrialsWithoutTheirResult) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  Trial succeeded = MakeTrial(0.1);
  succeeded.state = TrialState::kSucceeded;
  EXPECT_THAT(store_->AddTrials("mnist", {succeeded}, std::nullopt),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": new trial 1 of 1: a SUCCEEDED trial "
                       "can be added only with its final measurement"));
  Trial infeasible = MakeTrial(0.1);
  infeasible.state = TrialState::kInfeasible;
  EXPECT_THAT(store_->AddTrials("mnist", {infeasible}, std::nullopt),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": new trial 1 of 1: an INFEASIBLE "
                       "trial can be added only with a reason"));
  Trial stopping = MakeTrial(0.1);
  stopping.state = TrialState::kStopping;
  EXPECT_THAT(
      store_->AddTrials("mnist", {stopping}, std::nullopt),
      StatusIs(StatusCode::kInvalidArgument, HasSubstr("got STOPPING")));
  Trial nan_param = MakeTrial(std::nan(""));
  EXPECT_THAT(store_->AddTrials("mnist", {nan_param}, std::nullopt),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": new trial 1 of 1: parameter \"lr\" "
                       "must be a finite number, got nan"));
  for (const double infinite : {INFINITY, -INFINITY}) {
    EXPECT_THAT(store_->AddTrials("mnist", {MakeTrial(infinite)}, std::nullopt),
                StatusIs(StatusCode::kInvalidArgument,
                         HasSubstr("parameter \"lr\" must be a finite "
                                   "number, got ")));
  }
  Trial bad_final = MakeTrial(0.1);
  bad_final.state = TrialState::kSucceeded;
  bad_final.final_measurement = MakeMeasurement(5, INFINITY);
  EXPECT_THAT(store_->AddTrials("mnist", {bad_final}, std::nullopt),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("new trial 1 of 1: final measurement: metric "
                                 "\"accuracy\" at step 5 must be a finite")));
  EXPECT_THAT(store_->ListTrials("mnist"), IsOkAndHolds(IsEmpty()));
}

TEST_P(StoreConformanceTest, GetTrialReturnsMeasurementsInReportOrder) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  // Report order, not step order: a trainer may restart from a checkpoint.
  for (int64_t step : {10, 30, 20}) {
    ASSERT_OK(store_->AddMeasurement("mnist", 1,
                                     MakeMeasurement(step, step / 100.0)));
  }
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.2)}, std::nullopt));

  ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("mnist", 1));
  ASSERT_THAT(trial.measurements, SizeIs(3));
  EXPECT_EQ(trial.measurements[0], MakeMeasurement(10, 0.1));
  EXPECT_EQ(trial.measurements[1], MakeMeasurement(30, 0.3));
  EXPECT_EQ(trial.measurements[2], MakeMeasurement(20, 0.2));
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> trials, store_->ListTrials("mnist"));
  ASSERT_THAT(trials, SizeIs(2));
  EXPECT_EQ(trials[0], trial);
  EXPECT_THAT(trials[1].measurements, IsEmpty());
}

TEST_P(StoreConformanceTest, AttemptsOfTrialsAndMeasurementsAreKept) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->UpdateTrial("mnist", 1, [](Trial& t) {
    t.attempt = 3;
    t.drained_attempts = 1;
    return absl::OkStatus();
  }));
  Measurement first = MakeMeasurement(10, 0.1);
  first.attempt = 2;
  Measurement final_one = MakeMeasurement(20, 0.2);
  final_one.attempt = 3;
  ASSERT_OK(store_->AddMeasurement("mnist", 1, first));
  ASSERT_OK(store_->AddMeasurement("mnist", 1, final_one));
  ASSERT_OK(store_->UpdateTrial("mnist", 1, [&](Trial& t) {
    t.final_measurement = final_one;
    return t.TransitionTo(TrialState::kSucceeded, Timestamp{});
  }));

  ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("mnist", 1));
  EXPECT_EQ(trial.attempt, 3);
  EXPECT_EQ(trial.drained_attempts, 1);
  EXPECT_THAT(trial.measurements, ElementsAre(first, final_one));
  EXPECT_EQ(trial.final_measurement, final_one);
  EXPECT_THAT(store_->ListMeasurements("mnist", 1, 1),
              IsOkAndHolds(ElementsAre(final_one)));
}

TEST_P(StoreConformanceTest, TrialSummariesAreTheTrialsWithoutTheirCurves) {
  CreateStudyWithActiveAndDoneTrial("mnist");
  ASSERT_OK(store_->AddMeasurement("mnist", 1, MakeMeasurement(10, 0.1)));

  ASSERT_OK_AND_ASSIGN(std::vector<Trial> full, store_->ListTrials("mnist"));
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> summaries,
                       store_->ListTrialSummaries("mnist"));
  ASSERT_THAT(summaries, SizeIs(2));
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_THAT(summaries[i].measurements, IsEmpty());
    full[i].measurements.clear();
    EXPECT_EQ(summaries[i], full[i]);
  }
  EXPECT_EQ(summaries[1].final_measurement, MakeMeasurement(5, 0.9));
  EXPECT_THAT(store_->ListTrialSummaries("nope"),
              StatusIs(StatusCode::kNotFound, "study \"nope\" not found"));
}

TEST_P(StoreConformanceTest, ATrialSummaryIsTheTrialWithoutItsCurve) {
  CreateStudyWithActiveAndDoneTrial("mnist");
  ASSERT_OK(store_->AddMeasurement("mnist", 1, MakeMeasurement(10, 0.1)));

  ASSERT_OK_AND_ASSIGN(std::vector<Trial> summaries,
                       store_->ListTrialSummaries("mnist"));
  for (const Trial& summary : summaries) {
    EXPECT_THAT(store_->GetTrialSummary("mnist", summary.number),
                IsOkAndHolds(summary));
  }
  EXPECT_THAT(
      store_->GetTrialSummary("mnist", 9),
      StatusIs(StatusCode::kNotFound, "study \"mnist\": trial 9 not found"));
  EXPECT_THAT(store_->GetTrialSummary("nope", 1),
              StatusIs(StatusCode::kNotFound, "study \"nope\" not found"));
}

TEST_P(StoreConformanceTest, TrialStatusesAreNumberStateAndEndTime) {
  CreateStudyWithActiveAndDoneTrial("mnist");

  ASSERT_OK_AND_ASSIGN(std::vector<Trial> full, store_->ListTrials("mnist"));
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  ASSERT_OK_AND_ASSIGN(TrialStatuses listed,
                       store_->ListTrialStatuses("mnist"));
  EXPECT_EQ(listed.study_create_time, study.create_time);
  const std::vector<TrialStatus>& statuses = listed.trials;
  ASSERT_THAT(statuses, SizeIs(2));
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(statuses[i], (TrialStatus{.number = full[i].number,
                                        .state = full[i].state,
                                        .end_time = full[i].end_time}));
  }
  EXPECT_EQ(statuses[1].state, TrialState::kSucceeded);
  EXPECT_TRUE(statuses[1].end_time.has_value());
  EXPECT_THAT(store_->ListTrialStatuses("nope"),
              StatusIs(StatusCode::kNotFound, "study \"nope\" not found"));
  ASSERT_OK(store_->CreateStudy(MakeStudy("empty")));
  ASSERT_OK_AND_ASSIGN(StudyRecord empty, store_->GetStudy("empty"));
  ASSERT_OK_AND_ASSIGN(TrialStatuses none, store_->ListTrialStatuses("empty"));
  EXPECT_EQ(none.study_create_time, empty.create_time);
  EXPECT_THAT(none.trials, IsEmpty());
}

TEST_P(StoreConformanceTest, ListMeasurementsSkipsTheFirstOnes) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  for (int step = 1; step <= 3; ++step) {
    ASSERT_OK(
        store_->AddMeasurement("mnist", 1, MakeMeasurement(step, 0.1 * step)));
  }
  ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("mnist", 1));
  ASSERT_OK_AND_ASSIGN(std::vector<Measurement> all,
                       store_->ListMeasurements("mnist", 1, 0));
  EXPECT_EQ(all, trial.measurements);
  ASSERT_OK_AND_ASSIGN(std::vector<Measurement> tail,
                       store_->ListMeasurements("mnist", 1, 2));
  ASSERT_THAT(tail, SizeIs(1));
  EXPECT_EQ(tail[0], trial.measurements[2]);
  EXPECT_THAT(store_->ListMeasurements("mnist", 1, 3), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->ListMeasurements("mnist", 1, 10),
              IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->ListMeasurements("mnist", 1, -1),
              StatusIs(StatusCode::kInvalidArgument,
                       "measurements to skip must be >= 0, got -1"));
  EXPECT_THAT(store_->ListMeasurements("mnist", 9, 0),
              StatusIs(StatusCode::kNotFound, HasSubstr("9")));
  EXPECT_THAT(store_->ListMeasurements("nope", 1, 0),
              StatusIs(StatusCode::kNotFound, "study \"nope\" not found"));
}

TEST_P(StoreConformanceTest, AddMeasurementStampsTimeWhenUnset) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  clock_.Advance(std::chrono::seconds(3));
  Measurement m;
  m.step = 7;
  m.metrics = {{"accuracy", 0.5}};
  ASSERT_OK(store_->AddMeasurement("mnist", 1, m));
  ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("mnist", 1));
  ASSERT_THAT(trial.measurements, SizeIs(1));
  EXPECT_EQ(trial.measurements[0].time, clock_.Now());
}

TEST_P(StoreConformanceTest, UpdateTrialMovesThroughLegalStatesAndStampsTimes) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.1)}, std::nullopt));
  const Timestamp created = clock_.Now();

  clock_.Advance(std::chrono::seconds(5));
  const Timestamp started = clock_.Now();
  // A plain state assignment: the store stamps start_time.
  ASSERT_OK_AND_ASSIGN(Trial active,
                       store_->UpdateTrial("mnist", 1, [](Trial& t) {
                         t.state = TrialState::kActive;
                         t.client_id = "client-a";
                         return absl::OkStatus();
                       }));
  EXPECT_EQ(active.start_time, started);
  EXPECT_EQ(active.create_time, created);
  EXPECT_EQ(active.client_id, "client-a");

  clock_.Advance(std::chrono::seconds(60));
  ASSERT_OK_AND_ASSIGN(Trial done,
                       store_->UpdateTrial("mnist", 1, [](Trial& t) {
                         t.state = TrialState::kSucceeded;
                         t.final_measurement = MakeMeasurement(100, 0.95);
                         t.stopped_early = true;
                         return absl::OkStatus();
                       }));
  EXPECT_EQ(done.end_time, clock_.Now());
  EXPECT_EQ(done.start_time, started);
  ASSERT_OK_AND_ASSIGN(Trial stored, store_->GetTrial("mnist", 1));
  EXPECT_EQ(stored, done);
  EXPECT_TRUE(stored.stopped_early);
  EXPECT_EQ(stored.final_measurement, MakeMeasurement(100, 0.95));
}

TEST_P(StoreConformanceTest, IllegalTrialTransitionChangesNothing) {
  CreateStudyWithTrial("mnist", TrialState::kSucceeded);
  ASSERT_OK_AND_ASSIGN(Trial before, store_->GetTrial("mnist", 1));
  const size_t events_before = AllEvents().size();

  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.state = TrialState::kActive;
                                    t.reason = "restarted";
                                    return absl::OkStatus();
                                  }),
              StatusIs(StatusCode::kFailedPrecondition,
                       "study \"mnist\": trial 1: trial cannot go from "
                       "SUCCEEDED to ACTIVE (it has already ended)"));
  EXPECT_THAT(store_->GetTrial("mnist", 1), IsOkAndHolds(before));
  EXPECT_THAT(AllEvents(), SizeIs(events_before));
}

TEST_P(StoreConformanceTest, MutateErrorIsReturnedAndChangesNothing) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK_AND_ASSIGN(Trial before, store_->GetTrial("mnist", 1));
  const size_t events_before = AllEvents().size();

  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.state = TrialState::kFailed;
                                    t.reason = "half-done";
                                    return absl::AbortedError("changed mind");
                                  }),
              StatusIs(StatusCode::kAborted, "changed mind"));
  EXPECT_THAT(store_->GetTrial("mnist", 1), IsOkAndHolds(before));
  EXPECT_THAT(AllEvents(), SizeIs(events_before));
}

TEST_P(StoreConformanceTest, UpdateTrialCannotChangeNumberOrMeasurements) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddMeasurement("mnist", 1, MakeMeasurement(1, 0.5)));
  ASSERT_OK_AND_ASSIGN(Trial before, store_->GetTrial("mnist", 1));

  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.number = 5;
                                    return absl::OkStatus();
                                  }),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": trial 1: the trial number cannot be "
                       "changed (to 5)"));
  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.measurements.clear();
                                    return absl::OkStatus();
                                  }),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": trial 1: intermediate measurements "
                       "cannot be changed by an update; use AddMeasurement"));
  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.create_time = FromUnixMicros(1);
                                    return absl::OkStatus();
                                  }),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": trial 1: the create time cannot be "
                       "changed"));
  EXPECT_THAT(store_->GetTrial("mnist", 1), IsOkAndHolds(before));
}

TEST_P(StoreConformanceTest, UpdateWithoutStateChangeLogsNoEvent) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  const size_t events_before = AllEvents().size();
  ASSERT_OK(store_->UpdateTrial("mnist", 1, [](Trial& t) {
    t.client_id = "other";
    return absl::OkStatus();
  }));
  EXPECT_THAT(AllEvents(), SizeIs(events_before));
  EXPECT_EQ(store_->GetTrial("mnist", 1)->client_id, "other");
}

TEST_P(StoreConformanceTest, MeasurementsOnlyForActiveOrStoppingTrials) {
  CreateStudyWithTrial("requested", TrialState::kRequested);
  CreateStudyWithTrial("stopping", TrialState::kStopping);
  CreateStudyWithTrial("succeeded", TrialState::kSucceeded);

  EXPECT_THAT(store_->AddMeasurement("requested", 1, MakeMeasurement(1, 0.5)),
              StatusIs(StatusCode::kFailedPrecondition,
                       "study \"requested\": trial 1 is REQUESTED; "
                       "measurements can be added only to ACTIVE or STOPPING "
                       "trials"));
  EXPECT_THAT(store_->AddMeasurement("succeeded", 1, MakeMeasurement(1, 0.5)),
              StatusIs(StatusCode::kFailedPrecondition,
                       "study \"succeeded\": trial 1 is SUCCEEDED; "
                       "measurements can be added only to ACTIVE or STOPPING "
                       "trials"));
  EXPECT_OK(store_->AddMeasurement("stopping", 1, MakeMeasurement(1, 0.5)));
  EXPECT_THAT(store_->GetTrial("requested", 1)->measurements, IsEmpty());
  EXPECT_THAT(store_->GetTrial("succeeded", 1)->measurements, IsEmpty());
  EXPECT_THAT(store_->GetTrial("stopping", 1)->measurements, SizeIs(1));
}

// Reports from several threads at once, through AddMeasurementAsync: each
// is answered exactly once, a refused one (an ended trial) with its own
// error, and every accepted one is stored in its trial's report order.
TEST_P(StoreConformanceTest, ConcurrentMeasurementsAreEachAnsweredOnce) {
  constexpr int kThreads = 4;
  constexpr int kSteps = 40;
  CreateStudyWithTrial("ended", TrialState::kSucceeded);
  ASSERT_OK(store_->CreateStudy(MakeStudy("live")));
  std::vector<Trial> trials(kThreads, MakeTrial(0.1));
  for (Trial& trial : trials) trial.state = TrialState::kActive;
  ASSERT_OK(store_->AddTrials("live", trials, std::nullopt).status());
  Mutex mu;
  CondVar answered;
  int accepted = 0, refused = 0, other = 0;  // Under mu.
  auto answer = [&](absl::Status status) {
    MutexLock lock(&mu);
    ++(status.ok()                          ? accepted
       : absl::IsFailedPrecondition(status) ? refused
                                            : other);
    answered.SignalAll();
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int step = 1; step <= kSteps; ++step) {
        store_->AddMeasurementAsync("live", t + 1,
                                    MakeMeasurement(step, 0.01 * step), answer);
        if (step % 10 == 0) {
          store_->AddMeasurementAsync("ended", 1, MakeMeasurement(step, 1),
                                      answer);
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  {
    MutexLock lock(&mu);
    const MonotonicTime deadline =
        DefaultEnv().MonotonicNow() + std::chrono::seconds(30);
    while (accepted + refused + other < kThreads * (kSteps + kSteps / 10) &&
           DefaultEnv().WaitUntil(&answered, &mu, deadline)) {
    }
    EXPECT_EQ(accepted, kThreads * kSteps);
    EXPECT_EQ(refused, kThreads * kSteps / 10);
    EXPECT_EQ(other, 0);
  }
  for (int t = 1; t <= kThreads; ++t) {
    ASSERT_OK_AND_ASSIGN(Trial trial, store_->GetTrial("live", t));
    ASSERT_THAT(trial.measurements, SizeIs(kSteps));
    for (int step = 1; step <= kSteps; ++step) {
      EXPECT_EQ(trial.measurements[step - 1].step, step);
    }
  }
  EXPECT_THAT(store_->GetTrial("ended", 1)->measurements, IsEmpty());
}

TEST_P(StoreConformanceTest, MeasurementsWithNaNOrInfAreInvalid) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  EXPECT_THAT(
      store_->AddMeasurement("mnist", 1, MakeMeasurement(3, std::nan(""))),
      StatusIs(StatusCode::kInvalidArgument,
               "study \"mnist\": trial 1: metric \"accuracy\" at step 3 must "
               "be a finite number, got nan"));
  EXPECT_THAT(store_->AddMeasurement("mnist", 1, MakeMeasurement(4, INFINITY)),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("metric \"accuracy\" at step 4 must be a "
                                 "finite number, got inf")));
  EXPECT_THAT(store_->AddMeasurement("mnist", 1, MakeMeasurement(-1, 0.5)),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": trial 1: measurement step must be "
                       ">= 0, got -1"));
  EXPECT_THAT(store_->UpdateTrial("mnist", 1,
                                  [](Trial& t) {
                                    t.final_measurement =
                                        MakeMeasurement(5, -INFINITY);
                                    return absl::OkStatus();
                                  }),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("study \"mnist\": trial 1: final "
                                 "measurement: metric \"accuracy\"")));
  EXPECT_THAT(store_->GetTrial("mnist", 1)->measurements, IsEmpty());
}

// --- Define-by-run parameters (AddTrialParameter) ---

// A root parameter none of MakeStudy's has: what a trial's suggest_float
// of a new name joins the space with.
ParameterSpec Dropout(double max_value = 0.5) {
  ParameterSpec dropout;
  dropout.name = "dropout";
  dropout.type = ParameterType::kDouble;
  dropout.min_value = 0;
  dropout.max_value = max_value;
  dropout.scale = ScaleType::kLinear;
  return dropout;
}

// Dropout() as the space keeps it once trial `number` joined it.
ParameterSpec DropoutJoinedAt(int64_t number) {
  ParameterSpec dropout = Dropout();
  dropout.first_trial = number;
  return dropout;
}

std::vector<Event> SpaceEvents(const std::vector<Event>& events) {
  std::vector<Event> space;
  for (const Event& event : events) {
    if (event.kind == "study_space") space.push_back(event);
  }
  return space;
}

// The SQL stores keep first_trial through the spec's stored form
// ("firstTrial" of StudySpecToJson).
TEST_P(StoreConformanceTest, AddTrialParameterGrowsTheSpaceAndSetsTheValue) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.02)}, std::nullopt));
  ASSERT_OK_AND_ASSIGN(Trial before, store_->GetTrial("mnist", 2));

  ASSERT_OK_AND_ASSIGN(Trial added,
                       store_->AddTrialParameter("mnist", 2, Dropout(),
                                                 ParameterValue::Double(0.25)));
  Trial expected = before;
  expected.parameters["dropout"] = ParameterValue::Double(0.25);
  EXPECT_EQ(added, expected);
  EXPECT_THAT(store_->GetTrial("mnist", 2), IsOkAndHolds(expected));
  EXPECT_FALSE(store_->GetTrial("mnist", 1)->parameters.contains("dropout"));

  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  const std::vector<ParameterSpec> config =
      MakeStudy("mnist").spec.search_space.parameters();
  std::vector<ParameterSpec> grown = config;
  grown.push_back(DropoutJoinedAt(2));
  EXPECT_EQ(study.spec.search_space.parameters(), grown);
  StudyRecord unchanged = study;
  unchanged.spec.search_space = SearchSpace(config);
  StudyRecord created = MakeStudy("mnist");
  created.create_time = study.create_time;
  EXPECT_EQ(unchanged, created);
}

TEST_P(StoreConformanceTest, AParameterJoinsOnceAndLaterTrialsTakeIt) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.02), MakeTrial(0.03)},
                              std::nullopt));
  ASSERT_OK(store_->UpdateTrial("mnist", 3, [](Trial& t) {
    t.state = TrialState::kActive;
    return absl::OkStatus();
  }));
  const size_t events_before = AllEvents().size();
  const Timestamp joined = clock_.Now();
  ASSERT_OK(store_->AddTrialParameter("mnist", 2, Dropout(),
                                      ParameterValue::Double(0.1)));
  clock_.Advance(std::chrono::seconds(1));
  // Whatever first_trial the caller's spec has, the space's stays.
  ASSERT_OK_AND_ASSIGN(Trial third,
                       store_->AddTrialParameter("mnist", 3, DropoutJoinedAt(3),
                                                 ParameterValue::Double(0.4)));
  EXPECT_EQ(third.parameters.at("dropout"), ParameterValue::Double(0.4));
  EXPECT_EQ(third.state, TrialState::kActive);
  EXPECT_THAT(store_->GetTrial("mnist", 3), IsOkAndHolds(third));

  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  ASSERT_THAT(study.spec.search_space.parameters(), SizeIs(5));
  EXPECT_EQ(study.spec.search_space.parameters().back(), DropoutJoinedAt(2));
  const std::vector<Event> events = AllEvents();
  ASSERT_THAT(events, SizeIs(events_before + 1));
  const Event& event = events.back();
  EXPECT_EQ(event.kind, "study_space");
  EXPECT_EQ(event.time, joined);
  EXPECT_EQ(event.study, "mnist");
  EXPECT_EQ(event.job_id, "");
  EXPECT_EQ(event.trial_number, 2);
  EXPECT_EQ(event.detail, "dropout joined at trial 2");
}

TEST_P(StoreConformanceTest, ARetriedAddTrialParameterChangesNothing) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK_AND_ASSIGN(Trial added,
                       store_->AddTrialParameter("mnist", 1, Dropout(),
                                                 ParameterValue::Double(0.1)));
  ASSERT_OK_AND_ASSIGN(StudyRecord study, store_->GetStudy("mnist"));
  const std::vector<Event> events = AllEvents();

  // The first answer was lost; the retry (here with another value) finds
  // the trial as the first call left it.
  EXPECT_THAT(store_->AddTrialParameter("mnist", 1, Dropout(),
                                        ParameterValue::Double(0.3)),
              IsOkAndHolds(added));
  // A parameter of the config the trial has: as it is.
  ParameterSpec lr = MakeStudy("mnist").spec.search_space.parameters()[0];
  EXPECT_THAT(
      store_->AddTrialParameter("mnist", 1, lr, ParameterValue::Double(0.05)),
      IsOkAndHolds(added));
  EXPECT_THAT(store_->GetTrial("mnist", 1), IsOkAndHolds(added));
  EXPECT_THAT(store_->GetStudy("mnist"), IsOkAndHolds(study));
  EXPECT_EQ(AllEvents(), events);
  EXPECT_THAT(SpaceEvents(events), SizeIs(1));
}

TEST_P(StoreConformanceTest, AnotherSpecOfTheSameNameIsRefused) {
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.02)}, std::nullopt));
  ASSERT_OK(store_->AddTrialParameter("mnist", 1, Dropout(),
                                      ParameterValue::Double(0.1)));
  const Snapshot before = Take("mnist", 2);

  EXPECT_THAT(store_->AddTrialParameter("mnist", 2, Dropout(0.9),
                                        ParameterValue::Double(0.7)),
              StatusIs(StatusCode::kFailedPrecondition,
                       "study \"mnist\": trial 2: parameter \"dropout\" "
                       "differs from the space's: maxValue 0.5 (space) vs "
                       "0.9 (given)"));
  // A config's parameter, given as another type: refused even though the
  // trial has a value of it.
  ParameterSpec layers = Dropout();
  layers.name = "layers";
  EXPECT_THAT(store_->AddTrialParameter("mnist", 2, layers,
                                        ParameterValue::Double(0.1)),
              StatusIs(StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("parameter \"layers\" differs"),
                             HasSubstr("type INTEGER (space) vs DOUBLE "
                                       "(given)"),
                             HasSubstr("maxValue 8 (space) vs 0.5 (given)"))));
  ExpectUnchanged(before);
}

TEST_P(StoreConformanceTest, AnEndedTrialTakesNoNewParameter) {
  CreateStudyWithTrial("mnist", TrialState::kSucceeded);
  const Snapshot before = Take("mnist", 1);
  EXPECT_THAT(store_->AddTrialParameter("mnist", 1, Dropout(),
                                        ParameterValue::Double(0.1)),
              StatusIs(StatusCode::kFailedPrecondition,
                       "study \"mnist\": trial 1 is SUCCEEDED; only a "
                       "REQUESTED, ACTIVE or STOPPING trial takes a new "
                       "parameter"));
  ExpectUnchanged(before);
}

TEST_P(StoreConformanceTest, AddTrialParameterOnAMissingStudyOrTrial) {
  EXPECT_THAT(store_->AddTrialParameter("nope", 1, Dropout(),
                                        ParameterValue::Double(0.1)),
              StatusIs(StatusCode::kNotFound, "study \"nope\" not found"));
  CreateStudyWithTrial("mnist", TrialState::kActive);
  EXPECT_THAT(
      store_->AddTrialParameter("mnist", 7, Dropout(),
                                ParameterValue::Double(0.1)),
      StatusIs(StatusCode::kNotFound, "study \"mnist\": trial 7 not found"));
  EXPECT_THAT(SpaceEvents(AllEvents()), IsEmpty());
  EXPECT_THAT(store_->GetStudy("mnist")->spec.search_space.parameters(),
              SizeIs(4));
}

TEST_P(StoreConformanceTest, AddTrialParameterRefusesWhatCannotJoin) {
  CreateStudyWithTrial("mnist", TrialState::kRequested);
  const Snapshot before = Take("mnist", 1);

  EXPECT_THAT(store_->AddTrialParameter("mnist", 1, Dropout(),
                                        ParameterValue::Double(0.9)),
              StatusIs(StatusCode::kInvalidArgument,
                       "study \"mnist\": trial 1: parameter \"dropout\": "
                       "value must be in [0, 0.5], got 0.9"));
  EXPECT_THAT(store_->AddTrialParameter("mnist", 1, Dropout(),
                                        ParameterValue::Categorical("x")),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("parameter \"dropout\": DOUBLE needs a "
                                 "floating-point value, got x")));
  ParameterSpec child = Dropout();
  child.condition =
      ParentCondition{.parent = "cell", .categorical_values = {"GRU"}};
  EXPECT_THAT(
      store_->AddTrialParameter("mnist", 1, child, ParameterValue::Double(0.1)),
      StatusIs(StatusCode::kInvalidArgument,
               "study \"mnist\": trial 1: parameter \"dropout\" has "
               "a condition; only a root parameter joins a space"));
  ParameterSpec backwards = Dropout();
  backwards.min_value = 1;  // Above its maxValue.
  EXPECT_THAT(store_->AddTrialParameter("mnist", 1, backwards,
                                        ParameterValue::Double(0.1)),
              StatusIs(StatusCode::kInvalidArgument,
                       HasSubstr("study \"mnist\": trial 1: parameter "
                                 "\"dropout\" cannot join the space: ")));
  ExpectUnchanged(before);
}

// --- Jobs ---

JobRecord MakeJob(std::string job_id) {
  JobRecord job;
  job.job_id = std::move(job_id);
  job.training_input_json = R"({"scaleTier":"BASIC","args":["--epochs=3"]})";
  job.study_name = job.job_id;
  return job;
}

TEST_P(StoreConformanceTest, CreatesGetsAndListsJobs) {
  ASSERT_OK(store_->CreateJob(MakeJob("job_b")));
  clock_.Advance(std::chrono::seconds(1));
  JobRecord expected = MakeJob("job_a");
  expected.slurm = {.partition = "gpu",
                    .account = "ml",
                    .time = "1-12:00",
                    .options = {"--qos=high", "-N2"}};
  expected.labels = {{"team", "vision"}, {"owner", "ana"}, {"draft", ""}};
  ASSERT_OK(store_->CreateJob(expected));

  expected.create_time = clock_.Now();
  EXPECT_THAT(store_->GetJob("job_a"), IsOkAndHolds(expected));
  ASSERT_OK_AND_ASSIGN(std::vector<JobRecord> jobs, store_->ListJobs());
  ASSERT_THAT(jobs, SizeIs(2));
  EXPECT_EQ(jobs[0].job_id, "job_b");
  EXPECT_EQ(jobs[1], expected);

  EXPECT_THAT(
      store_->CreateJob(MakeJob("job_a")),
      StatusIs(StatusCode::kAlreadyExists, "job \"job_a\" already exists"));
  EXPECT_THAT(store_->GetJob("job_x"),
              StatusIs(StatusCode::kNotFound, "job \"job_x\" not found"));
  EXPECT_THAT(
      store_->UpdateJob("job_x", [](JobRecord&) { return absl::OkStatus(); }),
      StatusIs(StatusCode::kNotFound, "job \"job_x\" not found"));
  EXPECT_THAT(
      store_->CreateJob(MakeJob("")),
      StatusIs(StatusCode::kInvalidArgument, "a job needs an ID, got \"\""));
}

TEST_P(StoreConformanceTest, UpdateJobFollowsTheJobStateMachine) {
  ASSERT_OK(store_->CreateJob(MakeJob("mnist_1")));
  auto move_to = [&](JobState to) {
    return store_->UpdateJob("mnist_1", [to](JobRecord& job) {
      job.state = to;
      return absl::OkStatus();
    });
  };
  ASSERT_OK(move_to(JobState::kPreparing));
  clock_.Advance(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(JobRecord running, move_to(JobState::kRunning));
  EXPECT_EQ(running.start_time, clock_.Now());
  clock_.Advance(std::chrono::seconds(2));
  ASSERT_OK_AND_ASSIGN(JobRecord failed,
                       store_->UpdateJob("mnist_1", [](JobRecord& job) {
                         job.state = JobState::kFailed;
                         job.error_message = "too many failed trials";
                         return absl::OkStatus();
                       }));
  EXPECT_EQ(failed.end_time, clock_.Now());
  EXPECT_THAT(store_->GetJob("mnist_1"), IsOkAndHolds(failed));

  EXPECT_THAT(move_to(JobState::kRunning),
              StatusIs(StatusCode::kFailedPrecondition,
                       "job \"mnist_1\": job cannot go from FAILED to RUNNING "
                       "(it has already ended)"));
  EXPECT_THAT(store_->UpdateJob("mnist_1",
                                [](JobRecord& job) {
                                  job.job_id = "other";
                                  return absl::OkStatus();
                                }),
              StatusIs(StatusCode::kInvalidArgument,
                       "job \"mnist_1\": the job ID cannot be changed (to "
                       "\"other\")"));
  EXPECT_THAT(store_->UpdateJob("mnist_1",
                                [](JobRecord& job) {
                                  job.error_message = "overwritten";
                                  return absl::CancelledError("no");
                                }),
              StatusIs(StatusCode::kCancelled, "no"));
  EXPECT_THAT(store_->GetJob("mnist_1"), IsOkAndHolds(failed));
}

// --- Event log ---

Event ExpectedEvent(int64_t id, Timestamp time, std::string kind,
                    std::string study, std::string job_id, int64_t trial_number,
                    std::string detail) {
  return Event{.id = id,
               .time = time,
               .kind = std::move(kind),
               .study = std::move(study),
               .job_id = std::move(job_id),
               .trial_number = trial_number,
               .detail = std::move(detail)};
}

TEST_P(StoreConformanceTest, EveryChangeAppendsItsEvent) {
  const Timestamp t0 = clock_.Now();
  const auto tick = [&] {
    clock_.Advance(std::chrono::microseconds(1));
    return clock_.Now();
  };
  ASSERT_OK(store_->CreateJob(MakeJob("mnist")));
  const Timestamp t1 = tick();
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  const Timestamp t2 = tick();
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.1), MakeTrial(0.2)},
                              std::nullopt));
  const Timestamp t3 = tick();
  ASSERT_OK(store_->UpdateTrial("mnist", 2, [](Trial& t) {
    t.state = TrialState::kActive;
    return absl::OkStatus();
  }));
  const Timestamp t4 = tick();
  ASSERT_OK(store_->AddMeasurement("mnist", 2, MakeMeasurement(100, 0.5)));
  const Timestamp t5 = tick();
  ASSERT_OK(store_->UpdateTrial("mnist", 2, [](Trial& t) {
    t.state = TrialState::kSucceeded;
    return absl::OkStatus();
  }));
  const Timestamp t6 = tick();
  ASSERT_OK(store_->UpdateJob("mnist", [](JobRecord& job) {
    job.state = JobState::kPreparing;
    return absl::OkStatus();
  }));
  const Timestamp t7 = tick();
  ASSERT_OK(store_->SetStudyState("mnist", StudyState::kCompleted, "done"));
  const Timestamp t8 = tick();
  ASSERT_OK(store_->DeleteStudy("mnist"));

  EXPECT_THAT(
      AllEvents(),
      ElementsAre(
          ExpectedEvent(1, t0, "job_created", "mnist", "mnist", 0, "QUEUED"),
          ExpectedEvent(2, t1, "study_created", "mnist", "", 0, ""),
          ExpectedEvent(3, t2, "trial_created", "mnist", "", 1, "REQUESTED"),
          ExpectedEvent(4, t2, "trial_created", "mnist", "", 2, "REQUESTED"),
          ExpectedEvent(5, t3, "trial_state", "mnist", "", 2,
                        "REQUESTED -> ACTIVE"),
          ExpectedEvent(6, t4, "measurement", "mnist", "", 2, "step 100"),
          ExpectedEvent(7, t5, "trial_state", "mnist", "", 2,
                        "ACTIVE -> SUCCEEDED"),
          ExpectedEvent(8, t6, "job_state", "mnist", "mnist", 0,
                        "QUEUED -> PREPARING"),
          ExpectedEvent(9, t7, "study_state", "mnist", "", 0,
                        "ACTIVE -> COMPLETED"),
          ExpectedEvent(10, t8, "study_deleted", "mnist", "", 0, "")));
}

TEST_P(StoreConformanceTest, DeleteJobRemovesTheJobAndItsStudy) {
  ASSERT_OK(store_->CreateJob(MakeJob("mnist")));
  CreateStudyWithTrial("mnist", TrialState::kActive);
  ASSERT_OK(store_->AddMeasurement("mnist", 1, MakeMeasurement(1, 0.5)));
  ASSERT_OK(store_->AddTrials("mnist", {MakeTrial(0.02)}, "cursor=2"));
  ASSERT_OK(store_->SetNote("mnist", 1, "a note", {}));
  ASSERT_OK(store_->CreateJob(MakeJob("other")));
  for (JobState to :
       {JobState::kPreparing, JobState::kRunning, JobState::kSucceeded}) {
    ASSERT_OK(store_->UpdateJob("mnist", [to](JobRecord& job) {
      job.state = to;
      return absl::OkStatus();
    }));
  }

  ASSERT_OK(store_->DeleteJob("mnist"));
  EXPECT_THAT(store_->GetJob("mnist"),
              StatusIs(StatusCode::kNotFound, "job \"mnist\" not found"));
  EXPECT_THAT(store_->GetStudy("mnist"),
              StatusIs(StatusCode::kNotFound, HasSubstr("mnist")));
  ASSERT_OK_AND_ASSIGN(std::vector<JobRecord> jobs, store_->ListJobs());
  ASSERT_THAT(jobs, SizeIs(1));
  EXPECT_EQ(jobs[0].job_id, "other");
  const std::vector<Event> events = AllEvents();
  ASSERT_GE(events.size(), 2u);
  EXPECT_EQ(events[events.size() - 2],
            ExpectedEvent(events[events.size() - 2].id, clock_.Now(),
                          "study_deleted", "mnist", "", 0, ""));
  EXPECT_EQ(events.back(),
            ExpectedEvent(events.back().id, clock_.Now(), "job_deleted",
                          "mnist", "mnist", 0, "SUCCEEDED"));

  // Nothing of it is left under its names: made again, both start empty.
  ASSERT_OK(store_->CreateJob(MakeJob("mnist")));
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  EXPECT_THAT(store_->ListTrials("mnist"), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->GetDesignerState("mnist"), IsOkAndHolds(""));
  EXPECT_THAT(store_->ListEvents(events.back().id, 1000),
              IsOkAndHolds(SizeIs(2)));
  EXPECT_THAT(store_->DeleteJob("nope"),
              StatusIs(StatusCode::kNotFound, "job \"nope\" not found"));
}

TEST_P(StoreConformanceTest, DeleteJobRefusesAJobThatHasNotEnded) {
  ASSERT_OK(store_->CreateJob(MakeJob("mnist")));
  CreateStudyWithTrial("mnist", TrialState::kActive);
  EXPECT_THAT(store_->DeleteJob("mnist"),
              StatusIs(StatusCode::kFailedPrecondition,
                       "job \"mnist\" is QUEUED: only an ended job is "
                       "deleted; cancel it first"));
  for (JobState to :
       {JobState::kPreparing, JobState::kRunning, JobState::kCancelling}) {
    ASSERT_OK(store_->UpdateJob("mnist", [to](JobRecord& job) {
      job.state = to;
      return absl::OkStatus();
    }));
    EXPECT_THAT(store_->DeleteJob("mnist"),
                StatusIs(StatusCode::kFailedPrecondition,
                         HasSubstr(std::string(ToString(to)))));
  }
  EXPECT_OK(store_->GetJob("mnist").status());
  EXPECT_THAT(store_->ListTrials("mnist"), IsOkAndHolds(SizeIs(1)));
}

// A job that ended before it made its study (refused at start) goes alone.
TEST_P(StoreConformanceTest, DeleteJobWithoutAStudy) {
  ASSERT_OK(store_->CreateJob(MakeJob("early")));
  ASSERT_OK(store_->UpdateJob("early", [](JobRecord& job) {
    job.state = JobState::kFailed;
    job.error_message = "no such trainer";
    return absl::OkStatus();
  }));
  ASSERT_OK(store_->DeleteJob("early"));
  EXPECT_THAT(store_->ListJobs(), IsOkAndHolds(IsEmpty()));
  const std::vector<Event> events = AllEvents();
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().kind, "job_deleted");
  EXPECT_NE(events[events.size() - 2].kind, "study_deleted");
}

TEST_P(StoreConformanceTest, ReplicaEventsAreLoggedForTheJobsStudy) {
  JobRecord job = MakeJob("mnist");
  job.study_name = "mnist_study";
  ASSERT_OK(store_->CreateJob(job));
  const Timestamp t1 = clock_.Now();
  ASSERT_OK(store_->RecordReplicaEvent("mnist", 3,
                                       "worker-1 exited with code 1; "
                                       "restart 1 of 5"));
  EXPECT_THAT(
      AllEvents(),
      ElementsAre(::testing::_,
                  ExpectedEvent(2, t1, "replica", "mnist_study", "mnist", 3,
                                "worker-1 exited with code 1; "
                                "restart 1 of 5")));
  EXPECT_THAT(store_->RecordReplicaEvent("nope", 1, "master-0 started"),
              StatusIs(StatusCode::kNotFound, "job \"nope\" not found"));
}

TEST_P(StoreConformanceTest, ListEventsPagesAfterAnId) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  std::vector<Trial> trials(6, MakeTrial(0.1));
  ASSERT_OK(store_->AddTrials("mnist", trials, std::nullopt));  // Events 2-7.

  std::vector<int64_t> trial_numbers;
  int64_t after = 0;
  int pages = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(std::vector<Event> page, store_->ListEvents(after, 3));
    if (page.empty()) break;
    ++pages;
    EXPECT_LE(page.size(), 3u);
    for (const Event& event : page) {
      EXPECT_GT(event.id, after);
      after = event.id;
      if (event.kind == "trial_created") {
        trial_numbers.push_back(event.trial_number);
      }
    }
  }
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(trial_numbers, ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(store_->ListEvents(7, 10), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(store_->ListEvents(0, 0),
              StatusIs(StatusCode::kInvalidArgument,
                       "event limit must be positive, got 0"));
}

TEST_P(StoreConformanceTest, SetStudyStateLogsOnlyRealStateChanges) {
  ASSERT_OK(store_->CreateStudy(MakeStudy("mnist")));
  ASSERT_OK(store_->SetStudyState("mnist", StudyState::kActive, "still going"));
  ASSERT_OK(store_->SetStudyState("mnist", StudyState::kCompleted, "done"));
  ASSERT_OK(store_->SetStudyState("mnist", StudyState::kCompleted, "done"));
  std::vector<Event> events = AllEvents();
  ASSERT_THAT(events, SizeIs(2));
  EXPECT_EQ(events[1].detail, "ACTIVE -> COMPLETED");
  EXPECT_EQ(store_->GetStudy("mnist")->reason, "done");
}

// --- Exact round trips ---

TEST_P(StoreConformanceTest, DoublesAndTimestampsRoundTripExactly) {
  const std::vector<double> values = {0.1,
                                      1.0 / 3.0,
                                      2.0 / 3.0,
                                      1e-300,
                                      5e-324 /* smallest denormal */,
                                      DBL_MAX,
                                      -DBL_MIN,
                                      123456789.123456789,
                                      3.0,
                                      -0.0,
                                      0.30000000000000004};

  StudyRecord study = MakeStudy("exact");
  study.seed = std::numeric_limits<uint64_t>::max();
  study.spec.seed = std::numeric_limits<uint64_t>::max() - 1;
  study.spec.max_failed_trials = 7;
  study.spec.enable_early_stopping = true;
  study.spec.resume_previous_job_id = "mnist_20261120";
  study.spec.SetSingleMetric(study.spec.metric_tag(), Goal::kMinimize);
  study.create_time = FromUnixMicros(-123'456'789);  // Before 1970.
  std::vector<ParameterSpec> params = study.spec.search_space.parameters();
  params[0].min_value = 1.0 / 3.0;
  params[0].max_value = DBL_MAX;
  params[2].discrete_values = {5e-324, 0.1, 1.0 / 3.0};
  study.spec.search_space = SearchSpace(params);
  ASSERT_OK(store_->CreateStudy(study));
  EXPECT_THAT(store_->GetStudy("exact"), IsOkAndHolds(study));

  std::vector<Trial> trials;
  for (double v : values) {
    Trial trial = MakeTrial(v);
    trial.parameters["layers"] =
        ParameterValue::Integer(std::numeric_limits<int64_t>::min());
    trial.parameters["width"] = ParameterValue::Double(3.0);  // Stays double.
    trial.parameters["cell"] = ParameterValue::Categorical("ü \"quoted\"\n");
    trial.state = TrialState::kActive;
    trial.start_time = FromUnixMicros(1'700'000'000'123'457);
    trials.push_back(trial);
  }
  ASSERT_OK_AND_ASSIGN(std::vector<Trial> added,
                       store_->AddTrials("exact", trials, std::nullopt));
  for (size_t i = 0; i < values.size(); ++i) {
    Measurement m;
    m.step = std::numeric_limits<int64_t>::max();
    m.time = FromUnixMicros(1'700'000'000'000'001 + static_cast<int64_t>(i));
    m.metrics = {{"accuracy", values[i]}, {"loss", -values[i]}};
    ASSERT_OK(store_->AddMeasurement("exact", added[i].number, m));
    ASSERT_OK(store_->UpdateTrial("exact", added[i].number, [&](Trial& t) {
      t.state = TrialState::kSucceeded;
      t.final_measurement = m;
      t.end_time = FromUnixMicros(4'102'444'800'000'001);  // Year 2100.
      return absl::OkStatus();
    }));
  }

  ASSERT_OK_AND_ASSIGN(std::vector<Trial> stored, store_->ListTrials("exact"));
  ASSERT_THAT(stored, SizeIs(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    const Trial& t = stored[i];
    ASSERT_TRUE(t.parameters.at("lr").is_double());
    EXPECT_EQ(t.parameters.at("lr").AsDouble(), values[i]);
    EXPECT_EQ(std::signbit(t.parameters.at("lr").AsDouble()),
              std::signbit(values[i]));
    EXPECT_TRUE(t.parameters.at("width").is_double());
    EXPECT_EQ(t.parameters.at("layers").AsInteger(),
              std::numeric_limits<int64_t>::min());
    EXPECT_EQ(t.parameters.at("cell").AsString(), "ü \"quoted\"\n");
    EXPECT_EQ(t.start_time, FromUnixMicros(1'700'000'000'123'457));
    EXPECT_EQ(t.end_time, FromUnixMicros(4'102'444'800'000'001));
    ASSERT_THAT(t.measurements, SizeIs(1));
    const double accuracy = t.measurements[0].metrics.at("accuracy");
    EXPECT_EQ(accuracy, values[i]);
    EXPECT_EQ(std::signbit(accuracy), std::signbit(values[i]));
    EXPECT_EQ(t.measurements[0].step, std::numeric_limits<int64_t>::max());
    EXPECT_EQ(t.final_measurement, t.measurements[0]);
  }
}

TEST_P(StoreConformanceTest, NotesKeepTheirTextAndAnAuditRowPerSave) {
  CreateStudyWithTrial("notes", TrialState::kSucceeded);
  EXPECT_THAT(store_->GetNote("notes", 0),
              IsOkAndHolds(::testing::Field(&Note::text, IsEmpty())));
  ASSERT_OK(store_->SetNote("notes", 0, "# Plan\nlr <b>",
                            {.peer = "127.0.0.1:5000", .client = "alice"}));
  clock_.Advance(std::chrono::seconds(1));
  const std::string trial_note = "ü <script>alert(1)</script>";
  ASSERT_OK(
      store_->SetNote("notes", 1, "first", {.peer = "p1", .client = "c"}));
  ASSERT_OK(store_->SetNote("notes", 1, trial_note,
                            {.peer = std::string(300, 'p'), .client = "bob"}));

  ASSERT_OK_AND_ASSIGN(Note study_note, store_->GetNote("notes", 0));
  EXPECT_EQ(study_note.text, "# Plan\nlr <b>");
  ASSERT_THAT(study_note.edits, SizeIs(1));
  EXPECT_EQ(study_note.edits[0].peer, "127.0.0.1:5000");
  EXPECT_EQ(study_note.edits[0].client, "alice");
  EXPECT_EQ(study_note.edits[0].bytes, 13);
  ASSERT_OK_AND_ASSIGN(Note on_trial, store_->GetNote("notes", 1));
  EXPECT_EQ(on_trial.text, trial_note);
  ASSERT_THAT(on_trial.edits, SizeIs(2));
  EXPECT_EQ(on_trial.edits[0].bytes, 5);
  EXPECT_EQ(on_trial.edits[1].client, "bob");
  EXPECT_EQ(on_trial.edits[1].peer, std::string(256, 'p'));  // Cut.
  EXPECT_EQ(on_trial.edits[1].bytes, static_cast<int64_t>(trial_note.size()));
  EXPECT_EQ(on_trial.edits[1].time, clock_.Now());
  EXPECT_GT(on_trial.edits[0].time, study_note.edits[0].time);
}

TEST_P(StoreConformanceTest, NotesAreLimitedAndBelongToAStudyOrTrial) {
  CreateStudyWithTrial("notes", TrialState::kActive);
  EXPECT_THAT(
      store_->SetNote("notes", 0, std::string(kMaxNoteBytes + 1, 'x'), {}),
      StatusIs(StatusCode::kInvalidArgument,
               HasSubstr("note: 32769 bytes, at most 32768")));
  EXPECT_OK(store_->SetNote("notes", 0, std::string(kMaxNoteBytes, 'x'), {}));
  EXPECT_THAT(store_->SetNote("nope", 0, "x", {}),
              StatusIs(StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(store_->SetNote("notes", 2, "x", {}),
              StatusIs(StatusCode::kNotFound, HasSubstr("trial 2")));
  EXPECT_THAT(store_->GetNote("notes", 2),
              StatusIs(StatusCode::kNotFound, HasSubstr("trial 2")));
  ASSERT_OK_AND_ASSIGN(std::vector<Event> before, store_->ListEvents(0, 1000));
  ASSERT_OK(store_->SetNote("notes", 1, "no event", {}));
  EXPECT_THAT(store_->ListEvents(0, 1000), IsOkAndHolds(SizeIs(before.size())));
  // Deleted with the study; a study made again under its name has none.
  ASSERT_OK(store_->DeleteStudy("notes"));
  EXPECT_THAT(store_->GetNote("notes", 0),
              StatusIs(StatusCode::kNotFound, ::testing::_));
  CreateStudyWithTrial("notes", TrialState::kActive);
  ASSERT_OK_AND_ASSIGN(Note fresh, store_->GetNote("notes", 1));
  EXPECT_EQ(fresh.text, "");
  EXPECT_THAT(fresh.edits, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    AllStores, StoreConformanceTest, ::testing::ValuesIn(Factories()),
    [](const ::testing::TestParamInfo<StoreFactory>& info) {
      return info.param.name;
    });

}  // namespace
}  // namespace hptune::store

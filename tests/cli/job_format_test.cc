#include "src/cli/client/job_format.h"

#include <map>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "src/cli/client/proto_convert.h"
#include "tests/testing/status_matchers.h"

namespace hptune::cli::client {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

template <typename Message>
Message Parse(const std::string& text) {
  Message message;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &message))
      << text;
  return message;
}

// A finished two-trial job: trial 2 is the best, trial 1 stopped early.
v1::Job FinishedJob() {
  return Parse<v1::Job>(R"pb(
    job_id: "mnist_1"
    state: SUCCEEDED
    create_time { seconds: 1795000000 }
    start_time { seconds: 1795000001 }
    end_time { seconds: 1795000100 }
    training_input {
      scale_tier: CUSTOM
      master_type: "n1-standard-4"
      master_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_T4" } }
      worker_count: 2
      worker_type: "n1-standard-4"
      python_module: "trainer.task"
      package_path: "/src/trainer"
      hyperparameters {
        goal: MINIMIZE
        hyperparameter_metric_tag: "loss"
        max_trials: 2
        params {
          parameter_name: "lr"
          type: DOUBLE
          min_value: 0.001
          max_value: 1
        }
        params {
          parameter_name: "state"
          type: INTEGER
          min_value: 1
          max_value: 9
        }
      }
    }
    training_output {
      completed_trial_count: 2
      is_hyperparameter_tuning_job: true
      hyperparameter_metric_tag: "loss"
      trials {
        trial_id: "1"
        hyperparameters { key: "lr" value: "0.5" }
        hyperparameters { key: "state" value: "3" }
        final_metric { training_step: 40 objective_value: 0.75 }
        is_trial_stopped_early: true
        state: SUCCEEDED
        start_time { seconds: 1795000001 }
        end_time { seconds: 1795000050 }
      }
      trials {
        trial_id: "2"
        hyperparameters { key: "lr" value: "0.01" }
        hyperparameters { key: "state" value: "7" }
        final_metric { training_step: 100 objective_value: 0.125 }
        state: SUCCEEDED
      }
      best_trial {
        trial_id: "2"
        hyperparameters { key: "lr" value: "0.01" }
        hyperparameters { key: "state" value: "7" }
        final_metric { training_step: 100 objective_value: 0.125 }
        state: SUCCEEDED
      }
    }
  )pb");
}

TEST(JobJsonTest, HasAiPlatformsTrainingOutputShape) {
  auto json = nlohmann::json::parse(JobJson(FinishedJob()));
  EXPECT_EQ(json["jobId"], "mnist_1");
  EXPECT_EQ(json["state"], "SUCCEEDED");
  EXPECT_EQ(json["createTime"], "2026-11-18T11:06:40Z");
  EXPECT_EQ(json["trainingInput"]["masterConfig"]["acceleratorConfig"]["type"],
            "NVIDIA_TESLA_T4");
  const auto& output = json["trainingOutput"];
  // int64 fields are strings in proto3 JSON, as AI Platform prints them.
  EXPECT_EQ(output["completedTrialCount"], "2");
  ASSERT_EQ(output["trials"].size(), 2u);
  const auto& first = output["trials"][0];
  EXPECT_EQ(first["trialId"], "1");
  EXPECT_EQ(first["hyperparameters"]["lr"], "0.5");
  EXPECT_EQ(first["finalMetric"]["trainingStep"], "40");
  EXPECT_EQ(first["finalMetric"]["objectiveValue"], 0.75);
  EXPECT_EQ(first["isTrialStoppedEarly"], true);
  EXPECT_EQ(first["state"], "SUCCEEDED");
  EXPECT_EQ(first["startTime"], "2026-11-18T11:06:41Z");
}

TEST(JobTrialsTableTest, OneColumnPerParameterInSpecOrder) {
  Table table = JobTrialsTable(FinishedJob());
  EXPECT_THAT(table.header,
              ElementsAre("trialId", "state", "lr", "hyperparameters.state",
                          "objective", "step", "stoppedEarly", "startTime",
                          "endTime", "error"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_THAT(table.rows[0],
              ElementsAre("1", "SUCCEEDED", "0.5", "3", "0.75", "40", "true",
                          "2026-11-18T11:06:41.000000Z",
                          "2026-11-18T11:07:30.000000Z", ""));
  EXPECT_THAT(table.rows[1], ElementsAre("2", "SUCCEEDED", "0.01", "7", "0.125",
                                         "100", "false", "", "", ""));
}

// optimizer -> {momentum | beta2 -> eps}, then lr; trial 1 took sgd and
// trial 2 adam.
v1::Job ConditionalJob() {
  return Parse<v1::Job>(R"pb(
    job_id: "tree_1"
    state: SUCCEEDED
    training_input {
      hyperparameters {
        goal: MINIMIZE
        hyperparameter_metric_tag: "loss"
        max_trials: 2
        params {
          parameter_name: "optimizer"
          type: CATEGORICAL
          categorical_values: [ "sgd", "adam" ]
          conditional_parameter_specs {
            parent_categorical_values { values: "sgd" }
            parameter_spec {
              parameter_name: "momentum"
              type: DOUBLE
              min_value: 0
              max_value: 0.99
            }
          }
          conditional_parameter_specs {
            parent_categorical_values { values: "adam" }
            parameter_spec {
              parameter_name: "beta2"
              type: DISCRETE
              discrete_values: [ 0.99, 0.999 ]
              conditional_parameter_specs {
                parent_discrete_values { values: 0.999 }
                parameter_spec {
                  parameter_name: "eps"
                  type: DOUBLE
                  min_value: 1e-9
                  max_value: 1e-6
                }
              }
            }
          }
        }
        params { parameter_name: "lr" type: DOUBLE min_value: 0 max_value: 1 }
      }
    }
    training_output {
      completed_trial_count: 2
      trials {
        trial_id: "1"
        hyperparameters { key: "optimizer" value: "sgd" }
        hyperparameters { key: "momentum" value: "0.9" }
        hyperparameters { key: "lr" value: "0.5" }
        final_metric { training_step: 1 objective_value: 0.25 }
        state: SUCCEEDED
      }
      trials {
        trial_id: "2"
        hyperparameters { key: "optimizer" value: "adam" }
        hyperparameters { key: "beta2" value: "0.999" }
        hyperparameters { key: "eps" value: "1e-07" }
        hyperparameters { key: "lr" value: "0.125" }
        final_metric { training_step: 1 objective_value: 0.5 }
        state: SUCCEEDED
      }
      best_trial {
        trial_id: "1"
        hyperparameters { key: "optimizer" value: "sgd" }
        hyperparameters { key: "momentum" value: "0.9" }
        hyperparameters { key: "lr" value: "0.5" }
        final_metric { training_step: 1 objective_value: 0.25 }
        state: SUCCEEDED
      }
    }
  )pb");
}

TEST(JobTrialsTableTest, InactiveConditionalParametersAreEmpty) {
  Table table = JobTrialsTable(ConditionalJob());
  // The tree's depth-first order, as the trainer's flags.
  EXPECT_THAT(table.header,
              ElementsAre("trialId", "state", "optimizer", "momentum", "beta2",
                          "eps", "lr", "objective", "step", "stoppedEarly",
                          "startTime", "endTime", "error"));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_THAT(table.rows[0],
              ElementsAre("1", "SUCCEEDED", "sgd", "0.9", "", "", "0.5", "0.25",
                          "1", "false", "", "", ""));
  EXPECT_THAT(table.rows[1],
              ElementsAre("2", "SUCCEEDED", "adam", "", "0.999", "1e-07",
                          "0.125", "0.5", "1", "false", "", "", ""));
  std::ostringstream csv;
  PrintTable(table, OutputFormat::kCsv, csv);
  EXPECT_THAT(csv.str(), HasSubstr("\r\n1,SUCCEEDED,sgd,0.9,,,0.5,0.25,"));

  std::ostringstream summary;
  PrintJobSummary(ConditionalJob(), summary);
  EXPECT_THAT(summary.str(),
              HasSubstr("best trial: 1, loss 0.25 at step 1; optimizer=sgd, "
                        "momentum=0.9, lr=0.5\n"));
}

TEST(JobTrialsTableTest, ARunningTrialShowsItsLatestReport) {
  v1::Job job = FinishedJob();
  v1::HyperparameterOutput* running =
      job.mutable_training_output()->add_trials();
  running->set_trial_id("3");
  running->set_state(v1::Job::RUNNING);
  for (int step : {10, 20}) {
    v1::HyperparameterMetric* metric = running->add_all_metrics();
    metric->set_training_step(step);
    metric->set_objective_value(1.0 / step);
  }
  Table table = JobTrialsTable(job);
  ASSERT_EQ(table.rows.size(), 3u);
  EXPECT_EQ(table.rows[2][1], "RUNNING");
  EXPECT_EQ(table.rows[2][4], "0.05");  // objective: the step-20 report.
  EXPECT_EQ(table.rows[2][5], "20");
}

TEST(PrintJobSummaryTest, ShowsStateMachinesProgressTrialsAndBest) {
  std::ostringstream out;
  PrintJobSummary(FinishedJob(), out);
  const std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("job:        mnist_1\n"));
  EXPECT_THAT(text, HasSubstr("state:      SUCCEEDED\n"));
  EXPECT_THAT(text, HasSubstr("trainer:    python3 -m trainer.task (from "
                              "/src/trainer)\n"));
  EXPECT_THAT(text, HasSubstr("machines:   CUSTOM: 1 master n1-standard-4 (1x "
                              "NVIDIA_TESLA_T4), 2 workers n1-standard-4\n"));
  EXPECT_THAT(text, HasSubstr("objective:  MINIMIZE loss\n"));
  EXPECT_THAT(text, HasSubstr("trials:     2 completed of 2, 0 running"));
  EXPECT_THAT(text, HasSubstr("seeding:    all 2 trials are quasi-random "
                              "seeding: the GP chooses trials only after its "
                              "first"));
  EXPECT_THAT(text, HasSubstr("trialId  state"));
  EXPECT_THAT(text, HasSubstr("best trial: 2, loss 0.125 at step 100; "
                              "lr=0.01, state=7\n"));
}

TEST(PrintJobSummaryTest, AFailedJobShowsItsError) {
  v1::Job job = Parse<v1::Job>(R"pb(
    job_id: "j"
    state: FAILED
    error_message: "3 trials failed"
  )pb");
  std::ostringstream out;
  PrintJobSummary(job, out);
  EXPECT_THAT(out.str(), HasSubstr("state:      FAILED: 3 trials failed\n"));
  EXPECT_THAT(out.str(), HasSubstr("machines:   BASIC\n"));
}

TEST(PrintJobSummaryTest, ACancelledJobShowsItsTimeLimitsAndWhy) {
  v1::Job job = Parse<v1::Job>(R"pb(
    job_id: "j"
    state: CANCELLED
    error_message: "maxRunningTime (7200s) reached"
    training_input {
      scheduling {
        max_running_time { seconds: 7200 }
        max_wait_time { seconds: 1 nanos: 500000000 }
      }
    }
  )pb");
  std::ostringstream out;
  PrintJobSummary(job, out);
  EXPECT_THAT(out.str(), HasSubstr("state:      CANCELLED: maxRunningTime "
                                   "(7200s) reached\n"));
  EXPECT_THAT(
      out.str(),
      HasSubstr("limits:     waits at most 1.5s, runs at most 7200s\n"));
  std::ostringstream none;
  PrintJobSummary(Parse<v1::Job>(R"pb(job_id: "k")pb"), none);
  EXPECT_THAT(none.str(), Not(HasSubstr("limits:")));
}

TEST(JobsTableTest, OneRowPerJobWithProgressAndBest) {
  v1::Job running = Parse<v1::Job>(R"pb(
    job_id: "b"
    state: RUNNING
    training_input { hyperparameters { max_trials: 8 } }
    training_output { completed_trial_count: 3 }
  )pb");
  Table table = JobsTable({FinishedJob(), running});
  EXPECT_THAT(table.header, ElementsAre("jobId", "state", "created", "trials",
                                        "best", "error"));
  EXPECT_THAT(table.rows[0],
              ElementsAre("mnist_1", "SUCCEEDED", "2026-11-18T11:06:40.000000Z",
                          "2/2", "0.125 (trial 2)", ""));
  EXPECT_THAT(table.rows[1], ElementsAre("b", "RUNNING", "", "3/8", "", ""));
}

TEST(DescribeJobEventTest, JobAndTrialEventsReadAsOneLine) {
  v1::JobEvent job_event;
  *job_event.mutable_job() = FinishedJob();
  EXPECT_EQ(DescribeJobEvent(job_event, "loss"),
            "job mnist_1 SUCCEEDED, trials 2/2 completed, best loss 0.125 "
            "(trial 2)");
  v1::JobEvent trial_event;
  *trial_event.mutable_trial() = FinishedJob().training_output().trials(0);
  EXPECT_EQ(DescribeJobEvent(trial_event, "loss"),
            "trial 1 SUCCEEDED: loss=0.75 at step 40, stopped early (lr=0.5, "
            "state=3)");
}

TEST(ApplyJobsFilterTest, StatesAndPrefix) {
  v1::ListJobsRequest request;
  ASSERT_OK(ApplyJobsFilter("state=RUNNING,QUEUED  jobId=mnist*", request));
  ASSERT_EQ(request.states_size(), 2);
  EXPECT_EQ(request.states(0), v1::Job::RUNNING);
  EXPECT_EQ(request.states(1), v1::Job::QUEUED);
  EXPECT_EQ(request.job_id_prefix(), "mnist");
}

TEST(ApplyJobsFilterTest, BadTermsNameTheFlagAndTerm) {
  v1::ListJobsRequest request;
  EXPECT_EQ(ApplyJobsFilter("state=DONE", request).message(),
            "--filter: unknown state \"DONE\": QUEUED, PREPARING, RUNNING, "
            "SUCCEEDED, FAILED, CANCELLING or CANCELLED, got \"state=DONE\" "
            "(expected state=STATE[,STATE...], jobId=PREFIX* or "
            "labels.KEY=VALUE)");
  EXPECT_THAT(ApplyJobsFilter("owner=me", request).message(),
              HasSubstr("--filter: unknown key \"owner\", got \"owner=me\""));
  EXPECT_THAT(ApplyJobsFilter("jobId=*", request).message(),
              HasSubstr("jobId takes a prefix"));
}

TEST(ApplyJobsFilterTest, LabelsTakeAValueOrAnyValue) {
  v1::ListJobsRequest request;
  ASSERT_OK(ApplyJobsFilter("labels.team=vision labels.owner=* labels.draft=",
                            request));
  using Labels = std::map<std::string, std::string>;
  const Labels expected = {{"team", "vision"}, {"owner", "*"}, {"draft", ""}};
  EXPECT_EQ(Labels(request.labels().begin(), request.labels().end()), expected);
}

TEST(ApplyJobsFilterTest, BadLabelTermsNameTheFlagAndTerm) {
  v1::ListJobsRequest request;
  EXPECT_THAT(ApplyJobsFilter("labels.team", request).message(),
              HasSubstr("--filter: a label takes a value (* for any), got "
                        "\"labels.team\""));
  EXPECT_THAT(
      ApplyJobsFilter("labels.Team=x", request).message(),
      HasSubstr("--filter: key \"Team\" must be 1 to 63 characters, a "
                "lowercase letter followed by lowercase letters, digits, '_' "
                "and '-', got \"labels.Team=x\""));
  EXPECT_THAT(ApplyJobsFilter("labels.team=a labels.team=b", request).message(),
              HasSubstr("label \"team\" given twice"));
}

TEST(ProtoConvertTest, StudyFromProtoReadsTheSpecWithTheConfigParser) {
  v1::Study proto = Parse<v1::Study>(R"pb(
    name: "s"
    state: COMPLETED
    state_reason: "budget"
    seed: 7
    spec {
      goal: MINIMIZE
      hyperparameter_metric_tag: "loss"
      max_trials: 5
      algorithm: RANDOM_SEARCH
      seed: 9
      params { parameter_name: "x" type: INTEGER min_value: 1 max_value: 4 }
    }
  )pb");
  auto study = StudyFromProto(proto);
  ASSERT_OK(study);
  EXPECT_EQ(study->name, "s");
  EXPECT_EQ(study->state, StudyState::kCompleted);
  EXPECT_EQ(study->seed, 7u);
  EXPECT_EQ(study->spec.goal(), Goal::kMinimize);
  EXPECT_EQ(study->spec.algorithm, Algorithm::kRandomSearch);
  EXPECT_EQ(study->spec.max_trials, 5);
  // proto3 JSON writes a uint64 as a string; the spec still has its seed.
  EXPECT_EQ(study->spec.seed, 9u);
  ASSERT_EQ(study->spec.search_space.parameters().size(), 1u);
  EXPECT_EQ(study->spec.search_space.parameters()[0].type,
            ParameterType::kInteger);
}

TEST(ProtoConvertTest, AStudySpecTheParserRefusesIsAnError) {
  v1::Study proto = Parse<v1::Study>(R"pb(
    name: "s"
    spec {
      params { parameter_name: "x" type: INTEGER min_value: 4 max_value: 1 }
    }
  )pb");
  auto study = StudyFromProto(proto);
  ASSERT_FALSE(study.ok());
  EXPECT_THAT(study.status().message(),
              HasSubstr("the server sent a study spec hptune cannot read"));
}

}  // namespace
}  // namespace hptune::cli::client

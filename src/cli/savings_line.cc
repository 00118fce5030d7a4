#include "src/cli/savings_line.h"

#include "nlohmann/json.hpp"

namespace hptune::cli {
namespace {

using OrderedJson = nlohmann::ordered_json;

OrderedJson OrNull(const std::optional<double>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}

}  // namespace

std::optional<StoppingSavings> JobSavings(const JobSpec& job,
                                          const std::vector<Trial>& trials) {
  std::vector<const Trial*> pointers;
  bool any_stopped = false;
  for (const Trial& t : trials) {
    pointers.push_back(&t);
    any_stopped = any_stopped || t.stopped_early;
  }
  if (!any_stopped && !(job.study && job.study->enable_early_stopping)) {
    return std::nullopt;
  }
  return ComputeStoppingSavings(pointers, FootprintOf(job));
}

std::string SavingsLine(const StoppingSavings& savings) {
  return "early stopping: " + SavingsText(savings);
}

std::string WithSavingsJson(const std::string& job_json,
                            const std::optional<StoppingSavings>& savings) {
  OrderedJson job = OrderedJson::parse(job_json);
  OrderedJson field = nullptr;
  if (savings) {
    const StoppingSavings& s = *savings;
    field = {{"trialsStopped", s.trials_stopped},
             {"trialsRunToEnd", s.trials_run_to_end},
             {"stepsRun", s.steps_run},
             {"fullTrialSteps", OrNull(s.full_steps)},
             {"stepsSaved", OrNull(s.steps_saved)},
             {"trialSecondsSaved", OrNull(s.trial_seconds_saved)},
             {"replicaSecondsSaved", OrNull(s.replica_seconds_saved)},
             {"gpuSecondsSaved", OrNull(s.gpu_seconds_saved)},
             {"shareSaved", OrNull(s.share_saved)},
             {"summary", SavingsText(s)}};
  }
  job["earlyStoppingSavings"] = std::move(field);
  return job.dump(2);
}

}  // namespace hptune::cli

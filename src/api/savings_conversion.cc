#include "src/api/savings_conversion.h"

#include <optional>

namespace hptune::api {
namespace {

// The estimates, each with its field's setter and reader, in one list so
// that the two ways cannot disagree.
struct Estimate {
  std::optional<double> StoppingSavings::*value;
  void (v1::StoppingSavings::*set)(double);
  bool (v1::StoppingSavings::*has)() const;
  double (v1::StoppingSavings::*get)() const;
};

constexpr Estimate kEstimates[] = {
    {&StoppingSavings::full_steps, &v1::StoppingSavings::set_full_trial_steps,
     &v1::StoppingSavings::has_full_trial_steps,
     &v1::StoppingSavings::full_trial_steps},
    {&StoppingSavings::steps_saved, &v1::StoppingSavings::set_steps_saved,
     &v1::StoppingSavings::has_steps_saved, &v1::StoppingSavings::steps_saved},
    {&StoppingSavings::trial_seconds_saved,
     &v1::StoppingSavings::set_trial_seconds_saved,
     &v1::StoppingSavings::has_trial_seconds_saved,
     &v1::StoppingSavings::trial_seconds_saved},
    {&StoppingSavings::replica_seconds_saved,
     &v1::StoppingSavings::set_replica_seconds_saved,
     &v1::StoppingSavings::has_replica_seconds_saved,
     &v1::StoppingSavings::replica_seconds_saved},
    {&StoppingSavings::gpu_seconds_saved,
     &v1::StoppingSavings::set_gpu_seconds_saved,
     &v1::StoppingSavings::has_gpu_seconds_saved,
     &v1::StoppingSavings::gpu_seconds_saved},
    {&StoppingSavings::share_saved, &v1::StoppingSavings::set_share_saved,
     &v1::StoppingSavings::has_share_saved, &v1::StoppingSavings::share_saved},
};

}  // namespace

v1::StoppingSavings StoppingSavingsToProto(const StoppingSavings& savings) {
  v1::StoppingSavings proto;
  proto.set_trials(savings.trials);
  proto.set_trials_stopped(savings.trials_stopped);
  proto.set_trials_run_to_end(savings.trials_run_to_end);
  proto.set_steps_run(savings.steps_run);
  for (const Estimate& e : kEstimates) {
    if (savings.*e.value) (proto.*e.set)(*(savings.*e.value));
  }
  return proto;
}

StoppingSavings StoppingSavingsFromProto(const v1::StoppingSavings& proto) {
  StoppingSavings savings;
  savings.trials = proto.trials();
  savings.trials_stopped = proto.trials_stopped();
  savings.trials_run_to_end = proto.trials_run_to_end();
  savings.steps_run = proto.steps_run();
  for (const Estimate& e : kEstimates) {
    if ((proto.*e.has)()) savings.*e.value = (proto.*e.get)();
  }
  return savings;
}

}  // namespace hptune::api

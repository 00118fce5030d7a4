#include "tests/store/store_workload.h"

#include <vector>

#include "hptune/core/status.h"
#include "hptune/core/trial.h"

namespace hptune::store::test {

absl::Status RunTrialWorkload(Store& store, const std::string& study,
                              const std::string& client_id, int trials,
                              int measurements) {
  for (int i = 0; i < trials; ++i) {
    Trial trial;
    trial.parameters = {{"x", ParameterValue::Integer(i)}};
    trial.client_id = client_id;
    trial.origin = "workload";
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> added,
                            store.AddTrials(study, {trial}, std::nullopt));
    const int64_t number = added.at(0).number;
    HPTUNE_RETURN_IF_ERROR(store
                               .UpdateTrial(study, number,
                                            [](Trial& t) {
                                              t.state = TrialState::kActive;
                                              return absl::OkStatus();
                                            })
                               .status());
    Measurement m;
    for (int step = 1; step <= measurements; ++step) {
      m.step = step;
      m.metrics = {{"objective", step * 0.5}};
      HPTUNE_RETURN_IF_ERROR(store.AddMeasurement(study, number, m));
    }
    HPTUNE_RETURN_IF_ERROR(store
                               .UpdateTrial(study, number,
                                            [&](Trial& t) {
                                              t.state = TrialState::kSucceeded;
                                              t.final_measurement = m;
                                              return absl::OkStatus();
                                            })
                               .status());
  }
  return absl::OkStatus();
}

}  // namespace hptune::store::test

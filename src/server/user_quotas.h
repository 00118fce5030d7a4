// UserQuotas: the per-user limits of a server several users call
// (docs/operations.md, "Quotas"): how many studies a user holds (ask/tell
// studies and their jobs' studies), and how many bytes of intermediate
// measurements those studies store. Past a limit a call is
// RESOURCE_EXHAUSTED naming the quota, the user, the count and the flag
// that raises it. Root and the server's own user (its administrator token)
// are not limited. QuotaLimits also carries the third quota, running
// trials per user, which the job runners keep (runner::TrialAdmission).
//
// Used by StudyService::CreateStudy and JobService::SubmitJob (studies) and
// by the engine before each measurement (EngineOptions::admit_measurement,
// bytes), on the server's handler and job threads. Thread-safe: the counts
// are the store's; creations are serialised so that concurrent ones cannot
// pass the limit together. Measurements are checked before they are
// written, so ones in flight at once may pass the byte limit by their own
// size.
#ifndef HPTUNE_SRC_SERVER_USER_QUOTAS_H_
#define HPTUNE_SRC_SERVER_USER_QUOTAS_H_

#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "hptune/core/measurement.h"
#include "hptune/core/mutex.h"
#include "hptune/store/store.h"
#include "src/server/auth.h"

namespace hptune::server {

// `hptune serve`'s defaults: far above what one person's work needs, far
// below what fills a disk or the store's listings.
inline constexpr int64_t kDefaultMaxStudiesPerUser = 1000;
inline constexpr int64_t kDefaultMaxMeasurementBytesPerUser = int64_t{1} << 30;
inline constexpr int64_t kDefaultMaxRunningTrialsPerUser = 32;

struct QuotaLimits {
  int64_t max_studies_per_user = kDefaultMaxStudiesPerUser;  // 0: none.
  int64_t max_measurement_bytes_per_user =
      kDefaultMaxMeasurementBytesPerUser;  // 0: none.
  // Across the user's jobs; kept by runner::TrialAdmission, not UserQuotas.
  int64_t max_running_trials_per_user =
      kDefaultMaxRunningTrialsPerUser;  // 0: none.
};

class UserQuotas {
 public:
  // `server_uid`: the server's own user, not limited.
  UserQuotas(store::Store& store, QuotaLimits limits, int64_t server_uid)
      : store_(store), limits_(limits), server_uid_(server_uid) {}

  // Runs `create`, which makes one study that counts against `caller`
  // (StudyRecord::owner_uid = caller.uid), when the caller holds fewer
  // studies than the limit; ResourceExhausted naming the quota otherwise.
  // Serialised with other creations.
  [[nodiscard]] absl::Status CreateStudy(
      const Caller& caller, absl::FunctionRef<absl::Status()> create);

  // EngineOptions::admit_measurement: ResourceExhausted once the owner of
  // `study` has stored the limit's bytes of measurements. NotFound naming
  // the study.
  [[nodiscard]] absl::Status AdmitMeasurement(std::string_view study,
                                              const Measurement& measurement);

 private:
  bool Limited(int64_t uid) const;

  store::Store& store_;
  const QuotaLimits limits_;
  const int64_t server_uid_;
  // Held from a user's count to the creation it allows.
  Mutex create_mu_;
};

}  // namespace hptune::server

#endif  // HPTUNE_SRC_SERVER_USER_QUOTAS_H_

#include "src/server/user_quotas.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/env/users.h"

namespace hptune::server {

bool UserQuotas::Limited(int64_t uid) const {
  return uid > 0 && uid != server_uid_;
}

absl::Status UserQuotas::CreateStudy(const Caller& caller,
                                     absl::FunctionRef<absl::Status()> create) {
  const int64_t limit = limits_.max_studies_per_user;
  if (limit == 0 || caller.admin || !Limited(caller.uid)) return create();
  MutexLock lock(&create_mu_);
  HPTUNE_ASSIGN_OR_RETURN(store::UserUsage usage,
                          store_.GetUserUsage(caller.uid));
  if (usage.studies >= limit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "studies per user: ", DescribeUser(caller.uid), " has ", usage.studies,
        " studies, the most this server allows (hptune serve "
        "--max-studies-per-user ",
        limit, "); delete one, or ask the server's administrator to raise it"));
  }
  return create();
}

absl::Status UserQuotas::AdmitMeasurement(std::string_view study,
                                          const Measurement&) {
  const int64_t limit = limits_.max_measurement_bytes_per_user;
  if (limit == 0) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(store::UserUsage usage,
                          store_.GetStudyOwnerUsage(study));
  if (!Limited(usage.uid) || usage.measurement_bytes < limit) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "measurement bytes per user: ",
      DescribeUser(static_cast<uid_t>(usage.uid)), ", who owns study \"",
      std::string(study), "\", has stored ", usage.measurement_bytes,
      " bytes of measurements, the most this server allows (hptune serve "
      "--max-measurement-bytes-per-user ",
      limit,
      "); delete a study, or ask the server's administrator to raise it"));
}

}  // namespace hptune::server

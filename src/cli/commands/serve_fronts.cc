#include "src/cli/commands/serve_fronts.h"

#include <filesystem>
#include <string_view>
#include <utility>

#include "hptune/core/status.h"

namespace hptune::cli {

absl::StatusOr<std::unique_ptr<dashboard::DashboardServer>> StartDashboard(
    server::HptuneServer& server, dashboard::DashboardOptions options) {
  options.actions.cancel_job = [&server](std::string_view job_id) {
    return server.CancelJob(job_id);
  };
  options.actions.delete_study = [&server](std::string_view study) {
    return server.DeleteStudy(study);
  };
  options.actions.complete_trial = [&server](std::string_view study,
                                             int64_t trial, Measurement final) {
    return server.CompleteTrial(study, trial, std::move(final));
  };
  options.actions.mark_infeasible = [&server](std::string_view study,
                                              int64_t trial,
                                              std::string_view reason) {
    return server.MarkTrialInfeasible(study, trial, reason);
  };
  options.actions.set_note = [&server](std::string_view study, int64_t trial,
                                       std::string_view text,
                                       store::NoteEdit edit) {
    return server.store().SetNote(study, trial, text, std::move(edit));
  };
  return dashboard::DashboardServer::Start(server.store(), std::move(options));
}

rest::StorageOptions StorageOf(server::HptuneServer& server, Env& env,
                               std::string gcs_root) {
  return {
      .gcs_root = std::move(gcs_root),
      .authorize =
          [&server](std::string_view authorization) {
            return server.AuthorizeAdmin(authorization);
          },
      .write = [&env](const std::string& path,
                      std::string_view contents) -> absl::StatusOr<int64_t> {
        const std::filesystem::path file(path);
        HPTUNE_RETURN_IF_ERROR(
            env.CreatePrivateDirectories(file.parent_path()));
        HPTUNE_RETURN_IF_ERROR(env.WriteFileAtomically(file, contents));
        return env.Now().time_since_epoch().count();
      }};
}

}  // namespace hptune::cli

#include "src/cli/client/study_reader.h"

#include "hptune/core/status.h"
#include "hptune/engine/engine.h"
#include "hptune/read/study_answers.h"
#include "hptune/v1/study_service.grpc.pb.h"
#include "src/api/conversion.h"
#include "src/api/savings_conversion.h"
#include "src/cli/client/proto_convert.h"

namespace hptune::cli::client {
namespace {

class StoreReader : public StudyReader {
 public:
  StoreReader(std::unique_ptr<store::Store> store, Clock& clock)
      : store_(std::move(store)), clock_(clock), answers_(*store_) {}

  // As a server shows them: a study whose job failed says so.
  absl::StatusOr<std::vector<StudyRecord>> ListStudies() override {
    HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies,
                            store_->ListStudies());
    for (StudyRecord& study : studies) {
      HPTUNE_ASSIGN_OR_RETURN(study,
                              read::StudyAsShown(*store_, std::move(study)));
    }
    return studies;
  }
  absl::StatusOr<StudyRecord> GetStudy(const std::string& name) override {
    return answers_.Study(name);
  }
  absl::StatusOr<std::vector<Trial>> ListTrials(
      const std::string& study) override {
    return store_->ListTrialSummaries(study);
  }
  absl::StatusOr<Trial> GetTrial(const std::string& study,
                                 int64_t number) override {
    return store_->GetTrial(study, number);
  }
  absl::Status DeleteStudy(const std::string& name) override {
    return engine::TuningEngine(*store_, clock_).DeleteStudy(name);
  }
  absl::StatusOr<std::string> GetStudyNote(const std::string& name) override {
    HPTUNE_ASSIGN_OR_RETURN(store::Note note, store_->GetNote(name, 0));
    return note.text;
  }
  absl::StatusOr<std::vector<Trial>> OptimalTrials(
      const std::string& study) override {
    return answers_.OptimalTrials(study);
  }
  absl::StatusOr<algorithms::ImportanceReport> Importance(
      const std::string& study) override {
    return answers_.Importance(study);
  }
  absl::StatusOr<std::optional<StoppingSavings>> Savings(
      const std::string& study) override {
    return answers_.Savings(study);
  }

 private:
  std::unique_ptr<store::Store> store_;
  Clock& clock_;
  read::StoreStudyAnswers answers_;
};

// The reply as the read side's report; the CLI's options are the server's
// (the defaults).
algorithms::ImportanceReport ReportFromProto(
    const v1::ParameterImportanceResponse& reply) {
  algorithms::ImportanceReport report;
  for (const v1::ParameterImportance& entry : reply.importances()) {
    report.importances.push_back({.parameter = entry.parameter(),
                                  .importance = entry.importance(),
                                  .active_trials = entry.active_trials(),
                                  .lower = entry.lower(),
                                  .upper = entry.upper()});
  }
  report.trials = reply.trials();
  report.top_trials = reply.top_trials();
  report.trials_needed = reply.trials_needed();
  report.bootstrap_resamples = reply.bootstrap_resamples();
  report.note = reply.note();
  return report;
}

class ServerReader : public StudyReader {
 public:
  explicit ServerReader(ServerConnection server)
      : server_(std::move(server)),
        stub_(v1::StudyService::NewStub(server_.channel)) {}

  absl::StatusOr<std::vector<StudyRecord>> ListStudies() override {
    std::vector<StudyRecord> studies;
    v1::ListStudiesRequest request;
    for (;;) {
      v1::ListStudiesResponse response;
      grpc::Status status =
          stub_->ListStudies(server_.Context().get(), request, &response);
      if (!status.ok()) return server_.ToStatus(status);
      for (const v1::Study& study : response.studies()) {
        HPTUNE_ASSIGN_OR_RETURN(StudyRecord record, StudyFromProto(study));
        studies.push_back(std::move(record));
      }
      if (response.next_page_token().empty()) return studies;
      request.set_page_token(response.next_page_token());
    }
  }

  absl::StatusOr<StudyRecord> GetStudy(const std::string& name) override {
    v1::GetStudyRequest request;
    request.set_name(name);
    v1::Study study;
    grpc::Status status =
        stub_->GetStudy(server_.Context().get(), request, &study);
    if (!status.ok()) return server_.ToStatus(status);
    return StudyFromProto(study);
  }

  absl::StatusOr<std::vector<Trial>> ListTrials(
      const std::string& study) override {
    v1::ListTrialsRequest request;
    request.set_study(study);
    request.set_omit_measurements(true);
    v1::ListTrialsResponse response;
    grpc::Status status =
        stub_->ListTrials(server_.Context().get(), request, &response);
    if (!status.ok()) return server_.ToStatus(status);
    std::vector<Trial> trials;
    for (const v1::Trial& trial : response.trials()) {
      trials.push_back(api::TrialFromProto(trial));
    }
    return trials;
  }

  absl::StatusOr<Trial> GetTrial(const std::string& study,
                                 int64_t number) override {
    v1::GetTrialRequest request;
    request.set_study(study);
    request.set_trial_id(number);
    v1::Trial trial;
    grpc::Status status =
        stub_->GetTrial(server_.Context().get(), request, &trial);
    if (!status.ok()) return server_.ToStatus(status);
    return api::TrialFromProto(trial);
  }

  absl::Status DeleteStudy(const std::string& name) override {
    v1::DeleteStudyRequest request;
    request.set_name(name);
    google::protobuf::Empty reply;
    grpc::Status status =
        stub_->DeleteStudy(server_.Context().get(), request, &reply);
    if (!status.ok()) return server_.ToStatus(status);
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> GetStudyNote(const std::string&) override {
    return std::string();
  }

  absl::StatusOr<std::vector<Trial>> OptimalTrials(
      const std::string& study) override {
    v1::ListOptimalTrialsRequest request;
    request.set_study(study);
    v1::ListOptimalTrialsResponse response;
    grpc::Status status =
        stub_->ListOptimalTrials(server_.Context().get(), request, &response);
    if (!status.ok()) return server_.ToStatus(status);
    std::vector<Trial> trials;
    for (const v1::Trial& trial : response.optimal_trials()) {
      trials.push_back(api::TrialFromProto(trial));
      trials.back().measurements.clear();
    }
    return trials;
  }

  absl::StatusOr<algorithms::ImportanceReport> Importance(
      const std::string& study) override {
    v1::GetParameterImportanceRequest request;
    request.set_study(study);
    v1::ParameterImportanceResponse response;
    grpc::Status status = stub_->GetParameterImportance(server_.Context().get(),
                                                        request, &response);
    if (!status.ok()) return server_.ToStatus(status);
    return ReportFromProto(response);
  }

  absl::StatusOr<std::optional<StoppingSavings>> Savings(
      const std::string& study) override {
    v1::GetStoppingSavingsRequest request;
    request.set_study(study);
    v1::StoppingSavingsResponse response;
    grpc::Status status =
        stub_->GetStoppingSavings(server_.Context().get(), request, &response);
    if (!status.ok()) return server_.ToStatus(status);
    if (!response.has_savings()) return std::nullopt;
    return api::StoppingSavingsFromProto(response.savings());
  }

 private:
  ServerConnection server_;
  std::unique_ptr<v1::StudyService::Stub> stub_;
};

}  // namespace

std::unique_ptr<StudyReader> StoreStudyReader(
    std::unique_ptr<store::Store> store, Clock& clock) {
  return std::make_unique<StoreReader>(std::move(store), clock);
}

std::unique_ptr<StudyReader> ServerStudyReader(ServerConnection server) {
  return std::make_unique<ServerReader>(std::move(server));
}

}  // namespace hptune::cli::client

#include "src/server/study_service.h"

#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hptune/algorithms/importance.h"
#include "hptune/core/status.h"
#include "src/api/conversion.h"
#include "src/api/savings_conversion.h"
#include "src/server/call.h"
#include "src/server/request_limits.h"

namespace hptune::server {

using api::MeasurementFromProto;
using api::ParametersFromProto;
using api::RootParameterFromProto;
using api::StudySpecFromProto;
using api::StudyToProto;
using api::ToGrpcStatus;
using api::TrialStateFromProto;
using api::TrialStateToProto;
using api::TrialToProto;

namespace {

absl::Status CheckTrialId(int64_t id) {
  if (id >= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("trial_id: must be at least 1, got ", id));
}

absl::Status CheckMetricNames(const v1::Measurement& m,
                              std::string_view field) {
  if (m.metrics_size() > kMaxMetricsPerMeasurement) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(field), ".metrics: at most ", kMaxMetricsPerMeasurement,
        " metrics, got ", m.metrics_size()));
  }
  for (const auto& [name, value] : m.metrics()) {
    HPTUNE_RETURN_IF_ERROR(
        CheckLength(absl::StrCat(std::string(field), ".metrics"), name,
                    kMaxMetricNameLength));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status StudyService::MayUse(const grpc::ServerContextBase& context,
                                  std::string_view study) const {
  HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(context));
  return access_.CheckStudy(caller, study);
}

grpc::Status StudyService::CreateStudy(grpc::ServerContext* context,
                                       const v1::CreateStudyRequest* request,
                                       v1::Study* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("name", request->name()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->name()));
    HPTUNE_ASSIGN_OR_RETURN(StudySpec spec,
                            StudySpecFromProto(request->spec(), "spec"));
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    // The study is its maker's, for the quotas (user_quotas.h).
    auto create = [&]() -> absl::Status {
      HPTUNE_ASSIGN_OR_RETURN(
          StudyRecord study,
          engine_.CreateStudy(request->name(), spec, 0, caller.uid));
      *reply = StudyToProto(study);
      return absl::OkStatus();
    };
    return quotas_ ? quotas_->CreateStudy(caller, create) : create();
  });
}

grpc::ServerUnaryReactor* StudyService::GetStudy(
    grpc::CallbackServerContext* context, const v1::GetStudyRequest* request,
    v1::Study* reply) {
  return FinishNow(context, HandleGetStudy(context, request, reply));
}

grpc::Status StudyService::HandleGetStudy(
    const grpc::ServerContextBase* context, const v1::GetStudyRequest* request,
    v1::Study* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("name", request->name()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->name()));
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study,
                            engine_.GetStudyAsShown(request->name()));
    *reply = StudyToProto(study);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::ListStudies(grpc::ServerContext* context,
                                       const v1::ListStudiesRequest* request,
                                       v1::ListStudiesResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(size_t page_size,
                            CheckPageSize(request->page_size()));
    HPTUNE_ASSIGN_OR_RETURN(size_t offset,
                            ParsePageToken(request->page_token()));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<StudyRecord> studies,
                            engine_.ListStudiesAsShown());
    HPTUNE_ASSIGN_OR_RETURN(const Caller caller, auth_.Identify(*context));
    std::erase_if(studies, [&](const StudyRecord& study) {
      return !access_.CheckStudy(caller, study.name).ok();
    });
    for (size_t i = offset; i < studies.size() && i < offset + page_size; ++i) {
      *reply->add_studies() = StudyToProto(studies[i]);
    }
    if (offset + page_size < studies.size()) {
      reply->set_next_page_token(std::to_string(offset + page_size));
    }
    return absl::OkStatus();
  });
}

grpc::Status StudyService::DeleteStudy(grpc::ServerContext* context,
                                       const v1::DeleteStudyRequest* request,
                                       google::protobuf::Empty*) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("name", request->name()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->name()));
    return engine_.DeleteStudy(request->name());
  });
}

grpc::Status StudyService::SuggestTrials(
    grpc::ServerContext* context, const v1::SuggestTrialsRequest* request,
    v1::SuggestTrialsResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("client_id", request->client_id(), kMaxClientIdLength));
    const int count = request->suggestion_count();
    if (count < 1 || count > kMaxSuggestionCount) {
      return absl::InvalidArgumentError(
          absl::StrCat("suggestion_count: must be 1 to ", kMaxSuggestionCount,
                       ", got ", count));
    }
    HPTUNE_ASSIGN_OR_RETURN(
        engine::SuggestResponse response,
        engine_.SuggestTrials(request->study(), count, request->client_id(),
                              trial_lease_seconds_));
    for (const Trial& trial : response.trials) {
      *reply->add_trials() = TrialToProto(request->study(), trial);
    }
    reply->set_study_completed(response.study_completed);
    reply->set_note(response.note);
    reply->set_lease_seconds(response.lease_seconds);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::RenewTrialLeases(
    grpc::ServerContext* context, const v1::RenewTrialLeasesRequest* request,
    v1::RenewTrialLeasesResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("client_id", request->client_id(), kMaxClientIdLength));
    HPTUNE_ASSIGN_OR_RETURN(
        std::vector<Trial> renewed,
        engine_.RenewLeases(request->study(), request->client_id()));
    for (const Trial& trial : renewed) reply->add_trial_ids(trial.number);
    // Each trial keeps the lease it was handed with (its study's, or the
    // server's then).
    reply->set_lease_seconds(renewed.empty() ? trial_lease_seconds_
                                             : renewed.front().lease_seconds);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::CreateTrial(grpc::ServerContext* context,
                                       const v1::CreateTrialRequest* request,
                                       v1::Trial* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    const v1::Trial& in = request->trial();
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("trial.client_id", in.client_id(), kMaxClientIdLength));
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("trial.reason", in.reason(), kMaxReasonLength));
    HPTUNE_ASSIGN_OR_RETURN(StudyRecord study,
                            engine_.GetStudy(request->study()));
    Trial trial;
    HPTUNE_ASSIGN_OR_RETURN(
        trial.parameters,
        ParametersFromProto(in.parameters(), study.spec.search_space,
                            "trial.parameters"));
    if (in.state() != v1::Trial::STATE_UNSPECIFIED) {
      std::optional<TrialState> state = TrialStateFromProto(in.state());
      if (!state ||
          (*state != TrialState::kRequested && *state != TrialState::kActive &&
           *state != TrialState::kSucceeded &&
           *state != TrialState::kInfeasible)) {
        return absl::InvalidArgumentError(
            absl::StrCat("trial.state: must be REQUESTED, ACTIVE, SUCCEEDED or "
                         "INFEASIBLE, got ",
                         v1::Trial::State_Name(in.state()).empty()
                             ? std::to_string(in.state())
                             : v1::Trial::State_Name(in.state())));
      }
      trial.state = *state;
    }
    if (in.has_final_measurement()) {
      HPTUNE_RETURN_IF_ERROR(
          CheckMetricNames(in.final_measurement(), "trial.final_measurement"));
      HPTUNE_ASSIGN_OR_RETURN(trial.final_measurement,
                              MeasurementFromProto(in.final_measurement(),
                                                   "trial.final_measurement"));
    }
    trial.reason = in.reason();
    trial.client_id = in.client_id();
    trial.origin = "user";
    if (trial.state == TrialState::kActive) {
      trial.lease_seconds =
          study.spec.trial_lease_seconds.value_or(trial_lease_seconds_);
    }
    HPTUNE_ASSIGN_OR_RETURN(
        Trial created, engine_.CreateTrial(request->study(), std::move(trial)));
    *reply = TrialToProto(request->study(), created);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::AddTrialParameter(
    grpc::ServerContext* context, const v1::AddTrialParameterRequest* request,
    v1::Trial* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(CheckTrialId(request->trial_id()));
    HPTUNE_ASSIGN_OR_RETURN(ParameterSpec spec,
                            RootParameterFromProto(request->spec(), "spec"));
    HPTUNE_ASSIGN_OR_RETURN(
        Trial trial,
        engine_.AddTrialParameter(request->study(), request->trial_id(),
                                  std::move(spec)));
    *reply = TrialToProto(request->study(), trial);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* StudyService::GetTrial(
    grpc::CallbackServerContext* context, const v1::GetTrialRequest* request,
    v1::Trial* reply) {
  return FinishNow(context, HandleGetTrial(context, request, reply));
}

grpc::Status StudyService::HandleGetTrial(
    const grpc::ServerContextBase* context, const v1::GetTrialRequest* request,
    v1::Trial* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(CheckTrialId(request->trial_id()));
    HPTUNE_ASSIGN_OR_RETURN(
        Trial trial, engine_.GetTrial(request->study(), request->trial_id()));
    *reply = TrialToProto(request->study(), trial);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::ListTrials(grpc::ServerContext* context,
                                      const v1::ListTrialsRequest* request,
                                      v1::ListTrialsResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(engine_.GetStudy(request->study()).status());
    std::set<int> states;
    for (int state : request->states()) {
      if (!v1::Trial::State_IsValid(state) ||
          state == v1::Trial::STATE_UNSPECIFIED) {
        return absl::InvalidArgumentError(
            absl::StrCat("states: not a trial state, got ", state));
      }
      states.insert(state);
    }
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> trials,
                            request->omit_measurements()
                                ? engine_.ListTrialSummaries(request->study())
                                : engine_.ListTrials(request->study()));
    for (const Trial& trial : trials) {
      if (!states.empty() && !states.contains(TrialStateToProto(trial.state))) {
        continue;
      }
      *reply->add_trials() =
          TrialToProto(request->study(), trial, !request->omit_measurements());
    }
    return absl::OkStatus();
  });
}

namespace {

// The measurement an AddMeasurement request adds, or what is wrong with it.
absl::StatusOr<Measurement> MeasurementToAdd(
    const v1::AddMeasurementRequest& request) {
  HPTUNE_RETURN_IF_ERROR(CheckName("study", request.study()));
  HPTUNE_RETURN_IF_ERROR(CheckTrialId(request.trial_id()));
  if (!request.has_measurement()) {
    return absl::InvalidArgumentError("measurement: required");
  }
  if (request.measurement().metrics().empty()) {
    return absl::InvalidArgumentError(
        "measurement.metrics: must not be empty (a measurement reports at "
        "least one metric)");
  }
  HPTUNE_RETURN_IF_ERROR(
      CheckMetricNames(request.measurement(), "measurement"));
  return MeasurementFromProto(request.measurement(), "measurement");
}

}  // namespace

// Answered when the measurement is committed, from the thread that commits
// it: this gRPC thread goes back to reading requests meanwhile, and the
// measurements that arrive during a commit share the next one.
grpc::ServerUnaryReactor* StudyService::AddMeasurement(
    grpc::CallbackServerContext* context,
    const v1::AddMeasurementRequest* request, v1::AddMeasurementResponse*) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (grpc::Status allowed = auth_.Check(*context); !allowed.ok()) {
    reactor->Finish(allowed);
    return reactor;
  }
  absl::StatusOr<Measurement> m = MeasurementToAdd(*request);
  if (m.ok()) {
    if (absl::Status allowed = MayUse(*context, request->study());
        !allowed.ok()) {
      m = allowed;
    }
  }
  if (!m.ok()) {
    reactor->Finish(ToGrpcStatus(m.status()));
    return reactor;
  }
  engine_.AddMeasurementAsync(request->study(), request->trial_id(),
                              *std::move(m), [reactor](absl::Status status) {
                                reactor->Finish(ToGrpcStatus(status));
                              });
  return reactor;
}

grpc::Status StudyService::HandleAddMeasurement(
    const grpc::ServerContextBase* context,
    const v1::AddMeasurementRequest* request, v1::AddMeasurementResponse*) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_ASSIGN_OR_RETURN(Measurement m, MeasurementToAdd(*request));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    return engine_.AddMeasurement(request->study(), request->trial_id(),
                                  std::move(m));
  });
}

absl::Status StudyService::LeaveOutUnused(
    const v1::CompleteTrialRequest& request) {
  const auto& names = request.unused_parameters();
  if (names.empty()) return absl::OkStatus();
  if (names.size() > kMaxUnusedParameters) {
    return absl::InvalidArgumentError(
        absl::StrCat("unused_parameters: at most ", kMaxUnusedParameters,
                     " names, got ", names.size()));
  }
  for (int i = 0; i < names.size(); ++i) {
    HPTUNE_RETURN_IF_ERROR(
        CheckLength(absl::StrCat("unused_parameters[", i, "]"), names[i],
                    kMaxParameterNameLength));
  }
  return engine_
      .LeaveOutUnusedParameters(request.study(), request.trial_id(),
                                {names.begin(), names.end()})
      .status();
}

grpc::Status StudyService::CompleteTrial(
    grpc::ServerContext* context, const v1::CompleteTrialRequest* request,
    v1::Trial* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(CheckTrialId(request->trial_id()));
    HPTUNE_RETURN_IF_ERROR(CheckLength(
        "infeasible_reason", request->infeasible_reason(), kMaxReasonLength));
    std::optional<Measurement> final;
    if (request->trial_infeasible()) {
      if (request->has_final_measurement()) {
        return absl::InvalidArgumentError(
            "final_measurement: must be unset with trial_infeasible");
      }
      if (request->infeasible_reason().empty()) {
        return absl::InvalidArgumentError(
            "infeasible_reason: required with trial_infeasible");
      }
    } else if (request->has_final_measurement()) {
      HPTUNE_RETURN_IF_ERROR(
          CheckMetricNames(request->final_measurement(), "final_measurement"));
      HPTUNE_ASSIGN_OR_RETURN(final,
                              MeasurementFromProto(request->final_measurement(),
                                                   "final_measurement"));
    }
    HPTUNE_RETURN_IF_ERROR(LeaveOutUnused(*request));  // A valid request.
    HPTUNE_ASSIGN_OR_RETURN(
        Trial trial,
        request->trial_infeasible()
            ? engine_.MarkTrialInfeasible(request->study(), request->trial_id(),
                                          request->infeasible_reason())
            : engine_.CompleteTrial(request->study(), request->trial_id(),
                                    final));
    *reply = TrialToProto(request->study(), trial);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* StudyService::CheckEarlyStopping(
    grpc::CallbackServerContext* context,
    const v1::CheckEarlyStoppingRequest* request,
    v1::CheckEarlyStoppingResponse* reply) {
  return FinishNow(context, HandleCheckEarlyStopping(context, request, reply));
}

grpc::Status StudyService::HandleCheckEarlyStopping(
    const grpc::ServerContextBase* context,
    const v1::CheckEarlyStoppingRequest* request,
    v1::CheckEarlyStoppingResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    if (request->trial_ids_size() > kMaxSuggestionCount) {
      return absl::InvalidArgumentError(
          absl::StrCat("trial_ids: at most ", kMaxSuggestionCount,
                       " trials, got ", request->trial_ids_size()));
    }
    for (int64_t id : request->trial_ids()) {
      if (id < 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("trial_ids: each must be at least 1, got ", id));
      }
    }
    std::set<int64_t> wanted(request->trial_ids().begin(),
                             request->trial_ids().end());
    // Passing the wanted trials lets the engine read only their curves:
    // clients ask about their own trial after every measurement.
    HPTUNE_ASSIGN_OR_RETURN(
        std::vector<algorithms::StoppingDecision> decisions,
        engine_.CheckEarlyStopping(request->study(), wanted));
    // A wanted trial without a decision has ended or does not exist; only
    // then is the store asked which (the hot path asks about running ones).
    std::set<int64_t> decided;
    for (const algorithms::StoppingDecision& d : decisions) {
      decided.insert(d.trial);
    }
    for (int64_t id : wanted) {
      if (decided.contains(id)) continue;
      absl::StatusOr<Trial> trial = engine_.GetTrial(request->study(), id);
      if (absl::IsNotFound(trial.status())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "trial_ids: study \"", request->study(), "\" has no trial ", id));
      }
      HPTUNE_RETURN_IF_ERROR(trial.status());
    }
    for (const algorithms::StoppingDecision& decision : decisions) {
      v1::EarlyStoppingDecision* out = reply->add_decisions();
      out->set_trial_id(decision.trial);
      out->set_should_stop(decision.stop);
      out->set_reason(decision.reason);
    }
    return absl::OkStatus();
  });
}

grpc::Status StudyService::StopTrial(grpc::ServerContext* context,
                                     const v1::StopTrialRequest* request,
                                     v1::Trial* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_RETURN_IF_ERROR(CheckTrialId(request->trial_id()));
    HPTUNE_RETURN_IF_ERROR(
        CheckLength("reason", request->reason(), kMaxReasonLength));
    const std::string reason =
        request->reason().empty() ? "stopped by a client" : request->reason();
    HPTUNE_ASSIGN_OR_RETURN(
        Trial trial,
        engine_.StopTrial(request->study(), request->trial_id(), reason));
    *reply = TrialToProto(request->study(), trial);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::ListOptimalTrials(
    grpc::ServerContext* context, const v1::ListOptimalTrialsRequest* request,
    v1::ListOptimalTrialsResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_ASSIGN_OR_RETURN(std::vector<Trial> optimal,
                            answers_.OptimalTrials(request->study()));
    for (const Trial& trial : optimal) {
      *reply->add_optimal_trials() = TrialToProto(request->study(), trial);
    }
    return absl::OkStatus();
  });
}

grpc::Status StudyService::GetParameterImportance(
    grpc::ServerContext* context,
    const v1::GetParameterImportanceRequest* request,
    v1::ParameterImportanceResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_ASSIGN_OR_RETURN(algorithms::ImportanceReport report,
                            answers_.Importance(request->study()));
    for (const algorithms::ParameterImportance& entry : report.importances) {
      v1::ParameterImportance* out = reply->add_importances();
      out->set_parameter(entry.parameter);
      out->set_importance(entry.importance);
      out->set_lower(entry.lower);
      out->set_upper(entry.upper);
      out->set_active_trials(entry.active_trials);
    }
    reply->set_trials(report.trials);
    reply->set_method("PED-ANOVA");
    reply->set_top_trials(report.top_trials);
    reply->set_trials_needed(report.trials_needed);
    reply->set_note(report.note);
    reply->set_bootstrap_resamples(report.bootstrap_resamples);
    return absl::OkStatus();
  });
}

grpc::Status StudyService::GetStoppingSavings(
    grpc::ServerContext* context, const v1::GetStoppingSavingsRequest* request,
    v1::StoppingSavingsResponse* reply) {
  return Serve(auth_, context, [&]() -> absl::Status {
    HPTUNE_RETURN_IF_ERROR(CheckName("study", request->study()));
    HPTUNE_RETURN_IF_ERROR(MayUse(*context, request->study()));
    HPTUNE_ASSIGN_OR_RETURN(std::optional<StoppingSavings> savings,
                            answers_.Savings(request->study()));
    if (savings)
      *reply->mutable_savings() = api::StoppingSavingsToProto(*savings);
    return absl::OkStatus();
  });
}

}  // namespace hptune::server

// Conversion between hptune.v1 messages and hptune's domain types, shared
// by both ends of the wire (docs/architecture.md).
//
// Called by the StudyService and JobService handlers of src/server, and by
// the CLI's client commands (src/cli/client), which read the study specs and
// times of the server's replies with it and build a submission's
// SlurmOptions; the rest of reading a Study or Trial reply, which only a
// client needs, is src/cli/client/proto_convert.h. Study specs and a job's
// TrainingInput are read field by field, never through text: what only a
// message can get wrong (an enum value outside the known set, a required
// field unset, an int64 count no int holds) is told with a config file's
// messages, then core's ValidateStudySpec or ValidateJob checks the rules,
// so errors name the request field ("spec.params[1].minValue: ...",
// "trainingInput.workerCount: ...") as a file's name its keys, and a job
// submitted over gRPC meets exactly the rules and messages of a config
// file. A JobSpec is written into a TrainingInput field by field
// (JobSpecToProto). The one text read here is a SubmitJobRequest's
// vertex_job (JobSpecFromVertexJob), user text. Pure functions;
// thread-safe.
#ifndef HPTUNE_SRC_API_CONVERSION_H_
#define HPTUNE_SRC_API_CONVERSION_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/study.h"
#include "hptune/core/trial.h"
#include "hptune/v1/job.pb.h"
#include "hptune/v1/study.pb.h"

namespace hptune::api {

// --- Enums ---
v1::Trial::State TrialStateToProto(TrialState state);
// nullopt for STATE_UNSPECIFIED or an unknown value.
std::optional<TrialState> TrialStateFromProto(v1::Trial::State state);
v1::Job::State JobStateToProto(JobState state);
std::optional<JobState> JobStateFromProto(v1::Job::State state);

// --- Studies and trials ---
// The domain spec, validated. InvalidArgument listing every problem, each
// field path prefixed with `field` (e.g. "spec").
absl::StatusOr<StudySpec> StudySpecFromProto(const v1::StudySpec& proto,
                                             std::string_view field);
v1::StudySpec StudySpecToProto(const StudySpec& spec);
// One root parameter (AddTrialParameter's spec): its fields read as a
// config's are, errors under `field`; conditional children are refused.
// The rules of a joining parameter are the engine's
// (ValidateJoiningParameter).
absl::StatusOr<ParameterSpec> RootParameterFromProto(
    const v1::ParameterSpec& proto, std::string_view field);
// The study's state both ways; an unknown proto state reads as ACTIVE.
v1::Study::State StudyStateToProto(StudyState state);
StudyState StudyStateFromProto(v1::Study::State state);
v1::Study StudyToProto(const StudyRecord& study);

// Measurement time: unset -> zero (the engine stamps it). InvalidArgument
// for a negative step, an empty name or a value that is not finite.
absl::StatusOr<Measurement> MeasurementFromProto(const v1::Measurement& proto,
                                                 std::string_view field);
// elapsed_duration is measured from `start` when given.
v1::Measurement MeasurementToProto(const Measurement& m,
                                   std::optional<Timestamp> start);

// The parameters of `proto` as values of `space`'s parameter types: an
// integral double for an INTEGER, an integer for a DOUBLE or DISCRETE.
// InvalidArgument naming the parameter for a value of the wrong kind; the
// engine checks ranges and membership.
absl::StatusOr<ParameterAssignment> ParametersFromProto(
    const google::protobuf::Map<std::string, v1::ParameterValue>& proto,
    const SearchSpace& space, std::string_view field);
v1::Trial TrialToProto(std::string_view study, const Trial& trial,
                       bool with_measurements = true);

// --- Jobs ---
// A SubmitJobRequest's vertex_job: the text of a Vertex AI
// HyperparameterTuningJob (JSON or YAML), read by the config parser, which
// must find it a Vertex spec; InvalidArgument naming fields under
// "vertex_job." otherwise.
// `field` names the text in errors ("vertex_job.studySpec..."); empty, the
// text is a whole request (REST's create body): its errors name the Vertex
// fields alone, and its `backend` and `slurm` blocks are refused (the
// server chooses where trials run), as ParseJobResource refuses them.
// `resource` is what the text must be: a HyperparameterTuningJob (with a
// study), or a CustomJob (REST's customJobs.create: jobSpec, no study).
enum class VertexResource { kHyperparameterTuningJob, kCustomJob };
absl::StatusOr<JobSpec> JobSpecFromVertexJob(
    std::string_view text, std::string_view job_id,
    std::string_view field = "vertex_job",
    VertexResource resource = VertexResource::kHyperparameterTuningJob);
// A TrainingInput read field by field (no text in between), then completed
// and judged by CompleteJob and ValidateJob: InvalidArgument listing every
// problem as "trainingInput.<path>: ...", the list ParseJobConfig gives for
// the job's canonical JSON, in its order.
absl::StatusOr<JobSpec> JobSpecFromProto(const v1::TrainingInput& proto,
                                         std::string_view job_id);
// The job as a TrainingInput, field by field, with the fields its canonical
// JSON has (TrainingInputToJson): a CUSTOM tier's machines, the rest of a
// pool's config when set. Labels and Slurm options are the Job's.
v1::TrainingInput JobSpecToProto(const JobSpec& job);
// A job's own sbatch options; InvalidArgument listing every problem as
// "slurm.<field>: ..." (ValidateSlurmJobOptions).
absl::StatusOr<SlurmJobOptions> SlurmOptionsFromProto(
    const v1::SlurmOptions& proto);
v1::SlurmOptions SlurmOptionsToProto(const SlurmJobOptions& slurm);
// A job's labels; InvalidArgument listing every problem as "labels: ..."
// (ValidateJobLabels).
absl::StatusOr<JobLabels> JobLabelsFromProto(
    const google::protobuf::Map<std::string, std::string>& proto);

// A trial's state as AI Platform's job states: QUEUED for a trial that
// `waits` in the backend's queue (a Slurm job PENDING), else its state's
// equivalent (an ACTIVE trial is RUNNING).
v1::Job::State TrialOutputState(const Trial& trial, bool waits);
// One trial as AI Platform's HyperparameterOutput, `metric` its objective;
// a trial that `waits` has no startTime yet.
v1::HyperparameterOutput TrialToOutput(const Trial& trial,
                                       const std::string& metric,
                                       bool waits = false);
// The job with its training output. `trials` are the study's trials (may be
// empty); they are listed only when `with_trials`. `waiting` are the
// trials the backend holds in its queue.
v1::Job JobToProto(const JobRecord& job, const StudySpec* spec,
                   const std::vector<Trial>& trials, bool with_trials,
                   const std::set<int64_t>& waiting = {});
// The same for a job whose trainingInput is in hand (`decoded`, as
// DecodeStoredJob of job.training_input_json would give it; null: none):
// SubmitJob's reply describes the JobSpec it just stored without reading it
// back.
v1::Job JobToProto(const JobRecord& job, const JobSpec* decoded,
                   const StudySpec* spec, const std::vector<Trial>& trials,
                   bool with_trials, const std::set<int64_t>& waiting = {});

// Timestamps.
google::protobuf::Timestamp TimestampToProto(Timestamp t);
Timestamp TimestampFromProto(const google::protobuf::Timestamp& t);
// nullopt for an unset (all-zero) Timestamp.
std::optional<Timestamp> OptionalTimestampFromProto(
    const google::protobuf::Timestamp& t);

// --- Replies --- (reply_reading.cc)
// What a server wrote, read back by its clients (the CLI, the REST
// gateway) without checks: a Trial with typed values, its measurements
// and times; a Job's record (ID, state, error, labels, times) as the store
// keeps it, what VertexJobJson reads.
Trial TrialFromProto(const v1::Trial& trial);
JobRecord JobRecordFromProto(const v1::Job& job);

}  // namespace hptune::api

#endif  // HPTUNE_SRC_API_CONVERSION_H_

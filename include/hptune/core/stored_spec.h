// Reading back what hptune wrote itself: a job's canonical trainingInput
// JSON (TrainingInputToJson: JobRecord.training_input_json, TF_CONFIG's
// "job") and a study's spec JSON (StudySpecToJson: the store's spec_json).
//
// Used by the store, the job manager, the read side and the Slurm launcher.
// These are decoders, not validators: only the text's shape is read (known
// fields, values of the right kinds); no rule of docs/config.md is checked,
// since the job or study was checked when it was accepted (ValidateJob,
// ValidateStudySpec), and a rule added since must not make a stored job
// unreadable. User text goes through ParseJobConfig instead. Pure
// functions; thread-safe.
#ifndef HPTUNE_CORE_STORED_SPEC_H_
#define HPTUNE_CORE_STORED_SPEC_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/study.h"

namespace hptune {

// TrainingInputToJson's text, {"trainingInput": {...}}, as a JobSpec with
// `job_id`. InvalidArgument listing every error when the text is not of
// that shape.
absl::StatusOr<JobSpec> DecodeStoredJob(std::string_view json,
                                        std::string_view job_id = "");

// TF_CONFIG's "job" (TrainingInputToJson's form, or its trainingInput
// object alone), or a Vertex CLUSTER_SPEC's; NotFound when the text is not
// a JSON object with a "job" object.
absl::StatusOr<JobSpec> DecodeTfConfigJob(std::string_view tf_config);

// StudySpecToJson's text; InvalidArgument listing every error, each under
// `hyperparameters`, when the text is not of that shape.
absl::StatusOr<StudySpec> DecodeStoredStudySpec(std::string_view json);

}  // namespace hptune

#endif  // HPTUNE_CORE_STORED_SPEC_H_

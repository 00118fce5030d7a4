// RecordCodec: the JSON that SqliteStore keeps in its TEXT columns.
//
// Parameter assignments, metric maps, final measurements and a job's labels
// and Slurm options are stored as JSON so the schema need not change with
// every new field. (A study spec is stored in its canonical config form,
// StudySpecToJson in hptune/core/config.h.) Doubles are written in the shortest form
// that reads back to the same bits (nlohmann's Grisu2), so values round-trip
// exactly; NaN and infinities are refused on the way in, since JSON cannot hold
// them. INTEGER parameter values stay JSON integers and DOUBLE ones JSON floats
// (`3.0`), which keeps the two apart on the way back. No exception escapes:
// nlohmann's become Status (InvalidArgument encoding, DataLoss decoding). Pure
// functions; thread-safe.
#ifndef HPTUNE_SRC_STORE_RECORD_CODEC_H_
#define HPTUNE_SRC_STORE_RECORD_CODEC_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "hptune/core/job.h"
#include "hptune/core/measurement.h"
#include "hptune/core/search_space.h"

namespace hptune::store::internal {

using MetricMap = std::map<std::string, double>;

absl::StatusOr<std::string> EncodeParameters(const ParameterAssignment& params);
absl::StatusOr<ParameterAssignment> DecodeParameters(std::string_view json);

absl::StatusOr<std::string> EncodeMetrics(const MetricMap& metrics);
absl::StatusOr<MetricMap> DecodeMetrics(std::string_view json);

// A whole measurement: {"step": 100, "time": <unix micros>, "metrics": {...}}.
absl::StatusOr<std::string> EncodeMeasurement(const Measurement& measurement);
absl::StatusOr<Measurement> DecodeMeasurement(std::string_view json);

// A job's own sbatch options: {"partition": ..., "account": ..., "time": ...,
// "options": [...]}, empty fields left out, so "{}" is none.
absl::StatusOr<std::string> EncodeSlurmJobOptions(const SlurmJobOptions& slurm);
absl::StatusOr<SlurmJobOptions> DecodeSlurmJobOptions(std::string_view json);

// A job's labels: {"team": "vision", ...}, so "{}" is none.
absl::StatusOr<std::string> EncodeJobLabels(const JobLabels& labels);
absl::StatusOr<JobLabels> DecodeJobLabels(std::string_view json);

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_RECORD_CODEC_H_

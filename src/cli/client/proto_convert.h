// The client's side of the wire: a validated trainingInput as the
// TrainingInput message, and the server's Study messages as the domain
// values the CLI's tables print (src/cli/trial_table.h), so `studies` and
// `trials` look the same with --db and over the server. Study specs, Trial
// replies and timestamps use src/api/conversion.h, the one proto <-> domain
// mapping;
// what is here is the direction only a client needs. Used only by src/cli.
// Pure functions; thread-safe.
#ifndef HPTUNE_CLI_CLIENT_PROTO_CONVERT_H_
#define HPTUNE_CLI_CLIENT_PROTO_CONVERT_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"
#include "hptune/core/study.h"
#include "hptune/core/time.h"
#include "hptune/core/trial.h"
#include "hptune/v1/job.pb.h"
#include "hptune/v1/study.pb.h"

namespace hptune::cli::client {

// A message as proto3 JSON (camelCase names, enums by name), indented by 2
// when `pretty`, else on one line.
std::string MessageToJson(const google::protobuf::Message& message,
                          bool pretty);

// InvalidArgument with the parser's messages when the server sent a spec
// hptune's own parser refuses.
// A Trial reply is api::TrialFromProto's.
absl::StatusOr<StudyRecord> StudyFromProto(const v1::Study& study);

}  // namespace hptune::cli::client

#endif  // HPTUNE_CLI_CLIENT_PROTO_CONVERT_H_

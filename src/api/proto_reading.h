// Private to src/api: what reading a request message field by field shares.
//
// A request is read from its typed fields, never through text; the few
// problems only a message can have (an enum value outside the known set, a
// required field left unset, a value of the wrong kind) are reported here
// with the messages a config file's reader gives for the same field, so a
// request and a file are judged alike. Paths are a config file's
// lowerCamelCase keys under the request's field ("spec.params[0].type").
#ifndef HPTUNE_SRC_API_PROTO_READING_H_
#define HPTUNE_SRC_API_PROTO_READING_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/config.h"
#include "hptune/core/field_text.h"

namespace hptune::api::proto_internal {

using field_text::IndexPath;  // hptune/core/field_text.h
using field_text::JoinPath;
using field_text::Quote;
// The shortest text that reads back to the same double, as a JSON number
// (1, 0.1, 1e+30); NaN and the infinities as protobuf's JSON names them.
std::string DescribeNumber(double value);
// "must be a string, got 7 (quote it: \"7\")": an enum's number outside the
// values this build knows.
std::string UnknownEnum(int value);
// `must be one of A, B, got "X"`.
std::string MustBeOneOf(const std::vector<std::string>& allowed,
                        std::string_view got);

// The problems found in a message, and the fields whose problems are
// already told, so that a rule checked later on the typed value says
// nothing more about them.
class ProtoErrors {
 public:
  void Add(std::string field, std::string message);
  // A problem with a field that is not set: a config file's reader tells it
  // after everything else in the field's parent.
  void AddMissing(std::string field, std::string message);
  // Errors under `field` from later rules are left out.
  void Report(std::string field) { reported_.push_back(std::move(field)); }
  size_t size() const { return errors_.size(); }
  // Adds `rules`' errors that fall under no reported field.
  void AddRules(std::vector<FieldError> rules);
  // InvalidArgument listing every problem in the order of their fields (a
  // field's keys alphabetical, a list's items in order), or OK.
  absl::Status ToStatus() const;

 private:
  struct Entry {
    FieldError error;
    bool missing = false;
  };
  std::vector<Entry> errors_;
  std::vector<std::string> reported_;
};

}  // namespace hptune::api::proto_internal

#endif  // HPTUNE_SRC_API_PROTO_READING_H_

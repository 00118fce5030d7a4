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

#include <google/protobuf/message.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "hptune/core/config.h"
#include "hptune/core/field_text.h"

namespace hptune::api::proto_internal {

using field_text::IndexPath;  // hptune/core/field_text.h
using field_text::JoinPath;
using field_text::MustBeOneOf;
using field_text::Quote;
// The shortest text that reads back to the same double, as a JSON number
// (1, 0.1, 1e+30); NaN and the infinities as protobuf's JSON names them.
std::string DescribeNumber(double value);
// "must be a string, got 7 (quote it: \"7\")": an enum's number outside the
// values this build knows.
std::string UnknownEnum(int value);

// The problems found in a message, and the fields whose problems are
// already told, so that a rule checked later on the typed value says
// nothing more about them.
class ProtoErrors {
 public:
  void Add(std::string field, std::string message);
  // A problem with a field that is not set: a config file's reader tells it
  // after everything else in the field's parent.
  void AddMissing(std::string field, std::string message);
  // A problem with `field` told where `anchor`, a field that is set, is (a
  // rule that `anchor` brought in, such as scaleTier CUSTOM's "required").
  void AddAt(std::string anchor, std::string field, std::string message);
  // Errors under `field` from later rules are left out.
  void Report(std::string field) { reported_.push_back(std::move(field)); }
  size_t size() const { return errors_.size(); }
  // Places the errors of later rules as a config file's reader places them
  // in the message's canonical JSON: at their field when `message` sets it,
  // else at the nearest enclosing field it sets. `path` is the message's.
  // Without it, each is placed at its own field.
  void PlaceRulesIn(const google::protobuf::Message& message,
                    const std::string& path);
  // Adds `rules`' errors that fall under no reported field and were not
  // told already (the same field and message).
  void AddRules(std::vector<FieldError> rules);
  // InvalidArgument listing every problem in the order of their places (a
  // field's keys alphabetical, a list's items in order), or OK.
  absl::Status ToStatus() const;

 private:
  struct Entry {
    FieldError error;
    std::string place;     // The field the error is told at.
    bool missing = false;  // After everything in the place's parent.
  };
  std::string PlaceOfRule(std::string field) const;

  std::vector<Entry> errors_;
  std::vector<std::string> reported_;
  std::set<std::string> set_fields_;  // PlaceRulesIn's.
  std::string root_;
};

}  // namespace hptune::api::proto_internal

#endif  // HPTUNE_SRC_API_PROTO_READING_H_

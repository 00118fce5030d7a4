#include "src/dashboard/note_routes.h"

#include <algorithm>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "hptune/core/status.h"
#include "hptune/core/time.h"

namespace hptune::dashboard {
namespace {

// The audit rows an answer carries: the latest.
constexpr size_t kShownEdits = 20;

struct NoteTarget {
  std::string study;
  int64_t trial = 0;  // 0: the study's note.
};

absl::StatusOr<NoteTarget> Target(const httplib::Request& req) {
  NoteTarget target{.study = req.matches[1].str()};
  if (target.study.empty() || target.study.size() > kMaxStudyName) {
    return absl::InvalidArgumentError(
        absl::StrCat("study: a study name has 1 to ", kMaxStudyName,
                     " bytes, got ", target.study.size()));
  }
  if (req.matches.size() > 2 &&
      (!absl::SimpleAtoi(req.matches[2].str(), &target.trial) ||
       target.trial < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial \"", req.matches[2].str().substr(0, 100),
                     "\": expected a trial number"));
  }
  return target;
}

Json NoteJson(const store::Note& note) {
  Json edits = Json::array();
  const size_t first =
      note.edits.size() > kShownEdits ? note.edits.size() - kShownEdits : 0;
  for (size_t i = first; i < note.edits.size(); ++i) {
    const store::NoteEdit& edit = note.edits[i];
    edits.push_back({{"time", FormatRfc3339(edit.time)},
                     {"peer", edit.peer},
                     {"client", edit.client},
                     {"bytes", edit.bytes}});
  }
  return {{"text", note.text},
          {"edits", std::move(edits)},
          {"edit_count", note.edits.size()}};
}

// "127.0.0.1:51234", "[::1]:51234".
std::string Peer(const httplib::Request& req) {
  const bool v6 = req.remote_addr.find(':') != std::string::npos;
  return absl::StrCat(v6 ? "[" : "", req.remote_addr, v6 ? "]" : "", ":",
                      req.remote_port);
}

// The note's text from a body {"text": "..."}; InvalidArgument naming what
// is wrong, ResourceExhausted naming the note and its size.
absl::StatusOr<std::string> NoteText(const httplib::Request& req) {
  const Json body = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("text") ||
      !body["text"].is_string()) {
    return absl::InvalidArgumentError(
        "the body must be a JSON object {\"text\": \"...\"}");
  }
  std::string text = body["text"].get<std::string>();
  if (text.size() > store::kMaxNoteBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "note: ", text.size(), " bytes, at most ", store::kMaxNoteBytes));
  }
  return text;
}

void ReadNote(store::Store& store, const httplib::Request& req,
              httplib::Response& res) {
  Answer(res, [&]() -> absl::StatusOr<Json> {
    HPTUNE_ASSIGN_OR_RETURN(NoteTarget target, Target(req));
    HPTUNE_ASSIGN_OR_RETURN(store::Note note,
                            store.GetNote(target.study, target.trial));
    return NoteJson(note);
  });
}

void WriteNote(store::Store& store, const DashboardActions& actions,
               const IdentifyClient& identify, const httplib::Request& req,
               httplib::Response& res) {
  if (!actions.set_note) {
    return SendError(res, 403,
                     "this dashboard is read-only (hptune dashboard); write "
                     "notes through hptune serve");
  }
  Answer(res, [&]() -> absl::StatusOr<Json> {
    HPTUNE_ASSIGN_OR_RETURN(NoteTarget target, Target(req));
    HPTUNE_ASSIGN_OR_RETURN(std::string text, NoteText(req));
    HPTUNE_RETURN_IF_ERROR(
        actions.set_note(target.study, target.trial, text,
                         {.peer = Peer(req), .client = identify(req)}));
    HPTUNE_ASSIGN_OR_RETURN(store::Note note,
                            store.GetNote(target.study, target.trial));
    return NoteJson(note);
  });
}

}  // namespace

void AddNoteRoutes(ApiRoutes& routes, store::Store& store,
                   const DashboardActions& actions, IdentifyClient identify) {
  for (const char* pattern : {R"(/api/studies/([^/]+)/note)",
                              R"(/api/studies/([^/]+)/trials/([^/]+)/note)"}) {
    routes.Get(pattern,
               [&store](const httplib::Request& req, httplib::Response& res) {
                 ReadNote(store, req, res);
               });
    routes.Post(pattern,
                [&store, &actions, identify](const httplib::Request& req,
                                             httplib::Response& res) {
                  WriteNote(store, actions, identify, req, res);
                });
  }
}

}  // namespace hptune::dashboard

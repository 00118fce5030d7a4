// The Store's study, usage, designer-state and note operations
// (store_operations.h), for both SQL stores.
#include <optional>
#include <string>

#include "hptune/core/status.h"
#include "src/store/note_tables.h"
#include "src/store/postgres_connection.h"
#include "src/store/sqlite_connection.h"
#include "src/store/store_operations.h"
#include "src/store/store_rules.h"
#include "src/store/store_tables.h"

namespace hptune::store::internal {

// --- studies ---

template <typename Db>
absl::Status CreateStudyIn(Db& db, const StudyRecord& study, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, StudyExists(db, study.name));
  if (exists) return StudyAlreadyExists(study.name);
  HPTUNE_RETURN_IF_ERROR(InsertStudy(db, study));
  return InsertEvent(db, MakeEvent(now, kStudyCreated, study.name, "", 0, ""));
}

template <typename Db>
absl::StatusOr<StudyRecord> GetStudyIn(Db& db, std::string_view name) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<StudyRecord> study,
                          SelectStudy(db, name));
  if (!study) return StudyNotFound(name);
  return *std::move(study);
}

template <typename Db>
absl::Status DeleteStudyIn(Db& db, std::string_view name, Timestamp now) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, name));
  HPTUNE_RETURN_IF_ERROR(DeleteStudyRow(db, name));
  return InsertEvent(db, MakeEvent(now, kStudyDeleted, name, "", 0, ""));
}

template <typename Db>
absl::Status SetStudyStateIn(Db& db, std::string_view name, StudyState state,
                             std::string_view reason, Timestamp now) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<StudyRecord> study,
                          SelectStudy(db, name));
  if (!study) return StudyNotFound(name);
  if (study->state == state && study->reason == reason) {
    return absl::OkStatus();
  }
  HPTUNE_RETURN_IF_ERROR(UpdateStudyState(db, name, state, reason));
  if (study->state == state) return absl::OkStatus();
  return InsertEvent(db, MakeEvent(now, kStudyState, name, "", 0,
                                   TransitionDetail(study->state, state)));
}

template <typename Db>
absl::StatusOr<UserUsage> GetStudyOwnerUsageIn(Db& db, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(std::optional<int64_t> owner,
                          SelectStudyOwner(db, study));
  if (!owner) return StudyNotFound(study);
  if (*owner < 0) return UserUsage{};
  return SelectUserUsage(db, *owner);
}

template <typename Db>
absl::StatusOr<std::string> GetDesignerStateIn(Db& db, std::string_view study) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, study));
  return SelectDesignerState(db, study);
}

template <typename Db>
absl::Status CheckStudyExists(Db& db, std::string_view study) {
  HPTUNE_ASSIGN_OR_RETURN(bool exists, StudyExists(db, study));
  if (!exists) return StudyNotFound(study);
  return absl::OkStatus();
}

// --- notes ---

template <typename Db>
absl::Status CheckNoteOwner(Db& db, std::string_view study, int64_t trial) {
  HPTUNE_RETURN_IF_ERROR(CheckStudyExists(db, study));
  if (trial == 0) return absl::OkStatus();
  HPTUNE_ASSIGN_OR_RETURN(int64_t last, SelectLastTrialNumber(db, study));
  if (trial < 1 || trial > last) return TrialNotFound(study, trial);
  return absl::OkStatus();
}

template <typename Db>
absl::Status SetNoteIn(Db& db, std::string_view study, int64_t trial,
                       std::string_view text, const NoteEdit& edit) {
  HPTUNE_RETURN_IF_ERROR(CheckNoteOwner(db, study, trial));
  return UpsertNote(db, study, trial, text, edit);
}

template <typename Db>
absl::StatusOr<Note> GetNoteIn(Db& db, std::string_view study, int64_t trial) {
  HPTUNE_RETURN_IF_ERROR(CheckNoteOwner(db, study, trial));
  return SelectNote(db, study, trial);
}

// Both stores' connections (store_operations.h).
#define HPTUNE_INSTANTIATE_OPERATIONS(Db)                                      \
  template absl::Status CreateStudyIn<Db>(Db&, const StudyRecord&, Timestamp); \
  template absl::StatusOr<StudyRecord> GetStudyIn<Db>(Db&, std::string_view);  \
  template absl::Status DeleteStudyIn<Db>(Db&, std::string_view, Timestamp);   \
  template absl::Status SetStudyStateIn<Db>(Db&, std::string_view, StudyState, \
                                            std::string_view, Timestamp);      \
  template absl::StatusOr<UserUsage> GetStudyOwnerUsageIn<Db>(                 \
      Db&, std::string_view);                                                  \
  template absl::StatusOr<std::string> GetDesignerStateIn<Db>(                 \
      Db&, std::string_view);                                                  \
  template absl::Status CheckStudyExists<Db>(Db&, std::string_view);           \
  template absl::Status CheckNoteOwner<Db>(Db&, std::string_view, int64_t);    \
  template absl::Status SetNoteIn<Db>(Db&, std::string_view, int64_t,          \
                                      std::string_view, const NoteEdit&);      \
  template absl::StatusOr<Note> GetNoteIn<Db>(Db&, std::string_view, int64_t);
HPTUNE_INSTANTIATE_OPERATIONS(SqliteConnection)
HPTUNE_INSTANTIATE_OPERATIONS(PgConnection)
#undef HPTUNE_INSTANTIATE_OPERATIONS

}  // namespace hptune::store::internal

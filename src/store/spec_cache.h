// StudySpecCache: study specs decoded from their stored text (the studies
// table's spec_json), kept by that text, so that reading a study's row
// again does not decode the same JSON again. GetStudy, SuggestTrials and
// CompleteTrial each read their study's row, and decoding costs more than
// the read (about 40 µs a GetStudy: benchmarks/RESULTS.md, "The
// alternating A/B, 2026-11-30").
//
// Each SqliteConnection and PgConnection holds one, which the study table
// code (study_tables.cc) reads through. The key is the whole text, so a row
// whose text changed is decoded afresh: correct by construction, whichever
// process wrote the row. Bounded by entries and by bytes of text; when the
// next spec would not fit, all are dropped (clear-on-full: the studies a
// server reads are far fewer than the bound, and past it each costs one
// decode again, as with no cache, where an LRU's bookkeeping would buy
// nothing). A failed decode is not kept. Not thread-safe: it lives on a
// connection, which one thread uses at a time.
#ifndef HPTUNE_SRC_STORE_SPEC_CACHE_H_
#define HPTUNE_SRC_STORE_SPEC_CACHE_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "hptune/core/study.h"

namespace hptune::store::internal {

class StudySpecCache {
 public:
  // A few KiB a typical spec: 256 of them fit well within the bytes; a
  // spec over the bytes alone (up to kMaxConfigTextBytes) is never kept.
  static constexpr size_t kMaxEntries = 256;
  static constexpr size_t kMaxTextBytes = 1 << 20;

  using Decoder =
      absl::FunctionRef<absl::StatusOr<StudySpec>(std::string_view text)>;

  explicit StudySpecCache(size_t max_entries = kMaxEntries,
                          size_t max_text_bytes = kMaxTextBytes)
      : max_entries_(max_entries), max_text_bytes_(max_text_bytes) {}
  StudySpecCache(const StudySpecCache&) = delete;
  StudySpecCache& operator=(const StudySpecCache&) = delete;

  // The spec decoded from `text`: a copy of the one kept for this very
  // text, else `decode(text)`, kept when it succeeded and fits.
  absl::StatusOr<StudySpec> Decode(std::string_view text, Decoder decode);

  size_t size() const { return specs_.size(); }

 private:
  // Lets a std::string_view find a std::string key without a copy.
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const {
      return std::hash<std::string_view>()(text);
    }
  };

  const size_t max_entries_;
  const size_t max_text_bytes_;
  std::unordered_map<std::string, StudySpec, TextHash, std::equal_to<>> specs_;
  size_t text_bytes_ = 0;  // Of specs_'s keys.
};

}  // namespace hptune::store::internal

#endif  // HPTUNE_SRC_STORE_SPEC_CACHE_H_

#include "src/store/spec_cache.h"

#include <utility>

namespace hptune::store::internal {

absl::StatusOr<StudySpec> StudySpecCache::Decode(std::string_view text,
                                                 Decoder decode) {
  auto kept = specs_.find(text);
  if (kept != specs_.end()) return kept->second;
  absl::StatusOr<StudySpec> spec = decode(text);
  if (!spec.ok() || text.size() > max_text_bytes_) return spec;
  if (specs_.size() >= max_entries_ ||
      text_bytes_ + text.size() > max_text_bytes_) {
    specs_.clear();
    text_bytes_ = 0;
  }
  specs_.emplace(std::string(text), *spec);
  text_bytes_ += text.size();
  return spec;
}

}  // namespace hptune::store::internal

// StudySpecCache's logic with a counting decoder: a text seen before is not
// decoded again, another text (a changed row) is, failures are not kept,
// and the bounds on entries and bytes hold.
#include "src/store/spec_cache.h"

#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace hptune::store::internal {
namespace {

using ::hptune_testing::StatusHasCode;

// Decodes a number's text into a spec with that many trials; anything else
// is InvalidArgument. Counts its calls (mutable: FunctionRef calls it
// const).
class CountingDecoder {
 public:
  absl::StatusOr<StudySpec> operator()(std::string_view text) const {
    ++calls;
    if (text.empty() ||
        text.find_first_not_of("0123456789") != std::string_view::npos) {
      return absl::InvalidArgumentError("not a number");
    }
    StudySpec spec;
    spec.max_trials = std::stoi(std::string(text));
    return spec;
  }

  mutable int calls = 0;
};

// The trials of the spec `cache` gives for `text`; -1 when it fails.
int TrialsOf(StudySpecCache& cache, CountingDecoder& decoder,
             std::string_view text) {
  absl::StatusOr<StudySpec> spec = cache.Decode(text, decoder);
  return spec.ok() ? spec->max_trials : -1;
}

TEST(StudySpecCacheTest, ATextSeenBeforeIsNotDecodedAgain) {
  StudySpecCache cache;
  CountingDecoder decoder;
  EXPECT_EQ(TrialsOf(cache, decoder, "12"), 12);
  EXPECT_EQ(TrialsOf(cache, decoder, "12"), 12);
  EXPECT_EQ(decoder.calls, 1);
  EXPECT_EQ(cache.size(), 1u);
}

TEST(StudySpecCacheTest, ADifferentTextDecodesItsOwnSpec) {
  StudySpecCache cache;
  CountingDecoder decoder;
  EXPECT_EQ(TrialsOf(cache, decoder, "12"), 12);
  // A study row whose text changed: the new text's spec, not the kept one.
  EXPECT_EQ(TrialsOf(cache, decoder, "13"), 13);
  EXPECT_EQ(TrialsOf(cache, decoder, "120"), 120);
  EXPECT_EQ(decoder.calls, 3);
  EXPECT_EQ(TrialsOf(cache, decoder, "12"), 12);
  EXPECT_EQ(TrialsOf(cache, decoder, "13"), 13);
  EXPECT_EQ(decoder.calls, 3);
}

TEST(StudySpecCacheTest, AFailedDecodeIsNotKept) {
  StudySpecCache cache;
  CountingDecoder decoder;
  EXPECT_THAT(cache.Decode("{", decoder),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(cache.Decode("{", decoder),
              StatusHasCode(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(decoder.calls, 2);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(StudySpecCacheTest, AFullCacheStartsAfreshAndStaysWithinItsEntries) {
  StudySpecCache cache(/*max_entries=*/2);
  CountingDecoder decoder;
  EXPECT_EQ(TrialsOf(cache, decoder, "1"), 1);
  EXPECT_EQ(TrialsOf(cache, decoder, "2"), 2);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(TrialsOf(cache, decoder, "3"), 3);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(TrialsOf(cache, decoder, "3"), 3);
  EXPECT_EQ(decoder.calls, 3);
  EXPECT_EQ(TrialsOf(cache, decoder, "1"), 1);  // Dropped when "3" came.
  EXPECT_EQ(decoder.calls, 4);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(StudySpecCacheTest, TheTextsBytesAreBounded) {
  StudySpecCache cache(/*max_entries=*/100, /*max_text_bytes=*/4);
  CountingDecoder decoder;
  EXPECT_EQ(TrialsOf(cache, decoder, "11"), 11);
  EXPECT_EQ(TrialsOf(cache, decoder, "22"), 22);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(TrialsOf(cache, decoder, "33"), 33);  // 6 bytes: starts afresh.
  EXPECT_EQ(cache.size(), 1u);
  // A text over the bound alone is decoded each time and never kept.
  EXPECT_EQ(TrialsOf(cache, decoder, "12345"), 12345);
  EXPECT_EQ(TrialsOf(cache, decoder, "12345"), 12345);
  EXPECT_EQ(decoder.calls, 5);
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(TrialsOf(cache, decoder, "33"), 33);
  EXPECT_EQ(decoder.calls, 5);
}

}  // namespace
}  // namespace hptune::store::internal

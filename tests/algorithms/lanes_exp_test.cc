#include "algorithms/common/lanes_exp.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"

namespace hptune::algorithms {
namespace {

// exp through ExpLanes, eight at a time, compiled here for `target`'s width
// (ExpLanes is always inlined into its caller).
#define HPTUNE_EXP_ALL(name, attributes)                       \
  attributes std::vector<double> name(std::vector<double> x) { \
    x.resize((x.size() + kLanes - 1) / kLanes * kLanes, 0.0);  \
    for (size_t i = 0; i < x.size(); i += kLanes) {            \
      Lanes v;                                                 \
      LoadLanes(x.data() + i, v);                              \
      ExpLanes(v);                                             \
      StoreLanes(x.data() + i, v);                             \
    }                                                          \
    return x;                                                  \
  }
HPTUNE_EXP_ALL(ExpAll, )
#if defined(__x86_64__)
HPTUNE_EXP_ALL(ExpAllAvx2, __attribute__((target("avx2"))))
HPTUNE_EXP_ALL(ExpAllAvx512, __attribute__((target("avx512f"))))
#endif

std::vector<double> Arguments() {
  std::vector<double> x = {0.0,
                           -0.0,
                           1e-300,
                           -1e-300,
                           1e-17,
                           -1e-17,
                           0.5 * std::log(2.0),
                           -0.5 * std::log(2.0),
                           -707.99,
                           -708.0,
                           1.0,
                           -1.0,
                           700.0};
  for (int i = 0; i <= 200'000; ++i) x.push_back(-708.0 + i * (1408.0 / 2e5));
  return x;
}

TEST(LanesExpTest, IsWithinTwoUlpOfExp) {
  const std::vector<double> x = Arguments();
  const std::vector<double> got = ExpAll(x);
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(x[i]);
    const double error = std::abs(got[i] - want) / want;
    EXPECT_LE(error, 2 * std::numeric_limits<double>::epsilon())
        << "exp(" << x[i] << ") = " << want << ", lanes give " << got[i];
    worst = std::max(worst, error);
  }
  std::ostringstream text;
  text << std::scientific << worst;
  RecordProperty("worst_relative_error", text.str());
}

TEST(LanesExpTest, GivesZeroBelowTheNormalRange) {
  const std::vector<double> got = ExpAll({-708.5, -745.0, -1e300});
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i], 0.0) << i;
}

TEST(LanesExpTest, EveryVectorWidthGivesTheSameBits) {
#if defined(__x86_64__)
  const std::vector<double> x = Arguments();
  const std::vector<double> base = ExpAll(x);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) {
    const std::vector<double> avx2 = ExpAllAvx2(x);
    EXPECT_EQ(std::memcmp(base.data(), avx2.data(), x.size() * 8), 0);
  }
  if (__builtin_cpu_supports("avx512f")) {
    const std::vector<double> avx512 = ExpAllAvx512(x);
    EXPECT_EQ(std::memcmp(base.data(), avx512.data(), x.size() * 8), 0);
  }
  if (!__builtin_cpu_supports("avx2")) GTEST_SKIP() << "no AVX2 on this CPU";
#else
  GTEST_SKIP() << "one vector width on this architecture";
#endif
}

}  // namespace
}  // namespace hptune::algorithms

#include "algorithms/gp/bordered_cholesky.h"

#include <cmath>
#include <cstring>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "Eigen/LU"
#include "gtest/gtest.h"

namespace hptune::algorithms::gp {
namespace {

// A random symmetric positive-definite matrix: B B^T + n I.
Eigen::MatrixXd SpdMatrix(int n) {
  Eigen::MatrixXd b(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) b(i, j) = std::sin(1.0 + i * 7 + j * 3);
  }
  Eigen::MatrixXd a = b * b.transpose();
  a.diagonal().array() += n;
  return a;
}

std::vector<double> Row(const Eigen::MatrixXd& a, int i) {
  std::vector<double> row(i + 1);
  for (int j = 0; j <= i; ++j) row[j] = a(i, j);
  return row;
}

// L as a dense lower-triangular matrix.
Eigen::MatrixXd Dense(const BorderedCholesky& chol) {
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(chol.size(), chol.size());
  for (int i = 0; i < chol.size(); ++i) {
    for (int j = 0; j <= i; ++j) l(i, j) = chol.At(i, j);
  }
  return l;
}

BorderedCholesky Factor(const Eigen::MatrixXd& a, int rows) {
  BorderedCholesky chol;
  for (int i = 0; i < rows; ++i) EXPECT_TRUE(chol.AppendRow(Row(a, i)));
  return chol;
}

TEST(BorderedCholeskyTest, MatchesEigenLlt) {
  const Eigen::MatrixXd a = SpdMatrix(40);
  BorderedCholesky chol = Factor(a, 40);
  const Eigen::MatrixXd expected = a.llt().matrixL();
  EXPECT_LT((Dense(chol) - expected).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(chol.HalfLogDeterminant(), 0.5 * std::log(a.determinant()), 1e-8);
}

TEST(BorderedCholeskyTest, ExtendingGivesTheSameBitsAsFactoringAtOnce) {
  const Eigen::MatrixXd a = SpdMatrix(50);
  BorderedCholesky at_once = Factor(a, 50);
  BorderedCholesky extended = Factor(a, 17);
  for (int i = 17; i < 50; ++i) ASSERT_TRUE(extended.AppendRow(Row(a, i)));
  for (int i = 0; i < 50; ++i) {
    for (int j = 0; j <= i; ++j) {
      const double x = at_once.At(i, j), y = extended.At(i, j);
      EXPECT_EQ(std::memcmp(&x, &y, sizeof(double)), 0) << i << "," << j;
    }
  }
}

TEST(BorderedCholeskyTest, SolvesBothTriangles) {
  const Eigen::MatrixXd a = SpdMatrix(25);
  BorderedCholesky chol = Factor(a, 25);
  Eigen::VectorXd b(25);
  for (int i = 0; i < 25; ++i) b[i] = std::cos(i);
  std::vector<double> x(b.data(), b.data() + 25);
  chol.SolveLower(x);
  chol.SolveUpper(x);
  const Eigen::VectorXd solution = Eigen::Map<Eigen::VectorXd>(x.data(), 25);
  EXPECT_LT((a * solution - b).cwiseAbs().maxCoeff(), 1e-10);
}

// Two tiles of columns and a remainder; the expected bits follow the order
// SolveLowerColumns states (this file is built without fused multiply-adds,
// as the library is), so a vector clone that fused or reordered would fail.
TEST(BorderedCholeskyTest, SolvesManyColumnsWithTheBitsOfTheStatedOrder) {
  constexpr int kN = 45;
  constexpr int kColumns = 70;
  const BorderedCholesky chol = Factor(SpdMatrix(kN), kN);
  std::vector<double> b(kN * kColumns);
  for (size_t k = 0; k < b.size(); ++k) b[k] = std::sin(0.37 * k + 1);
  std::vector<double> expected = b;
  for (int c = 0; c < kColumns; ++c) {
    for (int i = 0; i < kN; ++i) {
      double sum = expected[i * kColumns + c];
      for (int j = 0; j < i; ++j) {
        sum -= chol.At(i, j) * expected[j * kColumns + c];
      }
      expected[i * kColumns + c] = sum * (1 / chol.At(i, i));
    }
  }
  std::vector<double> got = b;
  chol.SolveLowerColumns(got, kColumns);
  for (size_t k = 0; k < b.size(); ++k) {
    EXPECT_EQ(std::memcmp(&got[k], &expected[k], sizeof(double)), 0)
        << "row " << k / kColumns << ", column " << k % kColumns << ": "
        << got[k] << " against " << expected[k];
  }
  // And the same solution as one column at a time.
  for (int c : {0, 31, 32, 69}) {
    std::vector<double> column(kN);
    for (int i = 0; i < kN; ++i) column[i] = b[i * kColumns + c];
    chol.SolveLower(column);
    for (int i = 0; i < kN; ++i) {
      EXPECT_NEAR(got[i * kColumns + c], column[i], 1e-12) << i << "," << c;
    }
  }
}

TEST(BorderedCholeskyTest, SolvesNoColumnsAndAnEmptyFactor) {
  const BorderedCholesky chol = Factor(SpdMatrix(3), 3);
  std::vector<double> none;
  chol.SolveLowerColumns(none, 0);
  const BorderedCholesky empty;
  empty.SolveLowerColumns(none, 5);
  SUCCEED();
}

TEST(BorderedCholeskyTest, RefusesARowThatIsNotPositiveDefinite) {
  BorderedCholesky chol;
  ASSERT_TRUE(chol.AppendRow(std::vector<double>{1.0}));
  // [[1, 1], [1, 1]] is singular.
  EXPECT_FALSE(chol.AppendRow(std::vector<double>{1.0, 1.0}));
  EXPECT_EQ(chol.size(), 1);
  EXPECT_FALSE(chol.AppendRow(std::vector<double>{1.0, std::nan("")}));
  EXPECT_EQ(chol.size(), 1);
}

TEST(BorderedCholeskyTest, MinimumPivotAcceptsASingularRow) {
  BorderedCholesky chol;
  ASSERT_TRUE(chol.AppendRow(std::vector<double>{1.0}));
  ASSERT_TRUE(chol.AppendRow(std::vector<double>{1.0, 1.0}, 1e-6));
  EXPECT_DOUBLE_EQ(chol.At(1, 1), 1e-3);
}

TEST(BorderedCholeskyTest, TruncateKeepsTheLeadingRows) {
  const Eigen::MatrixXd a = SpdMatrix(10);
  BorderedCholesky chol = Factor(a, 10);
  chol.Truncate(4);
  EXPECT_EQ(chol.size(), 4);
  const Eigen::MatrixXd expected = a.topLeftCorner(4, 4).llt().matrixL();
  EXPECT_LT((Dense(chol) - expected).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(BorderedCholeskyTest, SolvesAfterTruncatingAndAppendingAgain) {
  BorderedCholesky chol = Factor(SpdMatrix(12), 12);
  chol.Truncate(5);
  // Other rows after the fifth, so their pivots differ from the first ones.
  Eigen::MatrixXd a = SpdMatrix(12);
  for (int i = 5; i < 12; ++i) a(i, i) += 3 + i;
  for (int i = 5; i < 12; ++i) ASSERT_TRUE(chol.AppendRow(Row(a, i)));
  Eigen::VectorXd b(12);
  for (int i = 0; i < 12; ++i) b[i] = std::cos(3.0 * i);
  std::vector<double> x(b.data(), b.data() + 12);
  chol.SolveLower(x);
  chol.SolveUpper(x);
  const Eigen::VectorXd solution = Eigen::Map<Eigen::VectorXd>(x.data(), 12);
  EXPECT_LT((a * solution - b).cwiseAbs().maxCoeff(), 1e-10);
}

}  // namespace
}  // namespace hptune::algorithms::gp

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

BorderedCholesky Factor(const Eigen::MatrixXd& a, int rows) {
  BorderedCholesky chol;
  for (int i = 0; i < rows; ++i) EXPECT_TRUE(chol.AppendRow(Row(a, i)));
  return chol;
}

TEST(BorderedCholeskyTest, MatchesEigenLlt) {
  const Eigen::MatrixXd a = SpdMatrix(40);
  BorderedCholesky chol = Factor(a, 40);
  const Eigen::MatrixXd expected = a.llt().matrixL();
  EXPECT_LT((chol.ToDense() - expected).cwiseAbs().maxCoeff(), 1e-10);
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
  EXPECT_LT((chol.ToDense() - expected).cwiseAbs().maxCoeff(), 1e-12);
}

}  // namespace
}  // namespace hptune::algorithms::gp

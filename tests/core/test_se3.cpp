// Operator identities of konz-modeling §5.3 and §8.6 with random data.
#include <gtest/gtest.h>

#include "core/math/se3.h"
#include "tests/support/matrix_compare.h"
#include "tests/support/test_models.h"

namespace rbs {
namespace {

using test::randomVector;

// Identities hold to rounding: operands are O(1), so 1e-12 leaves three digits of headroom.
constexpr double kTol = 1e-12;

Vec6 randomTwist(test::Rng& rng) {
  Vec6 x;
  x << randomVector(rng, 1.0), randomVector(rng, 1.0);
  return x;
}

TEST(Se3, HatMapsInvertAndCharacterizeVee2AndVee) {
  test::Rng rng(1);
  for (int k = 0; k < 20; ++k) {
    const Vec3 a = randomVector(rng, 1), b = randomVector(rng, 1);
    const Mat3 M = Mat3::Random();
    EXPECT_MATRIX_NEAR(vee(wed(a)), a, kTol);
    EXPECT_MATRIX_NEAR(wed(a) * b, a.cross(b), kTol);
    // (2.53) tr(M wed(ω)ᵀ) = ωᵀ vee2(M); (2.55) tr(wed(ω) M wed(η)ᵀ) = ηᵀ Vee(M) ω
    EXPECT_NEAR((M * wed(a).transpose()).trace(), a.dot(vee2(M)), kTol);
    EXPECT_NEAR((wed(a) * M * wed(b).transpose()).trace(), b.dot(Vee(M) * a), kTol);
    EXPECT_MATRIX_NEAR(Wed(Vee(M)), M, kTol);
    EXPECT_MATRIX_NEAR(vee2(wed(a)), 2 * a, kTol);
    // (2.57)
    EXPECT_MATRIX_NEAR(wed(a) * b, vee2(Mat3(b * a.transpose())), kTol);
    EXPECT_MATRIX_NEAR(wed(a) * wed(b), Mat3(-Vee(Mat3(b * a.transpose()))), kTol);
    EXPECT_MATRIX_NEAR(vee2(Mat3(wed(b) * M)), Vee(M) * b, kTol);
  }
}

TEST(Se3, SixDimensionalMapsSatisfyTheirCharacterizations) {
  test::Rng rng(2);
  for (int k = 0; k < 20; ++k) {
    const Vec6 xi = randomTwist(rng), eta = randomTwist(rng);
    Mat4 A = Mat4::Random();
    EXPECT_MATRIX_NEAR(vee(wed(xi)), xi, kTol);
    // (3.80), (3.82), (3.84)
    EXPECT_NEAR((A * wed(xi).transpose()).trace(), xi.dot(vee2(A)), kTol);
    EXPECT_NEAR((wed(xi) * A * wed(eta).transpose()).trace(), eta.dot(Vee(A) * xi), kTol);
    EXPECT_MATRIX_NEAR(vee2(Mat4(wed(xi) * A)), Vee(A) * xi, kTol);
    // Wed inverts Vee on symmetric moment matrices M' (3.91)
    Mat4 Mp = A * A.transpose();
    EXPECT_MATRIX_NEAR(Wed(Vee(Mp)), Mp, kTol);
  }
}

TEST(Se3, AdjointsComposeAndMatchTheirMatrixForms) {
  test::Rng rng(3);
  for (int k = 0; k < 20; ++k) {
    const Pose G1 = test::randomPose(rng, 1.0), G2 = test::randomPose(rng, 1.0);
    const Vec6 xi = randomTwist(rng), eta = randomTwist(rng);
    EXPECT_MATRIX_NEAR(Ad(G1 * G2), Ad(G1) * Ad(G2), kTol);
    EXPECT_MATRIX_NEAR(AdInv(G1), Ad(G1.inverse()), kTol);
    EXPECT_MATRIX_NEAR(Ad(G1) * AdInv(G1), Mat6::Identity(), kTol);
    // G wed(ξ) G⁻¹ = wed(Ad_G ξ)
    EXPECT_MATRIX_NEAR(Mat4(G1.matrix() * wed(xi) * G1.inverse().matrix()), wed(Vec6(Ad(G1) * xi)), kTol);
    EXPECT_MATRIX_NEAR(ad(xi) * eta, vee(Mat4(wed(xi) * wed(eta) - wed(eta) * wed(xi))), kTol);
    EXPECT_MATRIX_NEAR(adjointTimes(G1, xi), Ad(G1) * xi, kTol);
    EXPECT_MATRIX_NEAR(adjointInvTimes(G1, xi), AdInv(G1) * xi, kTol);
    EXPECT_MATRIX_NEAR(adjointInvTransposeTimes(G1, xi), AdInv(G1).transpose() * xi, kTol);
    EXPECT_MATRIX_NEAR(adTimes(xi, eta), ad(xi) * eta, kTol);
    EXPECT_MATRIX_NEAR(adTransposeTimes(xi, eta), ad(xi).transpose() * eta, kTol);
  }
}

TEST(Se3, ExpAndLogAreInverseIncludingNearZeroAndPi) {
  test::Rng rng(4);
  for (double angle : {0.0, 1e-9, 1e-5, 0.3, 2.0, 3.0, M_PI - 1e-6, M_PI}) {
    const Vec3 axis = randomVector(rng, 1).normalized();
    const Vec3 w = angle * axis;
    const Mat3 R = expSO3(w);
    EXPECT_NEAR(orthogonalityError(R), 0.0, kTol);
    EXPECT_NEAR(rotationAngle(R), angle, 1e-9);
    EXPECT_MATRIX_NEAR(expSO3(logSO3(R)), R, 1e-9);
    Vec6 xi;
    xi << randomVector(rng, 1), w;
    const Pose G = expSE3(xi);
    EXPECT_MATRIX_NEAR(expSE3(logSE3(G)).matrix(), G.matrix(), 1e-9);
  }
  // exp(wed ξ) by the matrix series equals expSE3
  Vec6 xi;
  xi << 0.3, -0.2, 0.5, 0.4, 0.1, -0.7;
  Mat4 series = Mat4::Identity(), term = Mat4::Identity();
  for (int k = 1; k < 30; ++k) {
    term = term * wed(xi) / k;
    series += term;
  }
  EXPECT_MATRIX_NEAR(expSE3(xi).matrix(), series, kTol);
}

TEST(Se3, ProjectionQuaternionsAndEulerAngles) {
  test::Rng rng(5);
  const Mat3 R = test::randomRotation(rng);
  const Mat3 drifted = R + 1e-3 * Mat3::Random();
  const Mat3 P = projectToSO3(drifted);
  EXPECT_NEAR(orthogonalityError(P), 0.0, kTol);
  EXPECT_GT(P.determinant(), 0.0);
  EXPECT_LT((P - R).norm(), 3e-3);
  // The projection is the closest rotation: no nearby rotation is closer.
  for (int k = 0; k < 50; ++k) {
    const Mat3 Q = P * expSO3(randomVector(rng, 1e-3));
    EXPECT_GE((Q - drifted).norm(), (P - drifted).norm() - 1e-15);
  }
  const Vec4 q = rotationToQuaternion(R);
  EXPECT_MATRIX_NEAR(quaternionToRotation(q), R, kTol);
  EXPECT_MATRIX_NEAR(quaternionToRotation(3.0 * q), R, kTol);  // 1/qᵀq factor: any scale
  const Vec4 p = rotationToQuaternion(test::randomRotation(rng));
  EXPECT_MATRIX_NEAR(quaternionToRotation(quaternionMultiply(p, q)),
                     Mat3(quaternionToRotation(p) * quaternionToRotation(q)), kTol);
  const Vec3 e = eulerZYXFromRotation(R);
  EXPECT_MATRIX_NEAR(rotationZYX(e(0), e(1), e(2)), R, 1e-12);
  // (1.6a) written out for one set of angles
  const double a = 0.3, b = -0.4, f = 1.1;
  const double ca = std::cos(a), sa = std::sin(a), cb = std::cos(b), sb = std::sin(b), cf = std::cos(f), sf = std::sin(f);
  Mat3 expected;
  expected << cf * cb, -sf * ca + cf * sb * sa, sf * sa + cf * sb * ca, sf * cb, cf * ca + sf * sb * sa,
      -cf * sa + sf * sb * ca, -sb, cb * sa, cb * ca;
  EXPECT_MATRIX_NEAR(rotationZYX(a, b, f), expected, kTol);
}

}  // namespace
}  // namespace rbs

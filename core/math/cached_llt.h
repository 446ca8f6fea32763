// A Cholesky factor kept for as long as its matrix does not change: controllers whose desired
// inertia is constant between parameter edits (a base pair on a free joint, joint-space templates)
// factorize it once instead of at every evaluation.
#pragma once

#include <algorithm>

#include <Eigen/Cholesky>

namespace rbs {

template <class Matrix>
class CachedLlt {
 public:
  /// Factorizes `m` unless it equals, bit for bit, the matrix of the last successful call (NaN never
  /// equals, so such a matrix is factorized again). False when Eigen's LLT fails (not positive
  /// definite); the factor is then unusable until a call succeeds.
  bool factorize(const Matrix& m) {
    if (valid_ && m.rows() == last_.rows() && m.cols() == last_.cols() &&
        std::equal(m.data(), m.data() + m.size(), last_.data()))
      return true;
    llt_.compute(m);
    valid_ = llt_.info() == Eigen::Success;
    if (valid_) last_ = m;
    return valid_;
  }
  const Eigen::LLT<Matrix>& llt() const { return llt_; }

 private:
  Matrix last_;
  Eigen::LLT<Matrix> llt_;
  bool valid_ = false;
};

}  // namespace rbs

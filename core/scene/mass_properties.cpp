#include "core/scene/mass_properties.h"

#include <numbers>

namespace rbs {

double solidVolume(const Solid& s) {
  constexpr double pi = std::numbers::pi;
  switch (s.shape) {
    case SolidShape::Box:
      return s.size.x() * s.size.y() * s.size.z();
    case SolidShape::Cylinder:
      return pi * s.size.x() * s.size.x() * s.size.y();
    case SolidShape::Sphere:
      return 4.0 / 3.0 * pi * s.size.x() * s.size.x() * s.size.x();
    case SolidShape::Capsule: {
      const double r = s.size.x(), l = s.size.y();
      return pi * r * r * l + 4.0 / 3.0 * pi * r * r * r;
    }
  }
  return 0.0;
}

Mat3 solidCentralInertia(const Solid& s, double m) {
  Vec3 d = Vec3::Zero();
  switch (s.shape) {
    case SolidShape::Box: {
      const double x2 = s.size.x() * s.size.x(), y2 = s.size.y() * s.size.y(), z2 = s.size.z() * s.size.z();
      d = m / 12.0 * Vec3(y2 + z2, x2 + z2, x2 + y2);
      break;
    }
    case SolidShape::Cylinder: {
      const double r2 = s.size.x() * s.size.x(), l2 = s.size.y() * s.size.y();
      const double transverse = m * (3.0 * r2 + l2) / 12.0;
      d = Vec3(transverse, transverse, 0.5 * m * r2);
      break;
    }
    case SolidShape::Sphere: {
      const double I = 0.4 * m * s.size.x() * s.size.x();
      d = Vec3(I, I, I);
      break;
    }
    case SolidShape::Capsule: {
      // Cylinder of length l plus two hemispheres of radius r, mass split by volume. A hemisphere
      // (mass m_h) about a transverse axis through the capsule centre: its flat face lies l/2 from
      // the centre and its CoM 3r/8 beyond the face, so (parallel axes twice)
      // I = m_h (2r²/5 + l²/4 + 3lr/8).
      const double r = s.size.x(), l = s.size.y();
      const double v_cyl = r * r * l, v_sph = 4.0 / 3.0 * r * r * r;  // common factor π dropped
      const double m_cyl = m * v_cyl / (v_cyl + v_sph), m_sph = m - m_cyl;
      const double transverse = m_cyl * (3.0 * r * r + l * l) / 12.0 +
                                m_sph * (0.4 * r * r + 0.25 * l * l + 0.375 * l * r);
      const double axial = 0.5 * m_cyl * r * r + 0.4 * m_sph * r * r;
      d = Vec3(transverse, transverse, axial);
      break;
    }
  }
  return d.asDiagonal();
}

MassProperties solidMassProperties(const Solid& s, double mass) {
  MassProperties p;
  p.mass = mass;
  p.com = s.origin.r;
  const Mat3& R = s.origin.R;
  p.inertia = R * solidCentralInertia(s, mass) * R.transpose();
  p.inertia = 0.5 * (p.inertia + p.inertia.transpose());
  return p;
}

}  // namespace rbs

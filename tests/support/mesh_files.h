// Mesh files the tests write themselves (the robots of the URDF tests are ours, not copies of
// published ones): a box as binary and ASCII STL, as COLLADA with a material colour, as OBJ and as
// PLY, centred at the origin or at `centre` (an off-centre box shows a turned or mirrored reader).
#pragma once

#include <filesystem>
#include <string>

#include "core/math/se3.h"

namespace rbs::test {

/// An axis-aligned box centred at the origin with edge lengths `size`, 12 triangles, outward normals.
void writeBinaryStlBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre = Vec3::Zero());
void writeAsciiStlBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre = Vec3::Zero());
/// The same box as a COLLADA 1.4 document whose one material has the diffuse colour `rgba`, its
/// ids starting with `id` (any characters), tagged with `up_axis` (its coordinates stay as given).
void writeColladaBox(const std::filesystem::path& file, const Vec3& size, const Vec4& rgba,
                     const Vec3& centre = Vec3::Zero(), const std::string& up_axis = "Z_UP",
                     const std::string& id = "box");
void writeObjBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre = Vec3::Zero());
/// ASCII PLY: 8 shared vertices, 12 triangles.
void writePlyBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre = Vec3::Zero());

}  // namespace rbs::test

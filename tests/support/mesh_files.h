// Mesh files the tests write themselves (the robots of the URDF tests are ours, not copies of
// published ones): a box as binary and ASCII STL, as COLLADA with a material colour, and as OBJ.
#pragma once

#include <filesystem>

#include "core/math/se3.h"

namespace rbs::test {

/// An axis-aligned box centred at the origin with edge lengths `size`, 12 triangles, outward normals.
void writeBinaryStlBox(const std::filesystem::path& file, const Vec3& size);
void writeAsciiStlBox(const std::filesystem::path& file, const Vec3& size);
/// The same box as a COLLADA 1.4 document whose one material has the diffuse colour `rgba`.
void writeColladaBox(const std::filesystem::path& file, const Vec3& size, const Vec4& rgba);
void writeObjBox(const std::filesystem::path& file, const Vec3& size);

}  // namespace rbs::test

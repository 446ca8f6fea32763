#include "tests/support/mesh_files.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace rbs::test {
namespace {

struct Triangle {
  Vec3 normal;
  std::array<Vec3, 3> v;
};

/// The box's 12 triangles, counter-clockwise seen from outside.
std::vector<Triangle> boxTriangles(const Vec3& size, const Vec3& centre) {
  const Vec3 h = 0.5 * size;
  std::vector<Triangle> out;
  for (int axis = 0; axis < 3; ++axis) {
    for (int sign : {-1, 1}) {
      const int a = (axis + 1) % 3, b = (axis + 2) % 3;
      Vec3 n = Vec3::Zero();
      n(axis) = sign;
      auto corner = [&](int i, int j) {
        Vec3 p;
        p(axis) = sign * h(axis);
        p(a) = i * h(a);
        p(b) = j * h(b);
        return Vec3(centre + p);
      };
      // (a, b, axis) is right-handed: the quad (−,−) (+,−) (+,+) (−,+) is counter-clockwise about +axis
      std::array<Vec3, 4> q = {corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)};
      if (sign < 0) std::swap(q[1], q[3]);
      out.push_back({n, {q[0], q[1], q[2]}});
      out.push_back({n, {q[0], q[2], q[3]}});
    }
  }
  return out;
}

void putFloat(std::ofstream& out, double x) {
  const float f = static_cast<float>(x);
  char bytes[4];
  std::memcpy(bytes, &f, 4);  // little-endian on every machine rbsim builds for
  out.write(bytes, 4);
}

}  // namespace

void writeBinaryStlBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre) {
  std::ofstream out(file, std::ios::binary);
  char header[80] = {};
  std::strncpy(header, "solid-looking header of a binary STL written by the rbsim tests", sizeof header - 1);
  out.write(header, 80);
  const std::vector<Triangle> tris = boxTriangles(size, centre);
  const std::uint32_t n = static_cast<std::uint32_t>(tris.size());
  const char count[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff), 0, 0};
  out.write(count, 4);
  for (const Triangle& t : tris) {
    for (int i = 0; i < 3; ++i) putFloat(out, t.normal(i));
    for (const Vec3& v : t.v)
      for (int i = 0; i < 3; ++i) putFloat(out, v(i));
    out.write("\0\0", 2);
  }
}

void writeAsciiStlBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre) {
  std::ofstream out(file);
  out << "solid box\n";
  for (const Triangle& t : boxTriangles(size, centre)) {
    out << "  facet normal " << t.normal.transpose() << "\n    outer loop\n";
    for (const Vec3& v : t.v) out << "      vertex " << v.transpose() << "\n";
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid box\n";
}

void writeColladaBox(const std::filesystem::path& file, const Vec3& size, const Vec4& rgba, const Vec3& centre,
                     const std::string& up_axis, const std::string& id) {
  const std::vector<Triangle> tris = boxTriangles(size, centre);
  std::ostringstream positions, normals, indices;
  int k = 0;
  for (const Triangle& t : tris) {
    for (const Vec3& v : t.v) {
      positions << v.transpose() << " ";
      normals << t.normal.transpose() << " ";
      indices << k << " " << k << " ";
      ++k;
    }
  }
  std::ofstream out(file);
  out << R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>)" << up_axis << R"(</up_axis></asset>
  <library_effects>
    <effect id=")" << id << R"(-paint-effect"><profile_COMMON><technique sid="common"><phong>
      <diffuse><color>)" << rgba.transpose() << R"(</color></diffuse>
    </phong></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id=")" << id << R"(-paint" name="paint"><instance_effect url="#)" << id << R"(-paint-effect"/></material></library_materials>
  <library_geometries>
    <geometry id=")" << id << R"(" name=")" << id << R"("><mesh>
      <source id=")" << id << R"(-positions"><float_array id=")" << id << R"(-positions-array" count=")" << 3 * k << R"(">)" << positions.str() << R"(</float_array>
        <technique_common><accessor source="#)" << id << R"(-positions-array" count=")" << k << R"(" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <source id=")" << id << R"(-normals"><float_array id=")" << id << R"(-normals-array" count=")" << 3 * k << R"(">)" << normals.str() << R"(</float_array>
        <technique_common><accessor source="#)" << id << R"(-normals-array" count=")" << k << R"(" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id=")" << id << R"(-vertices"><input semantic="POSITION" source="#)" << id << R"(-positions"/></vertices>
      <triangles material="paint" count=")" << tris.size() << R"(">
        <input semantic="VERTEX" source="#)" << id << R"(-vertices" offset="0"/>
        <input semantic="NORMAL" source="#)" << id << R"(-normals" offset="1"/>
        <p>)" << indices.str() << R"(</p>
      </triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id=")" << id << R"(-node">
      <instance_geometry url="#)" << id << R"("><bind_material><technique_common>
        <instance_material symbol="paint" target="#)" << id << R"(-paint"/>
      </technique_common></bind_material></instance_geometry>
    </node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
}

void writeObjBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre) {
  std::ofstream out(file);
  out << "# box written by the rbsim tests\n";
  int k = 0;
  for (const Triangle& t : boxTriangles(size, centre)) {
    for (const Vec3& v : t.v) out << "v " << v.transpose() << "\n";
    out << "f " << k + 1 << " " << k + 2 << " " << k + 3 << "\n";
    k += 3;
  }
}

void writePlyBox(const std::filesystem::path& file, const Vec3& size, const Vec3& centre) {
  std::ofstream out(file);
  out << "ply\nformat ascii 1.0\ncomment box written by the rbsim tests\nelement vertex 8\n"
         "property float x\nproperty float y\nproperty float z\nelement face 12\n"
         "property list uchar int vertex_indices\nend_header\n";
  // vertex i has the corner (±, ±, ±) of bits 0, 1, 2 of i; faces counter-clockwise from outside
  for (int i = 0; i < 8; ++i) {
    const Vec3 corner((i & 1) ? 0.5 : -0.5, (i & 2) ? 0.5 : -0.5, (i & 4) ? 0.5 : -0.5);
    out << (centre + size.cwiseProduct(corner)).transpose() << "\n";
  }
  const int faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                            {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
  for (const auto& f : faces) out << "3 " << f[0] << " " << f[1] << " " << f[2] << "\n";
}

}  // namespace rbs::test

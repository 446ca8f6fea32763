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
std::vector<Triangle> boxTriangles(const Vec3& size) {
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
        return p;
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

void writeBinaryStlBox(const std::filesystem::path& file, const Vec3& size) {
  std::ofstream out(file, std::ios::binary);
  char header[80] = {};
  std::strncpy(header, "solid-looking header of a binary STL written by the rbsim tests", sizeof header - 1);
  out.write(header, 80);
  const std::vector<Triangle> tris = boxTriangles(size);
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

void writeAsciiStlBox(const std::filesystem::path& file, const Vec3& size) {
  std::ofstream out(file);
  out << "solid box\n";
  for (const Triangle& t : boxTriangles(size)) {
    out << "  facet normal " << t.normal.transpose() << "\n    outer loop\n";
    for (const Vec3& v : t.v) out << "      vertex " << v.transpose() << "\n";
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid box\n";
}

void writeColladaBox(const std::filesystem::path& file, const Vec3& size, const Vec4& rgba) {
  const std::vector<Triangle> tris = boxTriangles(size);
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
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_effects>
    <effect id="paint-effect"><profile_COMMON><technique sid="common"><phong>
      <diffuse><color>)" << rgba.transpose() << R"(</color></diffuse>
    </phong></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id="paint" name="paint"><instance_effect url="#paint-effect"/></material></library_materials>
  <library_geometries>
    <geometry id="box" name="box"><mesh>
      <source id="box-positions"><float_array id="box-positions-array" count=")" << 3 * k << R"(">)" << positions.str() << R"(</float_array>
        <technique_common><accessor source="#box-positions-array" count=")" << k << R"(" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <source id="box-normals"><float_array id="box-normals-array" count=")" << 3 * k << R"(">)" << normals.str() << R"(</float_array>
        <technique_common><accessor source="#box-normals-array" count=")" << k << R"(" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="box-vertices"><input semantic="POSITION" source="#box-positions"/></vertices>
      <triangles material="paint" count=")" << tris.size() << R"(">
        <input semantic="VERTEX" source="#box-vertices" offset="0"/>
        <input semantic="NORMAL" source="#box-normals" offset="1"/>
        <p>)" << indices.str() << R"(</p>
      </triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="box-node">
      <instance_geometry url="#box"><bind_material><technique_common>
        <instance_material symbol="paint" target="#paint"/>
      </technique_common></bind_material></instance_geometry>
    </node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";
}

void writeObjBox(const std::filesystem::path& file, const Vec3& size) {
  std::ofstream out(file);
  out << "# box written by the rbsim tests\n";
  int k = 0;
  for (const Triangle& t : boxTriangles(size)) {
    for (const Vec3& v : t.v) out << "v " << v.transpose() << "\n";
    out << "f " << k + 1 << " " << k + 2 << " " << k + 3 << "\n";
    k += 3;
  }
}

}  // namespace rbs::test

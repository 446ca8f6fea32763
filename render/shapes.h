// Geometry and state builders for the scene graph (render/scene_graph.h): the visual shapes of
// the model, axes, arrows, the ground grid and the sky. Lengths in metres; nodes are in the frame
// of whatever transform they are put under.
#pragma once

#include <filesystem>
#include <string>

#include <osg/Camera>
#include <osg/Geode>
#include <osg/MatrixTransform>
#include <osg/Material>

#include "core/model/model.h"
#include "render/bounds.h"

namespace rbs::render {

/// A lit material of colour rgba (ambient 0.45 of it, a little specular); translucent colours
/// (alpha < 1) also get blending, no depth writes and the transparent bin.
void applyMaterial(osg::StateSet& state, const osg::Vec4& rgba);

/// One visual in its body frame: the shape placed at visual.origin, coloured. Meshes are read
/// through osgDB from `assets_dir / visual.mesh_file` in the file's own coordinates (OBJ without
/// the reader's turn about x) and scaled by visual.size; a mesh that cannot be read becomes a small
/// magenta box and `warning` says why. For a mesh it read, `extent` (if given) becomes the sphere
/// around the mesh's bounding box as drawn, in the body frame (VisualExtents).
osg::ref_ptr<osg::Node> makeVisualNode(const Visual& visual, const std::filesystem::path& assets_dir,
                                       std::string& warning, Bounds* extent = nullptr);

/// Body axes: x red, y green, z blue, each `length` long from the origin (unlit lines).
osg::ref_ptr<osg::Geode> makeAxes(double length);

/// An arrow along +z from the origin, made of two parts so that its length can change without
/// stretching the head: shaft (a unit-length cylinder to be scaled in z) and head (a cone whose
/// base sits at the origin, to be translated to the shaft's end).
struct ArrowParts {
  osg::ref_ptr<osg::MatrixTransform> root;   ///< place at the tail, +z along the arrow
  osg::ref_ptr<osg::MatrixTransform> shaft;  ///< scale (1, 1, shaft length)
  osg::ref_ptr<osg::MatrixTransform> head;   ///< translate (0, 0, shaft length)
  double head_length = 0.0;
};
ArrowParts makeArrow(double shaft_radius, const osg::Vec4& rgba);

/// The ground at height z: a disc of radius `extent` fading into the sky at its rim, with grid
/// lines every `spacing` (every `major_every`-th one stronger).
osg::ref_ptr<osg::Node> makeGround(double z, double extent, double spacing, int major_every);

/// A vertical colour gradient behind everything (a nested camera drawn first, no depth writes).
osg::ref_ptr<osg::Camera> makeSky(const osg::Vec4& top, const osg::Vec4& horizon);

}  // namespace rbs::render

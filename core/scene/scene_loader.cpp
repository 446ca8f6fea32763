// loadScene: YAML scene files (docs/SCENE_FORMAT.md) and URDF files into a Scene.
//
// Order of work: raw-text checks (size, binary, UTF-8, nesting) → yaml-cpp parse → tree checks
// (depth, size) → --set overrides on the tree → interpretation section by section into a
// ModelBuilder (every value typed and located) → ModelBuilder::build(), whose ModelError names the
// element by kind and index and the field it is about: the loader points at that element's key
// (or, for elements of an included URDF, at the link or joint in the URDF file).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>
#include <utility>

#include "core/control/state_estimator.h"
#include "core/dynamics/mass_matrix_check.h"
#include "core/dynamics/time_scale.h"
#include "core/io/resource_path.h"
#include "core/model/input_sets.h"
#include "core/model/model_builder.h"
#include "core/scene/mass_properties.h"
#include "core/scene/overrides.h"
#include "core/scene/scene.h"
#include "core/scene/yaml_access.h"
#include "core/urdf/urdf_import.h"

namespace rbs {
namespace {

namespace fs = std::filesystem;
using namespace scene_detail;

constexpr double kUnitTolerance = 1e-3;         // quaternions and rotation axes, then normalized
constexpr double kOrthonormalTolerance = 1e-4;  // rotation matrices, then projected onto SO(3)

const std::vector<std::string> kTopKeys = {
    "name",    "description",   "include",       "floating_base",     "balance_inertia", "bound_mass", "bound_inertia", "joint_friction", "joint_actuators", "initial_positions", "gravity",
    "bodies",  "joints",        "springs",       "dampers",           "joint_springs",
    "loop_closures", "external_wrenches", "actuators", "propellers", "input_sets", "controller",  "reference",
    "integrator", "plots",      "camera",        "perturbation", "pushes", "mouse"};

const std::vector<std::string> kJointTypes = {"fixed",  "revolute", "prismatic", "spherical",
                                              "free",   "planar",   "universal"};
// The steppers of sim/integrator.h (core cannot include sim; tests/scene checks the lists agree).
const std::vector<std::string> kSteppers = {"euler",     "rk4",           "rkmk4",         "rk_cash_karp54",
                                            "rk_dopri5", "rk_fehlberg78", "bulirsch_stoer"};

std::string str(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

std::string indexPath(const std::string& list, std::size_t i) { return list + "[" + std::to_string(i) + "]"; }

/// "joint.elbow" when the element has a usable name, else "joints[3]".
std::string elementPath(const YAML::Node& n, const std::string& singular, const std::string& list,
                        std::size_t i, const char* name_key = "name") {
  if (n.IsMap())
    for (const auto& kv : n)
      if (kv.first.IsScalar() && kv.first.Scalar() == name_key && kv.second.IsScalar() &&
          !kv.second.Scalar().empty() && kv.second.Scalar().size() < 200)
        return singular + "." + kv.second.Scalar();
  return indexPath(list, i);
}

/// Where an element of the model came from, for mapping ModelError messages back to the file.
struct Element {
  YAML::Node node;
  std::map<std::string, YAML::Node> fields;  ///< value node of every key (and "frames[0]", …)
};

/// The keys of a scene element that hold what a ModelError's field names, the first present
/// wins; none present: the element itself. The same field has the same key in every section,
/// except where the scene format names it by its role (a motor's torque constant is its gain).
std::vector<std::string> keysOf(ModelField field) {
  switch (field) {
    case ModelField::None: case ModelField::Gravity: return {};
    case ModelField::Name: return {"name"};
    case ModelField::Mass: return {"mass", "solid"};
    case ModelField::CentreOfMass: return {"com", "solid"};
    case ModelField::Inertia: return {"inertia", "solid"};
    case ModelField::Parent: return {"parent"};
    case ModelField::Child: return {"child"};
    case ModelField::ParentPlacement: return {"origin"};
    case ModelField::ChildPlacement: return {"child_origin"};
    case ModelField::Axis: return {"axis"};
    case ModelField::SecondAxis: return {"axis2", "axis"};
    case ModelField::Armature: return {"armature"};
    case ModelField::RotorCoupling: return {"rotor_coupling"};
    case ModelField::InitialPosition: case ModelField::InitialPose: case ModelField::InitialVelocity: return {"initial"};
    case ModelField::Limits: return {"limits", "current_limits"};
    case ModelField::FirstFrame: return {"frames[0]", "frames"};
    case ModelField::SecondFrame: return {"frames[1]", "frames"};
    case ModelField::Frames: return {"frames"};
    case ModelField::RestPose: return {"rest"};
    case ModelField::Stiffness: return {"stiffness"};
    case ModelField::Centre: return {"center"};
    case ModelField::RotationalStiffness: return {"rotational_stiffness"};
    case ModelField::Damping: return {"damping"};
    case ModelField::RotationalDamping: return {"rotational_damping"};
    case ModelField::RestPosition: return {"rest_position"};
    case ModelField::StabilizationFrequency: return {"frequency"};
    case ModelField::StabilizationDamping: return {"damping"};
    case ModelField::Joint: return {"joint"};
    case ModelField::Body: return {"body"};
    case ModelField::Point: return {"point"};
    case ModelField::Force: return {"force"};
    case ModelField::Torque: return {"torque"};
    case ModelField::Component: return {"component"};
    case ModelField::Gain: return {"gain", "stiffness", "torque_constant"};
    case ModelField::TimeConstant: return {"time_constant"};
    case ModelField::Direction: return {"direction"};
    case ModelField::TorqueRatio: return {"torque_ratio"};
    case ModelField::ThrustDirection: return {"thrust_direction"};
    case ModelField::ThrustCoefficient: return {"thrust_coefficient"};
    case ModelField::DragCoefficient: return {"drag_coefficient"};
    case ModelField::Friction: return {"friction"};
    case ModelField::SpeedLimits: return {"speed_limits"};
    case ModelField::Origin: return {"origin"};
    case ModelField::Size: return {"box", "cylinder", "sphere", "capsule", "mesh"};
    case ModelField::Colour: return {"color"};
    case ModelField::Mesh: return {"mesh"};
    case ModelField::Inputs: return {"inputs"};
    case ModelField::Rows: return {"rows", "bounds", "radius"};
  }
  return {};
}

ResourceSearch resourceSearch(const LoadOptions& options) {
  ResourceSearch search;
  search.package_paths = options.package_paths;
  return search;
}

class Loader {
 public:
  Loader(Source& src, fs::path file, const LoadOptions& options, bool urdf_file)
      : src_(src), file_(std::move(file)), floating_base_(options.floating_base),
        balance_inertia_(options.balance_inertia), joint_friction_(options.joint_friction),
        bound_mass_(options.bound_mass), bound_inertia_(options.bound_inertia), urdf_file_(urdf_file),
        resource_search_(resourceSearch(options)), resources_(resource_search_) {}

  Scene load(const YAML::Node& root, const std::vector<DeferredValue>& deferred);

 private:
  // ---- value types ----
  Pose readPose(const YAML::Node& n, const std::string& path) const;
  Mat3 readRotation(const YAML::Node& n, const std::string& path) const;
  /// A 3-vector of norm 1 within kUnitTolerance, normalized (axes and directions).
  Vec3 readUnitVector(const YAML::Node& n, const std::string& path) const;
  FrameSpec readFrame(const YAML::Node& n, const std::string& path) const;
  std::pair<FrameSpec, FrameSpec> readFrames(const MapView& m, Element& e) const;
  Mat3 readSymmetric6(const YAML::Node& n, const std::string& path) const;
  double positive(const MapView& m, std::string_view key) const;
  double nonNegative(const MapView& m, std::string_view key, double fallback) const;

  // ---- sections ----
  void readInclude(const MapView& top);
  void readBody(const YAML::Node& n, std::size_t i);
  void readSolid(const YAML::Node& n, const std::string& path, BodySpec& body) const;
  void readVisual(const YAML::Node& n, const std::string& path, const std::string& body);
  /// A SceneWarning at the node (FILE:LINE:COLUMN of the scene file).
  void warn(const YAML::Node& n, const std::string& message) {
    const SceneError place = src_.error(n, message);
    warnings_.push_back(SceneWarning{place.file(), place.line(), place.column(), place.message()});
  }
  void readJoint(const YAML::Node& n, std::size_t i);
  void readJointInitial(const YAML::Node& n, const std::string& path, JointType type, JointSpec& j);
  void readSpring(const YAML::Node& n, std::size_t i);
  void readDamper(const YAML::Node& n, std::size_t i);
  void readJointSpring(const YAML::Node& n, std::size_t i);
  void readLoopClosure(const YAML::Node& n, std::size_t i);
  void readInputSet(const YAML::Node& n, std::size_t i);
  void readExternalWrench(const YAML::Node& n, std::size_t i);
  void readActuator(const YAML::Node& n, std::size_t i);
  void readJointActuators(const MapView& top);
  void readPropeller(const YAML::Node& n, std::size_t i);
  void readController(const YAML::Node& n, ControllerSettings& c) const;
  void readReference(const YAML::Node& n, ReferenceSettings& r) const;
  void readOptions(const MapView& m, std::map<std::string, std::string>& options) const;
  void readIntegrator(const YAML::Node& n, IntegratorSettings& s);
  /// No integrator.stepper in the scene: rk4 unless the model's fastest joint mode is beyond its
  /// reach at dt, then rk_dopri5 with IntegratorSettings::default_stepper_note.
  void chooseDefaultStepper(const Model& model, IntegratorSettings& s) const;
  void readPerturbation(const YAML::Node& n, PerturbationSettings& p) const;
  void readPlots(const YAML::Node& n, std::vector<PlotGroup>& plots) const;
  void readCamera(const YAML::Node& n, CameraSettings& c);
  void readPushes(const YAML::Node& n, Model& model);
  void readMouseCaps(const YAML::Node& n, MouseCaps& caps);

  /// Records where the element the next ModelBuilder::add… call of this kind adds is written
  /// (its index is builder_.count(kind)), and refuses a name used twice.
  Element& remember(ModelElement kind, const std::string& name, const MapView& m);
  SceneError mapModelError(const ModelError& e) const;
  /// A joint's initial position or velocity (d.field) on the built model; `path` names it in messages.
  void applyDeferred(Model& model, const DeferredValue& d, const std::string& path) const;
  /// --set link.NAME.* into link_inertials_ (checked here: numbers, shapes, mass ≥ 0).
  void readLinkInertials(const std::vector<DeferredValue>& deferred);

  Source& src_;
  fs::path file_;
  bool floating_base_;
  bool balance_inertia_;
  bool joint_friction_;
  double bound_mass_, bound_inertia_;  ///< LoadOptions', raised by the scene keys
  std::vector<std::string> bounded_bodies_;  ///< the scene's bodies the bounds raised
  YAML::Node first_bounded_body_;            ///< where their one warning is
  bool urdf_file_;
  bool stepper_named_ = false;  ///< the scene (or --set) names integrator.stepper
  ResourceSearch resource_search_;
  ResourceResolver resources_;             ///< the scene file's own meshes
  std::set<std::string> reported_meshes_;  ///< mesh paths already warned about
  std::vector<SceneWarning> warnings_;     ///< the scene file's own (the URDF's are in urdf_)
  ModelBuilder builder_;
  YAML::Node root_;
  std::optional<YAML::Node> include_node_, gravity_node_;
  std::string urdf_robot_name_;
  std::optional<UrdfSummary> urdf_;  ///< of the included URDF
  std::optional<YAML::Node> joint_actuators_node_;
  std::map<std::string, UrdfLinkInertial> link_inertials_;  ///< --set link.NAME.*
  std::map<std::string, YAML::Node> link_inertial_nodes_;   ///< the first value per link, for errors
  fs::path urdf_path_;
  /// The scene's elements by ModelError kind and index.
  std::map<std::pair<ModelElement, int>, Element> elements_;
  /// The first node of each named element, for duplicate names.
  std::map<std::pair<ModelElement, std::string>, YAML::Node> named_;
  /// Coordinates written directly after build() (planar and universal joints keep their angles
  /// exactly as given, without the wrap of a pose round trip).
  struct CoordinatePatch {
    std::string joint;
    std::vector<double> x;
  };
  std::vector<CoordinatePatch> patches_;
  std::optional<YAML::Node> camera_target_node_;
  double integrator_control_rate_ = 0.0;  ///< read before the perturbation section (which needs it)
};

// ---- value types ------------------------------------------------------------------------------

Pose Loader::readPose(const YAML::Node& n, const std::string& path) const {
  MapView m(src_, n, path, {"xyz", "rpy", "rotation"});
  m.exclusive("rpy", "rotation");
  Pose p;
  p.r = m.vec3("xyz", Vec3::Zero());
  if (const YAML::Node* rpy = m.find("rpy")) {
    const Vec3 a = readVec3(src_, *rpy, m.at("rpy"));
    p.R = rotationZYX(a[0], a[1], a[2]);
  } else if (const YAML::Node* rot = m.find("rotation")) {
    p.R = readRotation(*rot, m.at("rotation"));
  }
  return p;
}

Mat3 Loader::readRotation(const YAML::Node& n, const std::string& path) const {
  MapView m(src_, n, path, {"rpy", "quaternion", "matrix", "axis", "angle"});
  const std::string kind = m.exactlyOne({"rpy", "quaternion", "matrix", "axis"}, "rotation");
  if (kind != "axis" && m.has("angle"))
    src_.fail(*m.find("angle"), m.at("angle") + ": 'angle' belongs to an axis-angle rotation ({axis: [x, y, z], angle: a})");
  const YAML::Node& v = *m.find(kind);
  const std::string vpath = m.at(kind);
  if (kind == "rpy") {
    const Vec3 a = readVec3(src_, v, vpath);
    return rotationZYX(a[0], a[1], a[2]);
  }
  if (kind == "quaternion") {
    const auto q = readNumbers(src_, v, vpath, 4);
    const Vec4 qv(q[0], q[1], q[2], q[3]);
    const double norm = qv.norm();
    if (!(std::abs(norm - 1.0) <= kUnitTolerance))
      src_.fail(v, at(vpath, "the quaternion has norm " + str(norm) +
                                 "; expected a unit quaternion [w, x, y, z]"));
    return quaternionToRotation(qv / norm);
  }
  if (kind == "matrix") {
    const std::string expected = "expected a 3×3 rotation matrix as a list of 3 rows of 3 numbers";
    if (!v.IsSequence() || v.size() != 3) src_.fail(v, at(vpath, expected + ", got " + describe(v)));
    Mat3 R;
    for (int r = 0; r < 3; ++r) {
      const auto row = readNumbers(src_, v[r], vpath + "[" + std::to_string(r) + "]", 3);
      for (int c = 0; c < 3; ++c) R(r, c) = row[c];
    }
    const double err = orthogonalityError(R);
    const double det = R.determinant();
    if (!(err <= kOrthonormalTolerance) || det < 0.0)
      src_.fail(v, at(vpath, "not a rotation matrix (‖RᵀR − I‖ = " + str(err) + ", det = " + str(det) +
                                 "); expected orthonormal rows with det +1"));
    return projectToSO3(R);
  }
  // axis-angle
  const Vec3 axis = readUnitVector(v, vpath);
  const double angle = m.number("angle");
  return axisAngleRotation(axis, angle);
}

Vec3 Loader::readUnitVector(const YAML::Node& n, const std::string& path) const {
  const Vec3 a = readVec3(src_, n, path);
  const double norm = a.norm();
  if (!(std::abs(norm - 1.0) <= kUnitTolerance))
    src_.fail(n, at(path, "the vector has norm " + str(norm) + "; expected a unit vector (norm 1 within " +
                              str(kUnitTolerance) + ")"));
  return a / norm;
}

FrameSpec Loader::readFrame(const YAML::Node& n, const std::string& path) const {
  FrameSpec f;
  if (n.IsScalar()) {
    f.body = readName(src_, n, path);
    return f;
  }
  if (!n.IsMap())
    src_.fail(n, at(path, "expected a frame: a body name, 'world' or {body: NAME, origin: POSE}, got " +
                              describe(n)));
  MapView m(src_, n, path, {"body", "origin"});
  f.body = m.name("body");
  if (const YAML::Node* o = m.find("origin")) f.offset = readPose(*o, m.at("origin"));
  return f;
}

std::pair<FrameSpec, FrameSpec> Loader::readFrames(const MapView& m, Element& e) const {
  const YAML::Node& frames = m.require("frames");
  if (!frames.IsSequence() || frames.size() != 2)
    src_.fail(frames, at(m.at("frames"), "expected a list of 2 frames [FRAME, FRAME], got " + describe(frames)));
  e.fields["frames[0]"] = frames[0];
  e.fields["frames[1]"] = frames[1];
  return {readFrame(frames[0], m.at("frames") + "[0]"), readFrame(frames[1], m.at("frames") + "[1]")};
}

Mat3 Loader::readSymmetric6(const YAML::Node& n, const std::string& path) const {
  const auto v = readNumbers(src_, n, path, 6);
  Mat3 M;
  M << v[0], v[3], v[4], v[3], v[1], v[5], v[4], v[5], v[2];
  return M;
}

double Loader::positive(const MapView& m, std::string_view key) const {
  const YAML::Node& n = m.require(key);
  const double v = readNumber(src_, n, m.at(key));
  if (!(v > 0.0)) src_.fail(n, at(m.at(key), "expected a number > 0, got " + str(v)));
  return v;
}

double Loader::nonNegative(const MapView& m, std::string_view key, double fallback) const {
  const YAML::Node* n = m.find(key);
  if (!n) return fallback;
  const double v = readNumber(src_, *n, m.at(key));
  if (v < 0.0) src_.fail(*n, at(m.at(key), "expected a number ≥ 0, got " + str(v)));
  return v;
}

Element& Loader::remember(ModelElement kind, const std::string& name, const MapView& m) {
  // Visuals and external wrenches are keyed by their body, joint springs by their joint: several
  // may share it. Everything else is named and the name must be unique.
  const bool shared =
      kind == ModelElement::Visual || kind == ModelElement::ExternalWrench || kind == ModelElement::JointSpring;
  if (!shared) {
    auto [first, inserted] = named_.emplace(std::make_pair(kind, name), m.node());
    if (!inserted) {
      const YAML::Mark mark = first->second.Mark();
      const YAML::Node* name_node = m.find("name");
      src_.fail(name_node ? *name_node : m.node(),
                at(m.path(), "the name '" + name + "' is used by more than one " + modelElementName(kind) +
                                 (mark.is_null() ? "" : " (first on line " + std::to_string(mark.line + 1) + ")")));
    }
  }
  Element e;
  e.node = m.node();
  for (const auto& k : m.keys()) e.fields[k] = *m.find(k);
  return elements_[{kind, builder_.count(kind)}] = std::move(e);
}

// ---- bodies -----------------------------------------------------------------------------------

void Loader::readBody(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "body", "bodies", i);
  MapView m(src_, n, path, {"name", "mass", "com", "inertia", "solid", "visuals"});
  BodySpec b;
  b.name = m.name("name");
  if (const YAML::Node* solid = m.find("solid")) {
    for (const char* k : {"mass", "com", "inertia"})
      if (m.has(k))
        src_.fail(*m.find(k), at(m.at(k), "'" + std::string(k) +
                                              "' and 'solid' exclude each other; give either a solid or mass and inertia"));
    readSolid(*solid, m.at("solid"), b);
  } else {
    if (!m.has("mass") && !m.has("inertia"))
      src_.fail(n, at(path, "expected 'mass' and 'inertia' (and optionally 'com'), or a 'solid'"));
    b.mass = m.number("mass");
    b.com = m.vec3("com", Vec3::Zero());
    b.inertia = readSymmetric6(m.require("inertia"), m.at("inertia"));
    if (b.inertia.allFinite()) {
      std::string warning;
      b.inertia = applyTriangleInequalityPolicy(b.inertia, balance_inertia_, "balance_inertia: true", warning);
      if (!warning.empty()) warn(*m.find("inertia"), at(m.at("inertia"), warning));
    }
  }
  if (applyLowerBounds(b, bound_mass_, bound_inertia_)) {
    if (bounded_bodies_.empty()) first_bounded_body_ = n;
    bounded_bodies_.push_back(b.name);
  }
  remember(ModelElement::Body, b.name, m);
  builder_.addBody(b);
  if (const YAML::Node* visuals = m.find("visuals")) {
    std::size_t k = 0;
    for (const auto& v : readList(src_, *visuals, m.at("visuals"))) {
      readVisual(v, m.at("visuals") + "." + std::to_string(k), b.name);
      ++k;
    }
  }
}

void Loader::readSolid(const YAML::Node& n, const std::string& path, BodySpec& body) const {
  MapView m(src_, n, path, {"box", "cylinder", "sphere", "capsule", "mass", "density", "origin"});
  const std::string shape = m.exactlyOne({"box", "cylinder", "sphere", "capsule"}, "shape");
  const std::string amount = m.exactlyOne({"mass", "density"}, "of");
  Solid s;
  const YAML::Node& sn = *m.find(shape);
  const std::string sp = m.at(shape);
  if (shape == "box") {
    s.shape = SolidShape::Box;
    s.size = readVec3(src_, sn, sp);
    if (!(s.size.minCoeff() > 0.0)) src_.fail(sn, at(sp, "expected three edge lengths > 0"));
  } else if (shape == "sphere") {
    s.shape = SolidShape::Sphere;
    MapView d(src_, sn, sp, {"radius"});
    s.size = Vec3(positive(d, "radius"), 0.0, 0.0);
  } else {
    s.shape = shape == "cylinder" ? SolidShape::Cylinder : SolidShape::Capsule;
    MapView d(src_, sn, sp, {"radius", "length"});
    const double r = positive(d, "radius");
    const double l = shape == "cylinder" ? positive(d, "length") : nonNegative(d, "length", -1.0);
    if (l < 0.0) d.require("length");
    s.size = Vec3(r, l, 0.0);
  }
  if (const YAML::Node* o = m.find("origin")) s.origin = readPose(*o, m.at("origin"));
  const double value = positive(m, amount);
  const double volume = solidVolume(s);
  const double mass = amount == "mass" ? value : value * volume;
  if (!std::isfinite(mass) || !(mass > 0.0) || !std::isfinite(volume))
    src_.fail(n, at(path, "the solid's mass " + str(mass) + " kg is not a positive finite number"));
  const MassProperties p = solidMassProperties(s, mass);
  if (!p.inertia.allFinite() || !(p.inertia.diagonal().minCoeff() > 0.0))
    src_.fail(n, at(path, "the solid's inertia is not positive and finite; check its sizes"));
  body.mass = p.mass;
  body.com = p.com;
  body.inertia = p.inertia;
}

void Loader::readVisual(const YAML::Node& n, const std::string& path, const std::string& body) {
  MapView m(src_, n, path, {"box", "cylinder", "sphere", "capsule", "mesh", "origin", "color"});
  const std::string shape = m.exactlyOne({"box", "cylinder", "sphere", "capsule", "mesh"}, "shape");
  VisualSpec v;
  v.body = body;
  bool missing_mesh = false;
  const YAML::Node& sn = *m.find(shape);
  const std::string sp = m.at(shape);
  if (shape == "box") {
    v.shape = Visual::Shape::Box;
    v.size = readVec3(src_, sn, sp);
    if (!(v.size.minCoeff() > 0.0)) src_.fail(sn, at(sp, "expected three edge lengths > 0"));
  } else if (shape == "sphere") {
    v.shape = Visual::Shape::Sphere;
    MapView d(src_, sn, sp, {"radius"});
    v.size = Vec3(positive(d, "radius"), 0.0, 0.0);
  } else if (shape == "mesh") {
    v.shape = Visual::Shape::Mesh;
    MapView d(src_, sn, sp, {"file", "scale"});
    v.mesh_file = d.name("file");
    if (ResourceResolver::Mesh mesh = resources_.resolveMesh(v.mesh_file, file_); mesh.problem.empty()) {
      v.mesh_file = mesh.file.string();
    } else {
      if (reported_meshes_.insert(v.mesh_file).second)
        warn(*d.find("file"), at(d.at("file"), "mesh '" + v.mesh_file + "' " + mesh.problem + "; drawn as a magenta box"));
      missing_mesh = true;
    }
    v.size = d.vec3("scale", Vec3::Ones());
    if (!(v.size.minCoeff() > 0.0)) src_.fail(*d.find("scale"), at(d.at("scale"), "expected three scale factors > 0"));
  } else {
    v.shape = shape == "cylinder" ? Visual::Shape::Cylinder : Visual::Shape::Capsule;
    MapView d(src_, sn, sp, {"radius", "length"});
    const double r = positive(d, "radius");
    const double l = shape == "cylinder" ? positive(d, "length") : nonNegative(d, "length", -1.0);
    if (l < 0.0) d.require("length");
    v.size = Vec3(r, l, 0.0);
  }
  if (const YAML::Node* o = m.find("origin")) v.origin = readPose(*o, m.at("origin"));
  if (const YAML::Node* c = m.find("color")) {
    const auto rgba = readNumbers(src_, *c, m.at("color"), -1);
    if (rgba.size() != 3 && rgba.size() != 4)
      src_.fail(*c, at(m.at("color"), "expected a list of 4 numbers [r, g, b, a] (or 3: [r, g, b]), got " + describe(*c)));
    for (double x : rgba)
      if (x < 0.0 || x > 1.0) src_.fail(*c, at(m.at("color"), "colour components must lie in [0, 1], got " + str(x)));
    v.color = Vec4(rgba[0], rgba[1], rgba[2], rgba.size() == 4 ? rgba[3] : 1.0);
  }
  remember(ModelElement::Visual, body, m);
  builder_.addVisual(missing_mesh ? missingMeshBox(std::move(v)) : std::move(v));
}

// ---- joints -----------------------------------------------------------------------------------

void Loader::readJoint(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "joint", "joints", i);
  MapView m(src_, n, path, {"name", "type", "coordinates", "velocity", "parent", "child", "origin",
                            "child_origin", "axis", "axis2", "initial", "limits", "armature",
                            "rotor_coupling"});
  JointSpec j;
  j.name = m.name("name");
  const YAML::Node& type_node = m.require("type");
  const std::string type_name = type_node.IsScalar() ? type_node.Scalar() : std::string();
  // The core's spellings (revolute_unit_circle, spherical_quaternion, …) name type and coordinates
  // at once.
  const std::optional<JointType> full = jointTypeFromName(type_name);
  std::string base;
  if (full && std::find(kJointTypes.begin(), kJointTypes.end(), type_name) == kJointTypes.end()) {
    for (const char* k : {"coordinates", "velocity"})
      if (m.has(k))
        src_.fail(*m.find(k), at(m.at(k), "type '" + type_name + "' already fixes the coordinates; use type '" +
                                              type_name.substr(0, type_name.find('_')) + "' with '" + k + "'"));
    j.type = *full;
  } else {
    base = readChoice(src_, type_node, m.at("type"), kJointTypes);
    const YAML::Node* coord = m.find("coordinates");
    const YAML::Node* vel = m.find("velocity");
    std::string coordinates;
    if (base == "revolute") {
      coordinates = coord ? readChoice(src_, *coord, m.at("coordinates"), {"angle", "unit_circle"}) : "angle";
      j.type = coordinates == "angle" ? JointType::Revolute : JointType::RevoluteUnitCircle;
    } else if (base == "spherical") {
      coordinates = coord ? readChoice(src_, *coord, m.at("coordinates"), {"rotation_matrix", "quaternion", "euler_zyx"})
                          : "rotation_matrix";
      const std::string velocity = vel ? readChoice(src_, *vel, m.at("velocity"), {"relative", "absolute"}) : "relative";
      if (coordinates == "euler_zyx" && vel)
        src_.fail(*vel, at(m.at("velocity"), "euler_zyx coordinates use the angle rates as velocity coordinates; "
                                             "'velocity' applies to rotation_matrix coordinates"));
      if (coordinates == "quaternion" && velocity == "absolute")
        src_.fail(*vel, at(m.at("velocity"), "absolute angular velocity needs coordinates: rotation_matrix"));
      j.type = coordinates == "quaternion"  ? JointType::SphericalQuaternion
               : coordinates == "euler_zyx" ? JointType::SphericalEulerZYX
               : velocity == "absolute"     ? JointType::SphericalAbsolute
                                            : JointType::Spherical;
    } else if (base == "free") {
      coordinates = coord ? readChoice(src_, *coord, m.at("coordinates"), {"rotation_matrix", "quaternion"}) : "rotation_matrix";
      j.type = coordinates == "quaternion" ? JointType::FreeQuaternion : JointType::Free;
    } else {
      if (coord) src_.fail(*coord, at(m.at("coordinates"), "a " + base + " joint has no choice of coordinates"));
      j.type = *jointTypeFromName(base);
    }
    if (vel && base != "spherical")
      src_.fail(*vel, at(m.at("velocity"), "the velocity choice applies to spherical joints only"));
  }
  const bool one_dof = hasScalarPosition(j.type);
  if (const YAML::Node* p = m.find("parent")) j.parent = readName(src_, *p, m.at("parent"));
  j.child = m.name("child");
  if (const YAML::Node* o = m.find("origin")) j.parent_placement = readPose(*o, m.at("origin"));
  if (const YAML::Node* o = m.find("child_origin")) j.child_placement = readPose(*o, m.at("child_origin"));
  if (const YAML::Node* a = m.find("axis")) {
    if (!usesAxis(j.type))
      src_.fail(*a, at(m.at("axis"), "'axis' applies to revolute, prismatic and universal joints, not to '" +
                                         std::string(jointTypeName(j.type)) + "'"));
    j.axis = readUnitVector(*a, m.at("axis"));
  }
  if (const YAML::Node* a = m.find("axis2")) {
    if (j.type != JointType::Universal)
      src_.fail(*a, at(m.at("axis2"), "'axis2' applies to universal joints only"));
    j.axis2 = readUnitVector(*a, m.at("axis2"));
  }
  if (const YAML::Node* init = m.find("initial")) readJointInitial(*init, m.at("initial"), j.type, j);
  if (const YAML::Node* l = m.find("limits")) {
    if (!one_dof)
      src_.fail(*l, at(m.at("limits"), "limits apply to one-degree-of-freedom joints (revolute, prismatic), not to '" +
                                           std::string(jointTypeName(j.type)) + "'"));
    MapView lm(src_, *l, m.at("limits"), {"lower", "upper", "effort", "velocity"});
    JointLimits limits;
    limits.lower = lm.number("lower", limits.lower);
    limits.upper = lm.number("upper", limits.upper);
    if (limits.lower > limits.upper)
      src_.fail(*l, at(m.at("limits"), "lower " + str(limits.lower) + " > upper " + str(limits.upper) +
                                           "; expected lower ≤ upper"));
    limits.effort = nonNegative(lm, "effort", limits.effort);
    limits.velocity = nonNegative(lm, "velocity", limits.velocity);
    j.limits = limits;
  }
  if (const YAML::Node* a = m.find("armature")) {
    if (!one_dof)
      src_.fail(*a, at(m.at("armature"), "armature applies to one-axis joints (revolute, prismatic), not to '" +
                                             std::string(jointTypeName(j.type)) + "'"));
    j.armature = nonNegative(m, "armature", 0.0);
  }
  if (m.find("rotor_coupling")) j.rotor_coupling = m.number("rotor_coupling");
  remember(ModelElement::Joint, j.name, m);
  builder_.addJoint(j);
}

void Loader::readJointInitial(const YAML::Node& n, const std::string& path, JointType type, JointSpec& j) {
  switch (type) {
    case JointType::Fixed:
      if (!n.IsNull()) src_.fail(n, at(path, "a fixed joint has no initial values"));
      return;
    case JointType::Revolute:
    case JointType::RevoluteUnitCircle:
    case JointType::Prismatic: {
      MapView m(src_, n, path, {"position", "velocity"});
      if (m.has("position")) j.initial_position = m.number("position");
      if (m.has("velocity")) j.initial_velocity = VecX::Constant(1, m.number("velocity"));
      return;
    }
    case JointType::Spherical:
    case JointType::SphericalQuaternion:
    case JointType::SphericalEulerZYX:
    case JointType::SphericalAbsolute: {
      MapView m(src_, n, path, {"rotation", "angular_velocity"});
      if (const YAML::Node* r = m.find("rotation")) j.initial_motion = Pose::rotation(readRotation(*r, m.at("rotation")));
      if (const YAML::Node* w = m.find("angular_velocity")) j.initial_velocity = readVec3(src_, *w, m.at("angular_velocity"));
      return;
    }
    case JointType::Free:
    case JointType::FreeQuaternion: {
      MapView m(src_, n, path, {"pose", "twist"});
      if (const YAML::Node* p = m.find("pose")) j.initial_motion = readPose(*p, m.at("pose"));
      if (const YAML::Node* t = m.find("twist")) {
        const auto v = readNumbers(src_, *t, m.at("twist"), 6);
        j.initial_velocity = Eigen::Map<const VecX>(v.data(), 6);
      }
      return;
    }
    case JointType::Planar:
    case JointType::Universal: {
      const int size = type == JointType::Planar ? 3 : 2;
      MapView m(src_, n, path, {"position", "velocity"});
      if (const YAML::Node* p = m.find("position"))
        patches_.push_back({j.name, readNumbers(src_, *p, m.at("position"), size)});
      if (const YAML::Node* v = m.find("velocity")) {
        const auto w = readNumbers(src_, *v, m.at("velocity"), size);
        j.initial_velocity = Eigen::Map<const VecX>(w.data(), size);
      }
      return;
    }
  }
}

// ---- force elements, actuators ----------------------------------------------------------------

void Loader::readSpring(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "spring", "springs", i);
  MapView m(src_, n, path, {"name", "frames", "stiffness", "center", "rotational_stiffness", "rest"});
  SpringSpec s;
  s.name = m.name("name");
  Element& e = remember(ModelElement::Spring, s.name, m);
  std::tie(s.a, s.b) = readFrames(m, e);
  s.stiffness = nonNegative(m, "stiffness", 0.0);
  s.center = m.vec3("center", Vec3::Zero());
  if (const YAML::Node* r = m.find("rotational_stiffness")) s.rotational_stiffness = readSymmetric6(*r, m.at("rotational_stiffness"));
  if (const YAML::Node* r = m.find("rest")) s.rest = readPose(*r, m.at("rest"));
  builder_.addSpring(s);
}

void Loader::readDamper(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "damper", "dampers", i);
  MapView m(src_, n, path, {"name", "frames", "damping", "center", "rotational_damping"});
  DamperSpec d;
  d.name = m.name("name");
  Element& e = remember(ModelElement::Damper, d.name, m);
  std::tie(d.a, d.b) = readFrames(m, e);
  d.damping = nonNegative(m, "damping", 0.0);
  d.center = m.vec3("center", Vec3::Zero());
  if (const YAML::Node* r = m.find("rotational_damping")) d.rotational_damping = readSymmetric6(*r, m.at("rotational_damping"));
  builder_.addDamper(d);
}

void Loader::readJointSpring(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "joint_spring", "joint_springs", i, "joint");
  MapView m(src_, n, path, {"joint", "stiffness", "rest_position", "damping", "friction", "friction_velocity"});
  JointSpringDamperSpec s;
  s.joint = m.name("joint");
  s.stiffness = nonNegative(m, "stiffness", 0.0);
  s.rest_position = m.number("rest_position", 0.0);
  s.damping = nonNegative(m, "damping", 0.0);
  s.friction = nonNegative(m, "friction", 0.0);
  if (m.has("friction_velocity")) s.friction_velocity = positive(m, "friction_velocity");
  remember(ModelElement::JointSpring, s.joint, m);
  builder_.addJointSpringDamper(s);
}

void Loader::readLoopClosure(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "loop_closure", "loop_closures", i);
  MapView m(src_, n, path, {"name", "type", "frames", "frequency", "damping"});
  LoopClosureSpec l;
  l.name = m.name("name");
  Element& e = remember(ModelElement::LoopClosure, l.name, m);
  if (const YAML::Node* t = m.find("type"))
    l.kind = readChoice(src_, *t, m.at("type"), {"ball", "weld"}) == "ball" ? LoopClosure::Kind::Ball
                                                                          : LoopClosure::Kind::Weld;
  std::tie(l.a, l.b) = readFrames(m, e);
  l.stabilization_frequency = nonNegative(m, "frequency", l.stabilization_frequency);
  l.stabilization_damping = nonNegative(m, "damping", l.stabilization_damping);
  builder_.addLoopClosure(l);
}

// input_sets: a convex set per group of inputs beyond their limits (thesis (4.63), W u ≤ l).
//   type: polygon  rows: [[a11, a12, …], …]  bounds: [c1, …]      rows · u ≤ bounds
//   type: sector   inputs: [u_s, u_c]  radius: [r_min, r_max]  angle: [α_min, α_max] [rad]
//                  chords: k (default 4): the convex polygon inside the annular sector
//                  {(r sin α, r cos α)} (core/model/input_sets.h) — the bicopter's (F sin θ, F cos θ).
void Loader::readInputSet(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "input_set", "input_sets", i);
  MapView m(src_, n, path, {"name", "type", "inputs", "rows", "bounds", "radius", "angle", "chords"});
  InputSetSpec set;
  set.name = m.name("name");
  const std::string type = readChoice(src_, m.require("type"), m.at("type"), {"polygon", "sector"});
  set.inputs = readStrings(src_, m.require("inputs"), m.at("inputs"));
  auto forbid = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (const YAML::Node* v = m.find(k))
        src_.fail(*v, at(m.at(k), "'" + std::string(k) + "' does not apply to a " + type + " input set"));
  };
  if (type == "polygon") {
    forbid({"radius", "angle", "chords"});
    const YAML::Node& rows = m.require("rows");
    const auto list = readList(src_, rows, m.at("rows"));
    const std::vector<double> bounds = readNumbers(src_, m.require("bounds"), m.at("bounds"), static_cast<int>(list.size()));
    set.rows.resize(static_cast<Eigen::Index>(list.size()), static_cast<Eigen::Index>(set.inputs.size()));
    for (std::size_t r = 0; r < list.size(); ++r) {
      const auto row = readNumbers(src_, list[r], m.at("rows") + "[" + std::to_string(r) + "]", static_cast<int>(set.inputs.size()));
      for (std::size_t k = 0; k < row.size(); ++k) set.rows(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(k)) = row[k];
    }
    set.bounds = Eigen::Map<const VecX>(bounds.data(), static_cast<Eigen::Index>(bounds.size()));
  } else {
    forbid({"rows", "bounds"});
    if (set.inputs.size() != 2)
      src_.fail(m.require("inputs"), at(m.at("inputs"), "a sector is over two inputs, [u_s, u_c] = [F sin angle, F cos angle]"));
    const auto radius = readNumbers(src_, m.require("radius"), m.at("radius"), 2);
    const auto angle = readNumbers(src_, m.require("angle"), m.at("angle"), 2);
    int chords = 4;
    if (const YAML::Node* c = m.find("chords")) chords = readInteger(src_, *c, m.at("chords"));
    try {
      annularSectorPolygon(radius[0], radius[1], angle[0], angle[1], chords, set.rows, set.bounds);
    } catch (const std::invalid_argument& e) {
      src_.fail(n, at(path, std::string("not a sector with a convex inner polygon: ") + e.what()));
    }
  }
  remember(ModelElement::InputSet, set.name, m);
  builder_.addInputSet(std::move(set));
}

void Loader::readExternalWrench(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "external_wrench", "external_wrenches", i, "body");
  MapView m(src_, n, path, {"body", "point", "force", "torque", "axes"});
  ExternalWrenchSpec w;
  w.body = m.name("body");
  w.point = m.vec3("point", Vec3::Zero());
  w.force = m.vec3("force", Vec3::Zero());
  w.torque = m.vec3("torque", Vec3::Zero());
  if (const YAML::Node* a = m.find("axes")) w.world_axes = readChoice(src_, *a, m.at("axes"), {"body", "world"}) == "world";
  remember(ModelElement::ExternalWrench, w.body, m);
  builder_.addExternalWrench(w);
}

void Loader::readActuator(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "actuator", "actuators", i);
  MapView m(src_, n, path, {"name", "type", "joint", "component", "body", "point", "direction", "torque_ratio", "limits",
                            "gain", "stiffness", "damping"});
  ActuatorSpec a;
  a.name = m.name("name");
  const std::string type =
      readChoice(src_, m.require("type"), m.at("type"), {"joint_effort", "body_force", "body_torque", "servo"});
  auto forbid = [&](std::initializer_list<const char*> keys) {
    for (const char* k : keys)
      if (const YAML::Node* v = m.find(k))
        src_.fail(*v, at(m.at(k), "'" + std::string(k) + "' does not apply to a " + type + " actuator"));
  };
  if (type != "servo") forbid({"stiffness", "damping"});
  if (type != "joint_effort") forbid({"gain"});
  if (type == "servo") {
    // (5.2): τ = k_P (θ_R − θ) − k_D θ̇, input θ_R.
    forbid({"body", "point", "direction", "torque_ratio", "component"});
    a.kind = ActuatorKind::JointServo;
    a.joint = m.name("joint");
    a.gain = positive(m, "stiffness");
    a.damping = nonNegative(m, "damping", 0.0);
  } else if (type == "joint_effort") {
    forbid({"body", "point", "direction"});
    a.kind = ActuatorKind::JointEffort;
    if (m.has("gain")) a.gain = positive(m, "gain");
    a.joint = m.name("joint");
    if (const YAML::Node* c = m.find("component")) {
      a.component = readInteger(src_, *c, m.at("component"));
      if (a.component < 0) src_.fail(*c, at(m.at("component"), "expected an index ≥ 0"));
    }
  } else {
    forbid({"joint", "component"});
    if (type == "body_torque") forbid({"point", "torque_ratio"});
    a.kind = type == "body_force" ? ActuatorKind::BodyForce : ActuatorKind::BodyTorque;
    a.body = m.name("body");
    a.point = m.vec3("point", Vec3::Zero());
    if (const YAML::Node* d = m.find("direction")) a.direction = readUnitVector(*d, m.at("direction"));
    if (const YAML::Node* r = m.find("torque_ratio")) a.torque_ratio = readNumber(src_, *r, m.at("torque_ratio"));
  }
  if (const YAML::Node* l = m.find("limits")) {
    const auto lim = readNumbers(src_, *l, m.at("limits"), 2);
    if (lim[0] > lim[1])
      src_.fail(*l, at(m.at("limits"), "lower " + str(lim[0]) + " > upper " + str(lim[1]) + "; expected [lower, upper]"));
    a.lower = lim[0];
    a.upper = lim[1];
  }
  remember(ModelElement::Actuator, a.name, m);
  builder_.addActuator(a);
}

// joint_actuators: all | [NAME, …]: a joint_effort actuator "tau_NAME" for every moving
// one-degree-of-freedom joint of the included URDF (or the listed ones, in file order of the list),
// limited to ±effort where the URDF's <limit effort> gives one.
void Loader::readJointActuators(const MapView& top) {
  const YAML::Node* n = top.find("joint_actuators");
  if (!n) return;
  joint_actuators_node_ = *n;
  if (!urdf_) src_.fail(*n, "joint_actuators: applies to the joints of an included URDF ('include')");
  const std::vector<UrdfSummary::ScalarJoint>& available = urdf_->scalar_joints;
  std::vector<UrdfSummary::ScalarJoint> chosen;
  if (n->IsScalar()) {
    readChoice(src_, *n, "joint_actuators", {"all"});
    chosen = available;
  } else {
    std::vector<std::string> names;
    for (const auto& j : available) names.push_back(j.name);
    std::size_t k = 0;
    for (const YAML::Node& e : readList(src_, *n, "joint_actuators")) {
      const std::string path = "joint_actuators." + std::to_string(k++);
      const std::string name = readName(src_, e, path);
      const auto it = std::find_if(available.begin(), available.end(), [&](const auto& j) { return j.name == name; });
      if (it == available.end())
        src_.fail(e, at(path, "no revolute, continuous or prismatic joint named '" + name + "' in the URDF" +
                                  didYouMean(name, names)));
      if (std::any_of(chosen.begin(), chosen.end(), [&](const auto& j) { return j.name == name; }))
        src_.fail(e, at(path, "joint '" + name + "' is listed twice"));
      chosen.push_back(*it);
    }
  }
  if (chosen.empty()) src_.fail(*n, "joint_actuators: the URDF has no revolute, continuous or prismatic joint");
  for (const UrdfSummary::ScalarJoint& j : chosen) {
    ActuatorSpec a;
    a.name = "tau_" + j.name;
    a.kind = ActuatorKind::JointEffort;
    a.joint = j.name;
    if (j.effort > 0.0) {
      a.lower = -j.effort;
      a.upper = j.effort;
    }
    builder_.addActuator(std::move(a));
  }
}

void Loader::readPropeller(const YAML::Node& n, std::size_t i) {
  const std::string path = elementPath(n, "propeller", "propellers", i);
  MapView m(src_, n, path, {"name", "joint", "thrust_direction", "thrust_coefficient", "drag_coefficient", "friction",
                            "speed_limits", "motor"});
  PropellerSpec p;
  p.name = m.name("name");
  p.joint = m.name("joint");
  if (const YAML::Node* d = m.find("thrust_direction")) p.thrust_direction = readUnitVector(*d, m.at("thrust_direction"));
  p.thrust_coefficient = positive(m, "thrust_coefficient");
  p.drag_coefficient = nonNegative(m, "drag_coefficient", 0.0);
  p.friction = nonNegative(m, "friction", 0.0);
  if (const YAML::Node* l = m.find("speed_limits")) {
    const auto lim = readNumbers(src_, *l, m.at("speed_limits"), 2);
    if (!(lim[0] >= 0.0) || !(lim[1] > lim[0]))
      src_.fail(*l, at(m.at("speed_limits"), "expected [min, max] with 0 ≤ min < max [rad/s]"));
    p.min_speed = lim[0];
    p.max_speed = lim[1];
  }
  remember(ModelElement::Propeller, p.name, m);
  builder_.addPropeller(p);

  // The motor (5.1): torque k_M i with the current as input, or a speed servo (first-order lag)
  // with the commanded rate as input. It is the plant input "<name>_motor".
  const YAML::Node& motor_node = m.require("motor");
  MapView mm(src_, motor_node, m.at("motor"), {"type", "name", "torque_constant", "current_limits", "time_constant"});
  ActuatorSpec motor;
  motor.name = mm.has("name") ? mm.name("name") : p.name + "_motor";
  motor.joint = p.joint;
  const std::string type = readChoice(src_, mm.require("type"), mm.at("type"), {"current", "lag"});
  auto forbid = [&](const char* key) {
    if (const YAML::Node* v = mm.find(key))
      src_.fail(*v, at(mm.at(key), "'" + std::string(key) + "' does not apply to a " + type + " motor"));
  };
  if (type == "current") {
    forbid("time_constant");
    motor.kind = ActuatorKind::JointEffort;
    motor.gain = positive(mm, "torque_constant");
    if (const YAML::Node* l = mm.find("current_limits")) {
      const auto lim = readNumbers(src_, *l, mm.at("current_limits"), 2);
      if (lim[0] > lim[1]) src_.fail(*l, at(mm.at("current_limits"), "expected [lower, upper] with lower ≤ upper [A]"));
      motor.lower = lim[0];
      motor.upper = lim[1];
    }
  } else {
    forbid("torque_constant");
    forbid("current_limits");
    motor.kind = ActuatorKind::JointSpeedServo;
    motor.time_constant = positive(mm, "time_constant");
    motor.lower = p.min_speed;
    motor.upper = p.max_speed;
  }
  remember(ModelElement::Actuator, motor.name, mm);
  builder_.addActuator(motor);
}

// ---- settings ---------------------------------------------------------------------------------

void Loader::readController(const YAML::Node& n, ControllerSettings& c) const {
  MapView m(src_, n, "controller", {"name", "parameters", "options", "actuation"});
  c.name = m.name("name");
  c.line = n.Mark().line + 1;
  c.column = n.Mark().column + 1;
  if (const YAML::Node* p = m.find("parameters")) {
    MapView pm(src_, *p, m.at("parameters"), {"*"});
    for (const auto& k : pm.keys()) c.parameters[k] = pm.number(k);
  }
  readOptions(m, c.options);
  if (const YAML::Node* a = m.find("actuation")) {
    MapView am(src_, *a, m.at("actuation"), {"filter", "thrust", "sector_chords", "parameters", "options"});
    c.actuation.filter = readChoice(src_, am.require("filter"), am.at("filter"), {"thrust_filter", "flat_filter"});
    // thrust: vector — servo-tilted propellers as thrust vectors in their convexified sector
    // (ModelBuilder::rotorsAsThrustVectors), sector_chords outer chords (default 4).
    const bool vectors = am.find("thrust") && readChoice(src_, *am.find("thrust"), am.at("thrust"), {"scalar", "vector"}) == "vector";
    if (const YAML::Node* k = am.find("sector_chords")) {
      if (!vectors) src_.fail(*k, am.at("sector_chords") + ": applies to thrust: vector only");
      c.actuation.sector_chords = readInteger(src_, *k, am.at("sector_chords"));
      if (c.actuation.sector_chords < 1 || c.actuation.sector_chords > kMaxSectorChords)
        src_.fail(*k, am.at("sector_chords") + ": expected 1 … " + std::to_string(kMaxSectorChords));
    } else if (vectors) {
      c.actuation.sector_chords = 4;
    }
    c.actuation.line = a->Mark().line + 1;
    c.actuation.column = a->Mark().column + 1;
    if (const YAML::Node* p = am.find("parameters")) {
      MapView pm(src_, *p, am.at("parameters"), {"*"});
      for (const auto& k : pm.keys()) c.actuation.parameters[k] = pm.number(k);
    }
    readOptions(am, c.actuation.options);
  }
}

void Loader::readOptions(const MapView& m, std::map<std::string, std::string>& options) const {
  if (const YAML::Node* p = m.find("options")) {
    MapView om(src_, *p, m.at("options"), {"*"});
    for (const auto& k : om.keys()) options[k] = om.name(k);
  }
}

void Loader::readReference(const YAML::Node& n, ReferenceSettings& r) const {
  MapView m(src_, n, "reference", {"generator", "parameters", "options"});
  readOptions(m, r.options);
  r.generator = m.name("generator");
  r.line = n.Mark().line + 1;
  r.column = n.Mark().column + 1;
  if (const YAML::Node* p = m.find("parameters")) {
    MapView pm(src_, *p, m.at("parameters"), {"*"});
    for (const auto& k : pm.keys()) {
      const YAML::Node& v = *pm.find(k);
      if (v.IsSequence())
        r.parameters[k] = readNumbers(src_, v, pm.at(k), -1);
      else if (v.IsScalar())
        r.parameters[k] = {readNumber(src_, v, pm.at(k))};
      else
        src_.fail(v, at(pm.at(k), "expected a number or a list of numbers, got " + describe(v)));
    }
  }
}

void Loader::chooseDefaultStepper(const Model& model, IntegratorSettings& s) const {
  // rk4's stability region reaches about 2.8 along the negative real axis and the imaginary axis;
  // a model whose fastest joint mode needs more than kRk4Reach / dt (a robot hand's damped
  // fingers: 10⁵ 1/s) gets the error-controlled rk_dopri5, which takes the steps it needs.
  constexpr double kRk4Reach = 2.5;
  const FastestRate fastest = fastestJointRate(model, model.initial_state.x);
  if (fastest.rate * s.dt <= kRk4Reach) return;
  s.stepper = "rk_dopri5";
  std::ostringstream note;
  note.precision(3);
  note << "integrator: rk_dopri5 (rtol " << s.rtol << ", atol " << s.atol << "), the default for this model: its fastest "
       << "joint mode runs at " << fastest.rate << " 1/s"
       << (fastest.joint >= 0 ? " (joint '" + model.joints[fastest.joint].name + "': damping, friction or servo on a light link)" : "")
       << ", beyond rk4 at dt = " << s.dt << " s (stable to about " << kRk4Reach / s.dt
       << " 1/s); name integrator.stepper to choose another";
  s.default_stepper_note = note.str();
}

void Loader::readIntegrator(const YAML::Node& n, IntegratorSettings& s) {
  MapView m(src_, n, "integrator",
            {"stepper", "dt", "rtol", "atol", "drift", "stabilization_gain", "t_end", "dt_out", "control_rate"});
  if (const YAML::Node* st = m.find("stepper")) {
    s.stepper = readChoice(src_, *st, m.at("stepper"), kSteppers);
    stepper_named_ = true;
  }
  for (auto [key, value] : {std::pair<const char*, double*>{"dt", &s.dt}, {"rtol", &s.rtol}, {"atol", &s.atol},
                            {"t_end", &s.t_end}, {"dt_out", &s.dt_out}})
    if (m.has(key)) *value = positive(m, key);
  if (const YAML::Node* d = m.find("drift")) s.drift = readChoice(src_, *d, m.at("drift"), {"project", "stabilize", "none"});
  s.stabilization_gain = nonNegative(m, "stabilization_gain", s.stabilization_gain);
  s.control_rate = nonNegative(m, "control_rate", s.control_rate);
}

void Loader::readPerturbation(const YAML::Node& n, PerturbationSettings& p) const {
  MapView m(src_, n, "perturbation",
            {"mass_scale", "noise", "motion_capture", "estimator", "imu", "external_wrenches",
             "seed"});
  p.line = n.Mark().line + 1;
  p.column = n.Mark().column + 1;
  if (m.has("mass_scale")) p.mass_scale = positive(m, "mass_scale");
  if (const YAML::Node* nn = m.find("noise")) {
    MapView nm(src_, *nn, m.at("noise"),
               {"position", "attitude", "velocity", "rate", "joint", "joint_rate"});
    PerturbationSettings::Noise& s = p.noise;
    for (auto [key, value] :
         {std::pair<const char*, double*>{"position", &s.position}, {"attitude", &s.attitude},
          {"velocity", &s.velocity}, {"rate", &s.rate}, {"joint", &s.joint},
          {"joint_rate", &s.joint_rate}})
      *value = nonNegative(nm, key, *value);
  }
  if (const YAML::Node* mc = m.find("motion_capture")) {
    MapView cm(src_, *mc, m.at("motion_capture"), {"rate", "latency"});
    p.motion_capture.rate = nonNegative(cm, "rate", p.motion_capture.rate);
    p.motion_capture.latency = nonNegative(cm, "latency", p.motion_capture.latency);
  }
  if (const YAML::Node* en = m.find("estimator")) {
    MapView em(src_, *en, m.at("estimator"),
               {"enabled", "bias_compensation", "l_omega", "l_tau", "l_r", "l_v", "l_a", "l_f"});
    PerturbationSettings::Estimator& e = p.estimator;
    if (const YAML::Node* b = em.find("enabled")) e.enabled = readBool(src_, *b, em.at("enabled"));
    if (const YAML::Node* b = em.find("bias_compensation"))
      e.bias_compensation = readBool(src_, *b, em.at("bias_compensation"));
    e.l_tau = nonNegative(em, "l_tau", e.l_tau);
    for (auto [key, value, lo, hi, open] :
         {std::tuple<const char*, double*, double, double, bool>{"l_omega", &e.l_omega, 0, 1, false},
          {"l_f", &e.l_f, 0, 1, true}})
      if (const YAML::Node* v = em.find(key)) {
        *value = readNumber(src_, *v, em.at(key));
        if (!(*value >= lo && (open ? *value < hi : *value <= hi)))
          src_.fail(*v, at(em.at(key), "expected a number in [" + str(lo) + ", " + str(hi) +
                                           (open ? ")" : "]") + ", got " + str(*value)));
      }
    for (auto [key, value] : {std::pair<const char*, double*>{"l_r", &e.l_r}, {"l_v", &e.l_v},
                              {"l_a", &e.l_a}})
      *value = em.number(key, *value);
    if (std::string error = perturbationError(p); error.rfind("estimator", 0) == 0)
      src_.fail(*en, at(m.at("estimator"), error));  // (5.65): the three gains together
  }
  if (const YAML::Node* in = m.find("imu")) {
    MapView im(src_, *in, m.at("imu"), {"gyro_noise", "accel_noise", "accel_bias", "misalignment_rpy"});
    p.imu.gyro_noise = nonNegative(im, "gyro_noise", p.imu.gyro_noise);
    p.imu.accel_noise = nonNegative(im, "accel_noise", p.imu.accel_noise);
    p.imu.accel_bias = im.vec3("accel_bias", p.imu.accel_bias);
    p.imu.misalignment_rpy = im.vec3("misalignment_rpy", p.imu.misalignment_rpy);
  }
  if (const YAML::Node* w = m.find("external_wrenches"))
    p.external_wrenches_known =
        readChoice(src_, *w, m.at("external_wrenches"), {"known", "unknown"}) == "known";
  if (const YAML::Node* sd = m.find("seed")) {
    const int seed = readInteger(src_, *sd, m.at("seed"));
    if (seed < 0)
      src_.fail(*sd, at(m.at("seed"), "expected an integer ≥ 0, got " + std::to_string(seed)));
    p.seed = static_cast<std::uint64_t>(seed);
  }
  if (p.perturbsMeasurement() && !(integrator_control_rate_ > 0.0))
    src_.fail(n, at("perturbation", "noise, motion_capture and the estimator need a zero-order "
                                    "hold: set integrator.control_rate > 0"));
  // The estimator buffers kBufferSteps control instants: the delayed frame must lie within them.
  const double span = static_cast<double>(StateEstimator::kBufferSteps - 2) / integrator_control_rate_;
  if (p.estimator.enabled && p.motion_capture.latency > span)
    src_.fail(n, at("perturbation.motion_capture.latency",
                    "the estimator buffers " + std::to_string(StateEstimator::kBufferSteps) +
                        " control instants: the latency must be ≤ " + str(span) +
                        " s at control_rate " + str(integrator_control_rate_) + " Hz"));
}

void Loader::readPlots(const YAML::Node& n, std::vector<PlotGroup>& plots) const {
  std::size_t i = 0;
  for (const auto& p : readList(src_, n, "plots")) {
    const std::string path = elementPath(p, "plot", "plots", i++, "title");
    MapView m(src_, p, path, {"title", "channels"});
    PlotGroup g;
    g.title = m.name("title");
    g.channels = readStrings(src_, m.require("channels"), m.at("channels"));
    if (g.channels.empty()) src_.fail(*m.find("channels"), at(m.at("channels"), "expected at least one channel"));
    plots.push_back(std::move(g));
  }
}

void Loader::readCamera(const YAML::Node& n, CameraSettings& c) {
  MapView m(src_, n, "camera", {"mode", "target", "distance", "azimuth", "elevation"});
  if (const YAML::Node* mode = m.find("mode")) c.mode = readChoice(src_, *mode, m.at("mode"), {"orbit", "follow"});
  if (const YAML::Node* t = m.find("target")) {
    if (t->IsSequence()) {
      c.target_point = readVec3(src_, *t, m.at("target"));
    } else if (t->IsScalar()) {
      c.target_body = readName(src_, *t, m.at("target"));
      camera_target_node_ = *t;
    } else {
      src_.fail(*t, at(m.at("target"), "expected a body name or a point [x, y, z], got " + describe(*t)));
    }
  }
  if (m.has("distance")) c.distance = positive(m, "distance");
  c.azimuth = m.number("azimuth", c.azimuth);
  c.elevation = m.number("elevation", c.elevation);
  if (c.mode == "follow" && c.target_body.empty())
    src_.fail(m.node(), at("camera", "mode 'follow' needs a target body"));
}

// ---- include ----------------------------------------------------------------------------------

void Loader::readInclude(const MapView& top) {
  const YAML::Node* inc = top.find("include");
  if (!inc) return;
  include_node_ = *inc;
  const std::string text = readName(src_, *inc, "include");
  fs::path path(text);
  if (path.is_relative()) path = file_.parent_path() / path;
  if (!isRobotFile(path)) src_.fail(*inc, at("include", "expected a .urdf file, got '" + text + "'"));
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) src_.fail(*inc, at("include", "no such file: " + path.string()));
  bool floating = floating_base_;
  if (const YAML::Node* f = top.find("floating_base")) floating = floating || readBool(src_, *f, "floating_base");
  urdf_ = importUrdf(path, builder_,
                     UrdfOptions{.floating_base = floating,
                                 .resources = resource_search_,
                                 .balance_inertia = balance_inertia_,
                                 .joint_friction = joint_friction_,
                                 .bound_mass = bound_mass_,
                                 .bound_inertia = bound_inertia_,
                                 .link_inertials = link_inertials_,
                                 .unknown_link = [this](const std::string& link, const std::vector<std::string>& links) {
                                   src_.fail(link_inertial_nodes_.at(link),
                                             "no link named '" + link + "' in the URDF" + didYouMean(link, links));
                                 }});
  urdf_path_ = path;
  urdf_robot_name_ = urdf_->robot_name;
}

// ---- ModelError → file position -------------------------------------------------------------

SceneError Loader::mapModelError(const ModelError& error) const {
  const std::string msg = error.what();
  if (error.kind() == ModelElement::Model)
    return src_.error(error.field() == ModelField::Gravity && gravity_node_ ? *gravity_node_ : root_, msg);
  if (auto it = elements_.find({error.kind(), error.index()}); it != elements_.end()) {
    const Element& e = it->second;
    for (const std::string& key : keysOf(error.field()))
      if (auto f = e.fields.find(key); f != e.fields.end()) return src_.error(f->second, msg);
    return src_.error(e.node, msg);
  }
  // Made by joint_actuators: at that key.
  if (error.kind() == ModelElement::Actuator && joint_actuators_node_) return src_.error(*joint_actuators_node_, msg);
  // Not written in the scene: added by the included URDF, whose links are the bodies.
  if (urdf_) {
    const auto& positions = error.kind() == ModelElement::Joint ? urdf_->joint_positions : urdf_->link_positions;
    if (auto p = positions.find(error.name()); p != positions.end() && p->second.line > 0)
      return SceneError(urdf_path_.string(), p->second.line, p->second.column, msg);
    if (include_node_) return src_.error(*include_node_, msg + " (in the included URDF)");
  }
  return src_.error(root_, msg);
}

// ---- initial values of included joints (--set joint.NAME.position/velocity) ------------------

void Loader::applyDeferred(Model& model, const DeferredValue& d, const std::string& path) const {
  const int index = model.jointIndex(d.name);
  if (index < 0) {
    std::vector<std::string> names;
    for (const auto& j : model.joints) names.push_back(j.name);
    src_.fail(d.value, "no joint named '" + d.name + "' in the scene or its URDF" + didYouMean(d.name, names));
  }
  const Joint& j = model.joints[index];
  if (d.field == "velocity") {
    std::vector<double> v = d.value.IsSequence() ? readNumbers(src_, d.value, path, j.nxi)
                                                 : std::vector<double>{readNumber(src_, d.value, path)};
    if (static_cast<int>(v.size()) != j.nxi)
      src_.fail(d.value, at(path, "expected " + std::to_string(j.nxi) + " numbers for joint '" + d.name + "'"));
    for (int k = 0; k < j.nxi; ++k) model.initial_state.xi(j.xi_offset + k) = v[static_cast<std::size_t>(k)];
    return;
  }
  if (!hasScalarPosition(j.type))
    src_.fail(d.value, at(path, "a position override needs a revolute or prismatic joint; '" + d.name + "' is " +
                                    std::string(jointTypeName(j.type))));
  setJointScalarPosition(j, readNumber(src_, d.value, path), model.initial_state.x.data() + j.x_offset);
}

void Loader::readLinkInertials(const std::vector<DeferredValue>& deferred) {
  for (const DeferredValue& d : deferred) {
    if (d.target != DeferredValue::Target::Link) continue;
    const std::string path = "link." + d.name + "." + d.field;
    UrdfLinkInertial& in = link_inertials_[d.name];
    link_inertial_nodes_.emplace(d.name, d.value);
    if (d.field == "mass") {
      const double m = readNumber(src_, d.value, path);
      if (m < 0.0) src_.fail(d.value, at(path, "expected a mass ≥ 0 [kg]"));
      in.mass = m;
    } else if (d.field == "com") {
      const std::vector<double> c = readNumbers(src_, d.value, path, 3);
      in.com = Vec3(c[0], c[1], c[2]);
    } else {
      const std::vector<double> I = readNumbers(src_, d.value, path, 6);
      Vec6 v;
      for (int k = 0; k < 6; ++k) v(k) = I[static_cast<std::size_t>(k)];
      in.inertia = v;
    }
  }
}

// ---- the scene --------------------------------------------------------------------------------

Scene Loader::load(const YAML::Node& root, const std::vector<DeferredValue>& deferred) {
  root_ = root;
  Scene scene;
  scene.file = file_;
  MapView top(src_, root, "", kTopKeys);
  if (urdf_file_)
    scene.name = top.string("name", "");
  else
    scene.name = top.name("name");
  scene.description = top.string("description", "");
  if (const YAML::Node* g = top.find("gravity")) {
    gravity_node_ = *g;
    builder_.setGravity(readVec3(src_, *g, "gravity"));
  }
  if (top.has("floating_base") && !top.has("include"))
    src_.fail(*top.find("floating_base"), "floating_base: applies to an included URDF ('include')");
  if (const YAML::Node* b = top.find("balance_inertia")) balance_inertia_ = balance_inertia_ || readBool(src_, *b, "balance_inertia");
  for (auto [key, bound] : {std::pair<const char*, double*>{"bound_mass", &bound_mass_}, {"bound_inertia", &bound_inertia_}})
    if (const YAML::Node* b = top.find(key)) {
      const double value = readNumber(src_, *b, key);
      if (!(value >= 0.0)) src_.fail(*b, std::string(key) + ": expected a number ≥ 0");
      *bound = std::max(*bound, value);
    }
  if (const YAML::Node* f = top.find("joint_friction")) {
    if (!top.has("include")) src_.fail(*f, "joint_friction: applies to an included URDF ('include')");
    joint_friction_ = joint_friction_ || readBool(src_, *f, "joint_friction");
  }
  readLinkInertials(deferred);
  readInclude(top);
  if (const YAML::Node* n = top.find("initial_positions"); n && !urdf_)
    src_.fail(*n, "initial_positions: applies to the joints of an included URDF ('include')");
  if (scene.name.empty()) scene.name = urdf_robot_name_.empty() ? file_.stem().string() : urdf_robot_name_;

  auto each = [&](const char* key, auto&& read) {
    if (const YAML::Node* n = top.find(key)) {
      std::size_t i = 0;
      for (const auto& e : readList(src_, *n, key)) (this->*read)(e, i++);
    }
  };
  each("bodies", &Loader::readBody);
  if (!bounded_bodies_.empty())
    warn(first_bounded_body_, lowerBoundsWarning(bound_mass_, bound_inertia_, bounded_bodies_));
  each("joints", &Loader::readJoint);
  each("springs", &Loader::readSpring);
  each("dampers", &Loader::readDamper);
  each("joint_springs", &Loader::readJointSpring);
  each("loop_closures", &Loader::readLoopClosure);
  each("external_wrenches", &Loader::readExternalWrench);
  readJointActuators(top);
  each("actuators", &Loader::readActuator);
  each("propellers", &Loader::readPropeller);
  each("input_sets", &Loader::readInputSet);
  if (const YAML::Node* n = top.find("controller")) readController(*n, scene.controller);
  if (const YAML::Node* n = top.find("reference")) readReference(*n, scene.reference);
  if (const YAML::Node* n = top.find("integrator")) readIntegrator(*n, scene.integrator);
  integrator_control_rate_ = scene.integrator.control_rate;
  if (const YAML::Node* n = top.find("perturbation")) readPerturbation(*n, scene.perturbation);
  if (const YAML::Node* n = top.find("plots")) readPlots(*n, scene.plots);
  if (const YAML::Node* n = top.find("camera")) readCamera(*n, scene.camera);

  try {
    scene.model = builder_.build();
  } catch (const ModelError& e) {
    throw mapModelError(e);
  }
  // Derived from a description that built: an error here is not the file's (loadScene reports it).
  if (!scene.model.propellers.empty()) {
    const ActuationSettings& actuation = scene.controller.actuation;
    if (actuation.sector_chords == 0) {
      scene.force_model = std::make_shared<const Model>(builder_.rotorsAsThrusters().build());
    } else {
      ModelBuilder vectors;
      try {  // the thrust vectors' checks name the file's propellers
        vectors = builder_.rotorsAsThrustVectors(actuation.sector_chords);
      } catch (const ModelError& e) {
        throw mapModelError(e);
      }
      try {  // the derived elements are not the file's (a name clash with a generated input, say)
        scene.force_model = std::make_shared<const Model>(vectors.build());
      } catch (const ModelError& e) {
        throw SceneError(file_.string(), actuation.line, actuation.column,
                         std::string("controller.actuation.thrust: vector: the force model does not build: ") + e.what());
      }
      const Model& force = *scene.force_model;
      if (std::none_of(scene.model.propellers.begin(), scene.model.propellers.end(),
                       [&](const Propeller& p) { return force.actuatorIndex(axialThrustInputName(p.name)) >= 0; }))
        throw SceneError(file_.string(), actuation.line, actuation.column,
                         "controller.actuation.thrust: vector, but no propeller hangs from an arm tilted by a servo "
                         "(a revolute joint with a `servo` actuator)");
    }
  }
  Model& model = scene.model;
  for (const auto& p : patches_) {
    const Joint& j = model.joints[model.jointIndex(p.joint)];
    for (std::size_t k = 0; k < p.x.size(); ++k) model.initial_state.x(j.x_offset + static_cast<int>(k)) = p.x[k];
  }
  // initial_positions: {JOINT: q} for the included URDF's joints (the file's own have `initial`),
  // then --set (which wins).
  if (const YAML::Node* n = top.find("initial_positions")) {
    if (!n->IsMap()) src_.fail(*n, "initial_positions: expected a map JOINT: position, e.g. {joint2: 0.5}");
    for (const auto& kv : *n) {
      if (!kv.first.IsScalar()) src_.fail(kv.first, "initial_positions: expected a joint name as the key");
      const std::string joint = kv.first.Scalar();
      if (named_.count({ModelElement::Joint, joint}))
        src_.fail(kv.first, "initial_positions." + joint + ": '" + joint +
                                "' is a joint of this file; give its position in its own 'initial'");
      applyDeferred(model, DeferredValue{DeferredValue::Target::Joint, "", joint, "position", kv.second},
                    "initial_positions." + joint);
    }
  }
  for (const auto& d : deferred)
    if (d.target == DeferredValue::Target::Joint) applyDeferred(model, d, "joint." + d.name + ".initial." + d.field);
  satisfyJointCouplings(model, model.initial_state);  // mimic followers move with their (--set) leaders
  // Bodies may have semidefinite inertia; every joint direction must still move some (once, at
  // the initial state, located at the joint).
  try {
    checkMassMatrix(model);
  } catch (const ModelError& e) {
    throw mapModelError(ModelError(e.kind(), builder_.jointDeclarationIndex(e.name()), e.name(), e.field(), e.what()));
  }
  if (!stepper_named_) chooseDefaultStepper(model, scene.integrator);
  if (const YAML::Node* n = top.find("pushes")) readPushes(*n, model);
  if (const YAML::Node* n = top.find("mouse")) readMouseCaps(*n, model.mouse_caps);
  if (camera_target_node_ && model.bodyIndex(scene.camera.target_body) < 0) {
    std::vector<std::string> names;
    for (const auto& b : model.bodies) names.push_back(b.name);
    src_.fail(*camera_target_node_, "camera.target: no body named '" + scene.camera.target_body + "'" +
                                        didYouMean(scene.camera.target_body, names));
  }
  scene.warnings = warnings_;
  if (urdf_) scene.warnings.insert(scene.warnings.end(), urdf_->warnings.begin(), urdf_->warnings.end());
  return scene;
}

// pushes: [{body, point, force, torque, t_start, duration}], on the built model: `body` may also
// be a named frame (a merged URDF link), whose pose then places `point`.
void Loader::readPushes(const YAML::Node& n, Model& model) {
  std::size_t i = 0;
  for (const auto& e : readList(src_, n, "pushes")) {
    const std::string path = indexPath("pushes", i++);
    MapView m(src_, e, path, {"body", "point", "force", "torque", "t_start", "duration"});
    Push push;
    const std::string name = m.name("body");
    const Vec3 point = m.vec3("point", Vec3::Zero());
    push.body = model.bodyIndex(name);
    push.point = point;
    if (push.body < 0) {
      const auto frame = std::find_if(model.frames.begin(), model.frames.end(), [&](const NamedFrame& f) { return f.name == name; });
      if (frame == model.frames.end()) {
        std::vector<std::string> names;
        for (const Body& b : model.bodies) names.push_back(b.name);
        for (const NamedFrame& f : model.frames) names.push_back(f.name);
        src_.fail(m.require("body"), at(m.at("body"), "no body or link named '" + name + "'" + didYouMean(name, names)));
      }
      push.body = frame->frame.body;
      push.point = frame->frame.offset.R * point + frame->frame.offset.r;
    }
    push.force = m.vec3("force", Vec3::Zero());
    push.torque = m.vec3("torque", Vec3::Zero());
    push.t_start = m.number("t_start");
    if (push.t_start < 0.0)
      src_.fail(m.require("t_start"), at(m.at("t_start"), "expected a time ≥ 0 [s], got " + str(push.t_start)));
    push.duration = positive(m, "duration");
    if (push.force.isZero() && push.torque.isZero())
      warn(e, path + ": neither a force nor a torque is given; the push does nothing");
    model.pushes.push_back(push);
  }
}

// mouse: {pull, twist}: caps on the GUI's mouse pushes (MouseCaps), each optional and > 0.
void Loader::readMouseCaps(const YAML::Node& n, MouseCaps& caps) {
  MapView m(src_, n, "mouse", {"pull", "twist"});
  if (m.has("pull")) caps.pull = positive(m, "pull");
  if (m.has("twist")) caps.twist = positive(m, "twist");
}

Scene loadYaml(const fs::path& file, const LoadOptions& options) {
  const std::string label = file.string();
  const std::string text = readTextFile(file, "scene");
  checkText(label, text);
  Source src(label);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    throw src.errorAtMark(e.mark, "lists and maps are nested more than " + std::to_string(kMaxNesting) +
                                      " levels deep; expected a flatter document");
  } catch (const YAML::Exception& e) {
    throw src.errorAtMark(e.mark, "YAML syntax error: " + e.msg);
  }
  if (docs.empty() || (docs.size() == 1 && docs[0].IsNull()))
    throw SceneError(label, 0, 0, "the file is empty; expected a scene (a map with at least 'name' and 'bodies')");
  if (docs.size() > 1)
    src.fail(docs[1], "the file holds " + std::to_string(docs.size()) + " YAML documents; expected one scene");
  YAML::Node root = docs[0];
  checkTree(src, root);
  if (!root.IsMap())
    src.fail(root, "expected a scene: a map of sections (name, bodies, joints, …) at the top level, got " + describe(root));
  const auto deferred = applyOverrides(src, root, options.overrides);
  Loader loader(src, file, options, false);
  return loader.load(root, deferred);
}

Scene loadUrdfFile(const fs::path& file, const LoadOptions& options) {
  Source src(file.string());
  src.setSynthetic(true);
  YAML::Node root(YAML::NodeType::Map);
  root["include"] = fs::absolute(file).string();
  const auto deferred = applyOverrides(src, root, options.overrides);
  Loader loader(src, file, options, true);
  return loader.load(root, deferred);
}

}  // namespace

bool isRobotFile(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".urdf";
}

Scene loadScene(const fs::path& file, const LoadOptions& options) {
  const std::string label = file.string();
  try {
    if (isRobotFile(file)) return loadUrdfFile(file, options);
    return loadYaml(file, options);
  } catch (const SceneError&) {
    throw;
  } catch (const YAML::Exception& e) {
    const bool has_mark = !e.mark.is_null() && e.mark.line >= 0;
    throw SceneError(label, has_mark ? e.mark.line + 1 : 0, has_mark ? e.mark.column + 1 : 0, "YAML: " + e.msg);
  } catch (const ModelError& e) {
    throw SceneError(label, 0, 0, e.what());
  } catch (const std::bad_alloc&) {
    throw SceneError(label, 0, 0, "out of memory while loading the scene");
  } catch (const std::exception& e) {
    throw SceneError(label, 0, 0, std::string("cannot load the scene: ") + e.what());
  }
}

}  // namespace rbs

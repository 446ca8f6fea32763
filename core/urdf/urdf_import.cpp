// URDF import through urdfdom (see urdf_import.h for the mapping). urdfdom reports neither line
// numbers nor XML syntax errors in a usable form, so the text is first parsed with TinyXML (the
// parser urdfdom itself uses): syntax errors get their line and column, and semantic errors are
// located at the <link>/<joint> element they concern.
#include "core/urdf/urdf_import.h"

#include <Eigen/Eigenvalues>
#include <console_bridge/console.h>
#include <tinyxml.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/io/resource_path.h"
#include "core/io/scene_error.h"

namespace rbs {
namespace {

constexpr std::uintmax_t kMaxUrdfBytes = 16u << 20;  // as for scene files
constexpr int kMaxXmlDepth = 256;
/// Regularization velocity v_s of joint friction μ tanh(q̇ / v_s) [rad/s or m/s]: the force reaches
/// 76 % of μ at v_s, 99.5 % at 3 v_s. Small against joint speeds of interest (≳ 0.1 rad/s); the
/// stiffness it adds, μ / v_s, costs adaptive steppers steps near rest (docs/BENCHMARKS.md).
constexpr double kFrictionVelocity = 0.01;

/// Collects urdfdom's console_bridge error messages while installed (instead of printing them),
/// so that our SceneError can quote them. console_bridge's handler is global: a mutex serializes
/// the imports.
class ConsoleCapture : public console_bridge::OutputHandler {
 public:
  ConsoleCapture() { console_bridge::useOutputHandler(this); }
  ~ConsoleCapture() override { console_bridge::restorePreviousOutputHandler(); }
  ConsoleCapture(const ConsoleCapture&) = delete;
  ConsoleCapture& operator=(const ConsoleCapture&) = delete;

  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

std::mutex& consoleMutex() {
  static std::mutex m;
  return m;
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(6);
  os << v;
  return os.str();
}

Pose toPose(const urdf::Pose& p) {
  const urdf::Rotation& q = p.rotation;
  Pose out;
  out.R = Eigen::Quaterniond(q.w, q.x, q.y, q.z).normalized().toRotationMatrix();
  out.r = Vec3(p.position.x, p.position.y, p.position.z);
  return out;
}

Vec3 toVec3(const urdf::Vector3& v) {
  return Vec3(v.x, v.y, v.z);
}

/// Rotation whose third column is the unit vector n (any completion of the frame).
Mat3 frameWithZAlong(const Vec3& n) {
  const Vec3 helper = std::abs(n.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  const Vec3 x = (helper - helper.dot(n) * n).normalized();
  Mat3 R;
  R.col(0) = x;
  R.col(1) = n.cross(x);
  R.col(2) = n;
  return R;
}

class Importer {
 public:
  Importer(std::filesystem::path file, ModelBuilder& builder, const UrdfOptions& options)
      : path_(std::move(file)), file_(path_.string()), builder_(builder), options_(options),
        resources_(options.resources) {}

  UrdfSummary run() {
    const std::string text = readFile();
    checkNesting(text);
    parseXml(text);
    const urdf::ModelInterfaceSharedPtr model = parseUrdf(text);
    model_ = model.get();
    replaceInertials(*model);

    const urdf::LinkConstSharedPtr root = model->getRoot();
    if (!root) fail(0, 0, "URDF has no root link");
    UrdfSummary summary;
    summary.robot_name = model->getName();
    summary.root_link = root->name;

    const std::vector<Member> root_group = fixedGroup(*root);
    if (hasMass(*root)) {
      // A root fixed to the world never moves: its inertia (and that of the links fixed to it)
      // never enters the equations of motion and is not validated.
      const Inertia fixed_or_free = options_.floating_base ? Inertia::Validate : Inertia::Ignore;
      addGroupBody(root->name, root_group, fixed_or_free);
      JointSpec j;
      j.name = root->name + "_to_world";
      j.type = options_.floating_base ? JointType::Free : JointType::Fixed;
      j.parent = kWorld;
      j.child = root->name;
      builder_.addJoint(std::move(j));
      summary.root_body = root->name;
      joint_positions_[root->name + "_to_world"] = position("link", root->name);
      addGroupContents(root_group, root->name);
    } else if (options_.floating_base) {
      addFloatingMasslessRoot(*root, root_group);
      summary.root_body = floating_body_;
    } else {
      // A massless root is the world: what is fixed to it hangs from the world at its composed pose.
      const int before = static_cast<int>(world_children_.size());
      addWorldChildren(*root, Pose::identity());
      if (static_cast<int>(world_children_.size()) - before == 1) summary.root_body = world_children_.back();
    }
    addMimicCouplings();
    for (const auto& [name, link] : model->links_) summary.link_positions[name] = position("link", name);
    summary.joint_positions = std::move(joint_positions_);
    summary.merged_links = std::move(merged_links_);
    summary.scalar_joints = std::move(scalar_joints_);
    if (!friction_joints_.empty()) warnAboutFriction();
    if (!bounded_bodies_.empty()) warnAboutBounds();
    if (!collision_drawn_bodies_.empty())
      warnAboutUndrawnBodies(collision_drawn_bodies_, "the <collision> geometry of its links, as peers do");
    if (!undrawn_bodies_.empty())
      warnAboutUndrawnBodies(undrawn_bodies_, "the translucent box of its mass and principal moments");
    summary.warnings = std::move(warnings_);
    return summary;
  }

 private:
  UrdfSummary::Position position(const std::string& kind, const std::string& name) const {
    const auto [line, column] = locate(kind, name);
    return {line, column};
  }
  [[noreturn]] void fail(int line, int column, const std::string& message) const {
    throw SceneError(file_, line, column, message);
  }
  /// Fails at the element <kind name="name"> (line/column if TinyXML found it).
  /// Line and column of the element <kind name="name"> (0, 0 if not found).
  std::pair<int, int> locate(const std::string& kind, const std::string& name) const {
    if (const TiXmlElement* robot = xml_.FirstChildElement("robot")) {
      for (const TiXmlElement* e = robot->FirstChildElement(kind.c_str()); e;
           e = e->NextSiblingElement(kind.c_str())) {
        const char* n = e->Attribute("name");
        if (n && name == n) return {e->Row(), e->Column()};
      }
    }
    return {0, 0};
  }
  /// Records a warning at the element <kind name="name">: "kind 'name': message".
  void warnAt(const std::string& kind, const std::string& name, const std::string& message) {
    const auto [line, column] = locate(kind, name);
    warnings_.push_back(SceneWarning{file_, line, column, kind + " '" + name + "': " + message});
  }
  /// UrdfOptions::bound_mass and bound_inertia on a moving body (applyLowerBounds).
  void applyBounds(BodySpec& b) {
    if (applyLowerBounds(b, options_.bound_mass, options_.bound_inertia)) bounded_bodies_.push_back(b.name);
  }

  /// What a body without any <visual> or <collision> is drawn as (peers draw its collision
  /// geometry or, lacking that, its inertia: addVisuals): the uniform box with its mass and
  /// principal moments, translucent, at its
  /// centre of mass along its principal axes. Sides² = 6 (I_j + I_k − I_i) / m, at least 1 cm.
  static VisualSpec inertiaBox(const BodySpec& b) {
    const Eigen::SelfAdjointEigenSolver<Mat3> eigen(0.5 * (b.inertia + b.inertia.transpose()));
    const Vec3& I = eigen.eigenvalues();
    Mat3 axes = eigen.eigenvectors();
    if (axes.determinant() < 0.0) axes.col(2) = -axes.col(2);
    VisualSpec box;
    box.body = b.name;
    box.shape = Visual::Shape::Box;
    constexpr double kLeastSide = 0.01;  // [m] a point mass is still seen
    for (int i = 0; i < 3; ++i)
      box.size(i) = std::sqrt(std::max(6.0 * (I.sum() - 2.0 * I(i)) / b.mass, kLeastSide * kLeastSide));
    box.origin = Pose{axes, b.com};
    box.color = Vec4(0.55, 0.6, 0.7, 0.35);
    return box;
  }

  /// One warning for the file, at the first body of `bodies` (those without any <visual>), naming
  /// up to five and saying what they are drawn as.
  void warnAboutUndrawnBodies(const std::vector<std::string>& bodies, const std::string& drawn_as) {
    const std::size_t n = bodies.size();
    const auto [line, column] = locate("link", bodies.front());
    warnings_.push_back(SceneWarning{file_, line, column,
                                     std::to_string(n) + (n == 1 ? " body has" : " bodies have") + " no <visual>: " +
                                         quotedNames(bodies) + "; " + (n == 1 ? "" : "each ") + "drawn as " +
                                         drawn_as});
  }

  /// One warning for the file, at the first body the bounds raised, naming up to five of them.
  void warnAboutBounds() {
    const auto [line, column] = locate("link", bounded_bodies_.front());
    warnings_.push_back(SceneWarning{file_, line, column,
                                     lowerBoundsWarning(options_.bound_mass, options_.bound_inertia, bounded_bodies_)});
  }

  /// One warning for the file, at its first joint with friction, naming up to five of them.
  void warnAboutFriction() {
    const std::size_t n = friction_joints_.size();
    const std::string names = quotedNames(friction_joints_);
    const auto [line, column] = locate("joint", friction_joints_.front());
    const std::string why = options_.joint_friction
                                ? "is modelled on revolute, continuous and prismatic joints only; ignored on "
                                : "is off (--joint-friction or joint_friction: true models it as smooth Coulomb "
                                  "friction); ignored on ";
    warnings_.push_back(SceneWarning{file_, line, column,
                                     "joint friction (<dynamics friction>) " + why + std::to_string(n) +
                                         (n == 1 ? " joint: " : " joints: ") + names});
  }
  /// Fails at the element <kind name="name">: "kind 'name': message".
  [[noreturn]] void failAt(const std::string& kind, const std::string& name,
                           const std::string& message) const {
    const auto [line, column] = locate(kind, name);
    // A link whose <inertial> was replaced: the values at fault are the caller's, not the file's.
    const bool replaced = kind == "link" && options_.link_inertials.count(name);
    fail(line, column, kind + " '" + name + "': " + message +
                           (replaced ? " (its <inertial> as set by --set link." + name + ".*)" : ""));
  }

  std::string readFile() const {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) fail(0, 0, "URDF file not found");
    if (std::filesystem::is_directory(path_, ec))
      fail(0, 0, "is a directory, expected a URDF file");
    std::ifstream in(path_, std::ios::binary);
    if (!in) fail(0, 0, "cannot open the URDF file for reading");
    const auto size = std::filesystem::file_size(path_, ec);
    if (!ec && size > kMaxUrdfBytes)
      fail(0, 0, "file is " + std::to_string(size) + " bytes; URDF files over 16 MiB are not read");
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) fail(0, 0, "error while reading the URDF file");
    return ss.str();
  }

  /// TinyXML parses recursively: a document nested thousands of levels deep would overflow the
  /// stack. Real URDFs nest about five levels; reject more than kMaxXmlDepth before parsing.
  void checkNesting(const std::string& text) const {
    int depth = 0, line = 1;
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
      if (text[i] == '\n') ++line;
      if (text[i] != '<') continue;
      const char next = text[i + 1];
      if (next == '?' || next == '!') continue;  // declarations, comments, CDATA
      if (next == '/') {
        --depth;
        continue;
      }
      const std::size_t close = text.find('>', i);
      if (close == std::string::npos) return;  // malformed: the parser reports it
      if (text[close - 1] != '/' && ++depth > kMaxXmlDepth)
        fail(line, 0, "elements nested more than " + std::to_string(kMaxXmlDepth) + " levels deep; expected a URDF file");
    }
  }

  void parseXml(const std::string& text) {
    xml_.SetTabSize(1);  // column = character index (1-based); also enables row tracking
    xml_.Parse(text.c_str(), nullptr, TIXML_ENCODING_UTF8);
    if (xml_.Error()) {
      std::string desc = xml_.ErrorDesc();
      while (!desc.empty() && (desc.back() == '.' || desc.back() == ' ')) desc.pop_back();
      fail(xml_.ErrorRow(), xml_.ErrorCol(),
           "malformed XML (" + desc + "); expected a well-formed URDF file");
    }
    if (!xml_.FirstChildElement("robot"))
      fail(0, 0, "not a URDF file: the root element must be <robot>");
  }

  /// UrdfOptions::link_inertials, before anything reads the links.
  void replaceInertials(urdf::ModelInterface& model) const {
    for (const auto& [name, values] : options_.link_inertials) {
      const auto it = model.links_.find(name);
      if (it == model.links_.end()) {
        std::vector<std::string> links;
        for (const auto& l : model.links_) links.push_back(l.first);
        if (options_.unknown_link) options_.unknown_link(name, links);
        fail(0, 0, "no link named '" + name + "'");
      }
      urdf::Link& link = *it->second;
      if (!link.inertial) {
        link.inertial = std::make_shared<urdf::Inertial>();
        link.inertial->clear();
      }
      urdf::Inertial& in = *link.inertial;
      if (values.mass) in.mass = *values.mass;
      if (values.com) in.origin.position = urdf::Vector3(values.com->x(), values.com->y(), values.com->z());
      if (const auto& I = values.inertia) {
        in.ixx = (*I)(0), in.iyy = (*I)(1), in.izz = (*I)(2);
        in.ixy = (*I)(3), in.ixz = (*I)(4), in.iyz = (*I)(5);
      }
    }
  }

  urdf::ModelInterfaceSharedPtr parseUrdf(const std::string& text) const {
    const std::lock_guard<std::mutex> lock(consoleMutex());
    ConsoleCapture capture;
    urdf::ModelInterfaceSharedPtr model;
    std::string exception_text;
    try {
      model = urdf::parseURDF(text);
    } catch (const std::exception& e) {
      exception_text = e.what();
    }
    if (model) return model;
    std::string reason = exception_text;
    for (const std::string& e : capture.errors) reason += (reason.empty() ? "" : "; ") + e;
    if (reason.empty()) reason = "urdfdom gave no reason";
    // urdfdom names the element as "Joint [name]" / "Link [name]": locate it in the file.
    static const std::regex element(R"((Joint|Link|link|joint) \[([^\]]*)\])");
    std::smatch match;
    if (std::regex_search(reason, match, element)) {
      std::string kind = match[1].str();
      kind[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(kind[0])));
      const auto [line, column] = locate(kind, match[2].str());
      fail(line, column, "invalid URDF: " + reason);
    }
    fail(0, 0, "invalid URDF: " + reason);
  }

  /// Whether the link has mass; a negative or non-finite mass is an error (not "massless").
  bool hasMass(const urdf::Link& link) const {
    if (!link.inertial) return false;
    const double m = link.inertial->mass;
    if (!std::isfinite(m) || m < 0.0) failAt("link", link.name, "mass is " + fmt(m) + " kg; expected a finite value ≥ 0");
    return m > 0.0;
  }

  /// Whether the link or anything below it (through fixed and moving joints) has mass.
  bool carriesMass(const urdf::Link& link) const {
    if (hasMass(link)) return true;
    return std::any_of(link.child_joints.begin(), link.child_joints.end(),
                       [&](const urdf::JointSharedPtr& j) { return carriesMass(childLink(*j)); });
  }

  /// The child link of joint j (an error at the joint if the file names none that exists).
  const urdf::Link& childLink(const urdf::Joint& j) const {
    const urdf::LinkConstSharedPtr child = model_->getLink(j.child_link_name);
    if (!child) failAt("joint", j.name, "child link '" + j.child_link_name + "' does not exist");
    return *child;
  }
  /// The joint frame of j where its parent link is at `parent_link_pose`: parent pose · origin.
  Pose jointPlacement(const urdf::Joint& j, const Pose& parent_link_pose) const {
    const Pose placement = parent_link_pose * toPose(j.parent_to_joint_origin_transform);
    if (!placement.r.allFinite() || !placement.R.allFinite())
      failAt("joint", j.name, "origin contains NaN or infinite values");
    return placement;
  }

  /// A link and the links fixed to it, recursively (breadth first, in file order): one rigid body.
  /// `pose`: the link frame in the frame of the group's first link.
  struct Member {
    const urdf::Link* link;
    Pose pose;
  };
  std::vector<Member> fixedGroup(const urdf::Link& top) const {
    std::vector<Member> group{{&top, Pose::identity()}};
    for (std::size_t i = 0; i < group.size(); ++i) {
      for (const urdf::JointSharedPtr& j : group[i].link->child_joints) {
        if (j->type != urdf::Joint::FIXED) continue;
        group.push_back({&childLink(*j), jointPlacement(*j, group[i].pose)});
      }
    }
    return group;
  }

  /// Validate: a moving body's links need finite, positive semidefinite inertia (a triangle
  /// inequality violation is a warning). Ignore: a body fixed to the world, whose inertia never
  /// enters the dynamics; an unusable tensor counts as zero.
  enum class Inertia { Validate, Ignore };

  /// The link's <inertial> in its link frame: mass, CoM, inertia about the CoM in link axes
  /// (URDF gives it in the inertial frame, rotated by the inertial origin: R I Rᵀ).
  BodySpec linkMass(const urdf::Link& link, Inertia check) {
    BodySpec b;
    if (!hasMass(link)) return b;
    const urdf::Inertial& in = *link.inertial;
    const Pose inertial = toPose(in.origin);
    Mat3 I;
    I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    if (!inertial.r.allFinite()) failAt("link", link.name, "<inertial> origin contains NaN or infinite values");
    b.mass = in.mass;
    b.com = inertial.r;
    if (check == Inertia::Ignore) {
      if (!I.allFinite() || !inertiaProblem(I, in.mass).empty()) I.setZero();
    } else {
      if (!I.allFinite()) failAt("link", link.name, "<inertial> contains NaN or infinite values");
      // The builder's physical-validity check, here so that the error is located in the file.
      if (const std::string problem = inertiaProblem(I, in.mass); !problem.empty()) failAt("link", link.name, problem);
      // Moments that are all rounding noise (a point mass written with ±1e-20 entries) are a point
      // mass: zero, without a triangle-inequality warning about the noise.
      if (I.cwiseAbs().maxCoeff() <= kInertiaRounding * in.mass * kRoundingLength * kRoundingLength) I.setZero();
      I = checkTriangleInequality(I, link.name);
    }
    b.inertia = inertial.R * I * inertial.R.transpose();
    b.inertia = 0.5 * (b.inertia + b.inertia.transpose());
    return b;
  }

  /// A warning for an inertia whose principal moments violate I₁ + I₂ ≥ I₃ (CAD exports do, by a
  /// little); with `balance_inertia` the tensor is replaced as MuJoCo's balanceinertia does.
  Mat3 checkTriangleInequality(const Mat3& I, const std::string& link) {
    std::string warning;
    const Mat3 used = applyTriangleInequalityPolicy(I, options_.balance_inertia, "--balance-inertia", warning);
    if (!warning.empty()) warnAt("link", link, warning);
    return used;
  }

  /// The group's mass properties in the frame of its first link: masses added, CoM their weighted
  /// mean, inertias rotated into that frame and moved to the common CoM (parallel axes).
  BodySpec composeGroup(const std::string& name, const std::vector<Member>& group, Inertia check) {
    BodySpec b;
    b.name = name;
    std::vector<BodySpec> parts;
    for (const Member& m : group) {
      BodySpec part = linkMass(*m.link, check);
      if (part.mass == 0.0) continue;
      part.com = m.pose * part.com;
      part.inertia = m.pose.R * part.inertia * m.pose.R.transpose();
      b.mass += part.mass;
      b.com += part.mass * part.com;
      parts.push_back(std::move(part));
    }
    if (b.mass == 0.0) return b;
    if (parts.size() == 1) {  // one link with mass: its own properties, not a rounded recomposition
      b.com = parts.front().com;
      b.inertia = parts.front().inertia;
      return b;
    }
    b.com /= b.mass;
    for (const BodySpec& part : parts) {
      const Vec3 d = part.com - b.com;
      b.inertia += part.inertia + part.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
    }
    b.inertia = 0.5 * (b.inertia + b.inertia.transpose());
    return b;
  }

  /// Adds the group as the body `name` (its frame the first member's) and records the merged links.
  void addGroupBody(const std::string& name, const std::vector<Member>& group, Inertia check) {
    if (name == kWorld)
      failAt("link", name, "has mass, but the name 'world' is reserved for the inertial frame");
    if (builder_.hasBody(name)) failAt("link", name, "a body of this name already exists in the scene");
    BodySpec b = composeGroup(name, group, check);
    if (check == Inertia::Validate) applyBounds(b);
    const auto any = [&](auto elements) {
      return std::any_of(group.begin(), group.end(), [&](const Member& m) { return !elements(*m.link).empty(); });
    };
    const bool drawn = any(visuals), collides = any(collisions);
    if (!drawn && collides) {
      collision_drawn_bodies_.push_back(name);
    } else if (!drawn && b.mass > 0.0 && inertiaProblem(b.inertia, b.mass).empty()) {
      builder_.addVisual(inertiaBox(b));
      undrawn_bodies_.push_back(name);
    }
    builder_.addBody(std::move(b));
    // the merged links keep their frames (recorded as frame.LINK.* channels)
    for (const Member& m : group) {
      if (m.link->name == name) continue;
      merged_links_[m.link->name] = name;
      builder_.addFrame(m.link->name, FrameSpec{name, m.pose});
    }
  }

  /// The visuals of every member and the subtrees on the members' moving joints, in body `body`
  /// (or the world); member poses are in the body frame.
  void addGroupContents(const std::vector<Member>& group, const std::string& body) {
    for (const Member& m : group) addVisuals(*m.link, body, m.pose);
    for (const Member& m : group)
      for (const urdf::JointSharedPtr& j : m.link->child_joints)
        if (j->type != urdf::Joint::FIXED) addMovingChild(*j, body, m.pose);
  }

  /// The child of a moving joint and what is fixed to it become one body on that joint.
  void addMovingChild(const urdf::Joint& j, const std::string& parent, const Pose& parent_link_pose) {
    const urdf::Link* child = &childLink(j);
    const Pose placement = jointPlacement(j, parent_link_pose);
    const std::vector<Member> group = fixedGroup(*child);
    // A massless link that carries nothing with mass and moves on its own is refused here, with
    // the way forward; one that carries mass (the cross of a universal joint) or that moves with a
    // leader (a mimic follower) may be well posed, which the mass matrix check at load decides.
    const bool follows = j.mimic && model_->getJoint(j.mimic->joint_name);
    if (options_.bound_mass <= 0.0 && !follows && !carriesMass(*child))
      failAt("link", child->name,
             "has no mass (no <inertial> or mass 0), nor has any link it carries, but it moves on its own on the "
             "joint '" + j.name + "' (no <mimic> of another joint); give it or a link it carries a mass, or "
             "bound every "
             "moving body's mass and inertia from below (--bound-mass and --bound-inertia, scene keys bound_mass and "
             "bound_inertia; e.g. 0.001 kg and 1e-5 kg m²)");
    addGroupBody(child->name, group, Inertia::Validate);
    addJoint(j, parent, placement);
    if (parent == kWorld) world_children_.push_back(child->name);
    addGroupContents(group, child->name);
  }

  /// Fixed base, massless root (the world): links fixed to it without mass are folded into the
  /// world; one with mass starts a body fixed to the world (by its URDF joint); moving joints hang
  /// from the world.
  void addWorldChildren(const urdf::Link& link, const Pose& pose) {
    for (const urdf::JointSharedPtr& jp : link.child_joints) {
      const urdf::Joint& j = *jp;
      if (j.type != urdf::Joint::FIXED) {
        addMovingChild(j, kWorld, pose);
        continue;
      }
      const urdf::Link* child = &childLink(j);
      const Pose placement = jointPlacement(j, pose);
      if (!hasMass(*child)) {
        addWorldChildren(*child, placement);  // its visuals go with the world: not drawn
        continue;
      }
      const std::vector<Member> group = fixedGroup(*child);
      addGroupBody(child->name, group, Inertia::Ignore);  // fixed to the world
      addJoint(j, kWorld, placement);
      world_children_.push_back(child->name);
      addGroupContents(group, child->name);
    }
  }

  /// Floating base, massless root (a "base" or "world" frame link): the root's fixed group floats
  /// as one body, named after its first link with mass, whose frame it takes; everything else of
  /// the group (the root's visuals too) is placed relative to it.
  void addFloatingMasslessRoot(const urdf::Link& root, std::vector<Member> group) {
    const auto anchor = std::find_if(group.begin(), group.end(), [&](const Member& m) { return hasMass(*m.link); });
    if (anchor == group.end())
      failAt("link", root.name,
             "is massless and so is every link fixed to it; a floating base needs mass at the root: give the root "
             "link or a link fixed to it an <inertial> with mass");
    const Pose anchor_pose = anchor->pose;
    const std::string name = anchor->link->name;
    for (Member& m : group) m.pose = anchor_pose.inverse() * m.pose;
    std::rotate(group.begin(), group.begin() + (anchor - group.begin()), anchor + 1);  // the anchor first
    addGroupBody(name, group, Inertia::Validate);
    JointSpec s;
    s.name = name + "_to_world";
    s.type = JointType::Free;
    s.parent = kWorld;
    s.child = name;
    s.parent_placement = anchor_pose;
    builder_.addJoint(std::move(s));
    joint_positions_[name + "_to_world"] = position("link", name);
    floating_body_ = name;
    addGroupContents(group, name);
  }

  static std::vector<urdf::VisualSharedPtr> visuals(const urdf::Link& link) {
    std::vector<urdf::VisualSharedPtr> all = link.visual_array;
    if (all.empty() && link.visual) all.push_back(link.visual);
    return all;
  }

  static std::vector<urdf::CollisionSharedPtr> collisions(const urdf::Link& link) {
    std::vector<urdf::CollisionSharedPtr> all = link.collision_array;
    if (all.empty() && link.collision) all.push_back(link.collision);
    return all;
  }

  /// What the link draws in body `body` (member pose `offset`): its <visual> elements or, for a
  /// body none of whose links has one, its <collision> elements in the default colour.
  void addVisuals(const urdf::Link& link, const std::string& body, const Pose& offset) {
    if (body == kWorld) return;  // the world has no visuals in rbs models
    const bool from_collisions = std::find(collision_drawn_bodies_.begin(), collision_drawn_bodies_.end(), body) !=
                                 collision_drawn_bodies_.end();
    if (from_collisions) {
      for (const urdf::CollisionSharedPtr& c : collisions(link))
        if (c && c->geometry) addShape(link, body, offset * toPose(c->origin), *c->geometry, nullptr, "collision");
      return;
    }
    for (const urdf::VisualSharedPtr& v : visuals(link))
      if (v && v->geometry) addShape(link, body, offset * toPose(v->origin), *v->geometry, material(*v), "visual");
  }

  /// One <visual> or <collision> geometry of `link` as a visual of `body` at `origin` (body frame).
  void addShape(const urdf::Link& link, const std::string& body, const Pose& origin, const urdf::Geometry& geometry,
                const urdf::Material* mat, const std::string& role) {
    VisualSpec s;
    s.body = body;
    s.origin = origin;
    switch (geometry.type) {
      case urdf::Geometry::BOX: {
        const auto& g = static_cast<const urdf::Box&>(geometry);
        s.shape = Visual::Shape::Box;
        s.size = toVec3(g.dim);
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& g = static_cast<const urdf::Cylinder&>(geometry);
        s.shape = Visual::Shape::Cylinder;  // axis z in URDF and in rbs
        s.size = Vec3(g.radius, g.length, 0.0);
        break;
      }
      case urdf::Geometry::SPHERE: {
        const auto& g = static_cast<const urdf::Sphere&>(geometry);
        s.shape = Visual::Shape::Sphere;
        s.size = Vec3(g.radius, 0.0, 0.0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& g = static_cast<const urdf::Mesh&>(geometry);
        s.shape = Visual::Shape::Mesh;
        s.size = toVec3(g.scale);
        if (g.filename.empty()) failAt("link", link.name, role + " mesh without a filename");
        s.mesh_file = g.filename;
        break;
      }
    }
    // A mesh's negative scale mirrors it (CAD exports of symmetric parts: Talos' and TIAGo's
    // left/right links); a primitive's size is a length.
    if (!s.size.allFinite() || (s.shape != Visual::Shape::Mesh && (s.size.array() < 0.0).any()))
      failAt("link", link.name, role + " geometry sizes must be finite and ≥ 0");
    if (mat) {
      s.color = Vec4(mat->color.r, mat->color.g, mat->color.b, mat->color.a);
      s.color = s.color.cwiseMax(0.0).cwiseMin(1.0);
    }
    if (s.shape == Visual::Shape::Mesh) s = resolveMesh(std::move(s), link.name);
    builder_.addVisual(std::move(s));
  }

  /// The mesh file found (package://, file:// or relative to this URDF: core/io/resource_path.h),
  /// or a magenta box (missingMeshBox) with one warning per file that cannot be drawn.
  VisualSpec resolveMesh(VisualSpec s, const std::string& link) {
    const std::string uri = s.mesh_file;
    ResourceResolver::Mesh mesh = resources_.resolveMesh(uri, path_);
    if (mesh.problem.empty()) {
      s.mesh_file = mesh.file.string();
      return s;
    }
    if (reported_meshes_.insert(uri).second)
      warnAt("link", link, "mesh '" + uri + "' " + mesh.problem + "; drawn as a magenta box");
    return missingMeshBox(std::move(s));
  }

  /// The visual's material: the robot's named material, else the inline one.
  const urdf::Material* material(const urdf::Visual& v) const {
    if (!v.material_name.empty()) {
      if (const urdf::MaterialSharedPtr m = model_->getMaterial(v.material_name)) return m.get();
    }
    return v.material.get();
  }

  void addJoint(const urdf::Joint& j, const std::string& parent, const Pose& placement) {
    JointSpec s;
    s.name = j.name;
    s.parent = parent;
    s.child = j.child_link_name;
    s.parent_placement = placement;
    auto unitAxis = [&]() -> Vec3 {
      const Vec3 a = toVec3(j.axis);
      const double n = a.norm();
      if (!std::isfinite(n) || n < 1e-12)
        failAt("joint", j.name,
               "axis is [" + fmt(a.x()) + " " + fmt(a.y()) + " " + fmt(a.z()) +
                   "]; expected a non-zero vector");
      return a / n;
    };
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
        s.type = JointType::Revolute;
        s.axis = unitAxis();
        s.limits = limits(j, j.type == urdf::Joint::REVOLUTE);
        break;
      case urdf::Joint::PRISMATIC:
        s.type = JointType::Prismatic;
        s.axis = unitAxis();
        s.limits = limits(j, true);
        break;
      case urdf::Joint::FIXED:  // only a body with mass fixed to a massless root (the world)
        s.type = JointType::Fixed;
        break;
      case urdf::Joint::FLOATING:
        s.type = JointType::Free;
        break;
      case urdf::Joint::PLANAR: {
        // URDF: the axis is the plane normal. rbs planar joints move in the joint frame's xy
        // plane: rotate the joint frame so its z is the normal, and back for the child (T_c) so
        // that the child frame is the URDF joint frame at zero displacement.
        s.type = JointType::Planar;
        const Mat3 Rn = frameWithZAlong(unitAxis());
        s.parent_placement = placement * Pose::rotation(Rn);
        s.child_placement = Pose::rotation(Rn.transpose());
        break;
      }
      default:
        failAt("joint", j.name,
               "unknown joint type; expected revolute, continuous, prismatic, "
               "fixed, floating or planar");
    }
    joint_positions_[s.name] = position("joint", j.name);  // under its rbs name (maybe "<child>_to_world")
    const bool scalar = hasScalarPosition(s.type);
    const bool moves = s.type != JointType::Fixed;
    builder_.addJoint(std::move(s));
    if (scalar) {
      addJointDynamics(j);
      scalar_joints_.push_back({j.name, j.limits && j.limits->effort > 0.0 ? j.limits->effort : 0.0});
    }
    if (!moves) return;
    if (j.dynamics && j.dynamics->friction != 0.0 && (!scalar || !options_.joint_friction))
      friction_joints_.push_back(j.name);
    if (!scalar && j.dynamics && j.dynamics->damping != 0.0)
      warnAt("joint", j.name, "<dynamics> on a floating or planar joint is ignored: the URDF specification defines damping "
             "and friction for revolute and prismatic joints only (units N m s/rad, N s/m)");
    if (j.mimic) mimics_.push_back(&j);
  }

  /// <mimic joint="L" multiplier="m" offset="o"/> on joint F: the holonomic constraint
  /// q_F = m q_L + o, a joint coupling solved with the loop closures (named "F_mimic").
  void addMimicCouplings() {
    std::map<std::string, std::string> leader_of;
    for (const urdf::Joint* j : mimics_) leader_of[j->name] = j->mimic->joint_name;
    auto scalar = [&](const std::string& name) {
      return std::any_of(scalar_joints_.begin(), scalar_joints_.end(), [&](const auto& s) { return s.name == name; });
    };
    for (const urdf::Joint* j : mimics_) {
      const std::string& leader = j->mimic->joint_name;
      if (!scalar(j->name))
        failAt("joint", j->name, "has <mimic>, but only revolute, continuous and prismatic joints can mimic another");
      if (!model_->getJoint(leader)) {
        // What ROS tools do with it: the follower is an ordinary joint (issue 47: a hand whose
        // mimic names a joint of another file).
        warnAt("joint", j->name, "<mimic joint=\"" + leader + "\">: no joint of that name; the joint moves on its own");
        continue;
      }
      if (!scalar(leader))
        failAt("joint", j->name,
               "<mimic joint=\"" + leader + "\">: that joint is not a moving revolute, continuous or prismatic joint");
      // a cycle (a mimics b mimics a) fixes nothing and makes the constraint rows dependent
      std::string path = "'" + j->name + "'", at = j->name;
      for (std::size_t step = 0; step <= mimics_.size(); ++step) {
        const auto next = leader_of.find(at);
        if (next == leader_of.end()) break;
        at = next->second;
        path += " → '" + at + "'";
        if (at == j->name) failAt("joint", j->name, "<mimic> joints form a cycle: " + path);
      }
      const double multiplier = j->mimic->multiplier, offset = j->mimic->offset;
      if (!std::isfinite(multiplier) || !std::isfinite(offset))
        failAt("joint", j->name, "<mimic> multiplier and offset must be finite");
      LoopClosureSpec c;
      c.name = j->name + "_mimic";
      c.kind = LoopClosure::Kind::JointCoupling;
      c.follower = j->name;
      c.leader = leader;
      c.multiplier = multiplier;
      c.offset = offset;
      builder_.addLoopClosure(std::move(c));
    }
  }

  /// <dynamics damping="d" friction="μ"/> of a revolute, continuous or prismatic joint: viscous
  /// joint damping −d q̇ and, with UrdfOptions::joint_friction, smooth Coulomb friction
  /// −μ tanh(q̇ / v_s) (a joint spring-damper without the spring).
  void addJointDynamics(const urdf::Joint& j) {
    if (!j.dynamics) return;
    const double d = j.dynamics->damping, mu = j.dynamics->friction;
    if (!std::isfinite(d) || d < 0.0)
      failAt("joint", j.name, "dynamics damping = " + fmt(d) + "; expected a finite value ≥ 0");
    if (!std::isfinite(mu) || mu < 0.0)
      failAt("joint", j.name, "dynamics friction = " + fmt(mu) + "; expected a finite value ≥ 0");
    const double friction = options_.joint_friction ? mu : 0.0;
    if (d == 0.0 && friction == 0.0) return;
    builder_.addJointSpringDamper(JointSpringDamperSpec{
        .joint = j.name, .damping = d, .friction = friction, .friction_velocity = kFrictionVelocity});
  }

  std::optional<JointLimits> limits(const urdf::Joint& j, bool position_limits) const {
    if (!j.limits) return std::nullopt;
    const urdf::JointLimits& l = *j.limits;
    JointLimits out;
    if (position_limits && !(l.lower == 0.0 && l.upper == 0.0)) {
      if (!std::isfinite(l.lower) || !std::isfinite(l.upper) || l.lower > l.upper)
        failAt("joint", j.name,
               "limit lower = " + fmt(l.lower) + ", upper = " + fmt(l.upper) +
                   "; expected finite values with lower ≤ upper");
      out.lower = l.lower;
      out.upper = l.upper;
    }
    if (l.effort > 0.0) out.effort = l.effort;
    if (l.velocity > 0.0) out.velocity = l.velocity;
    return out;
  }

  std::filesystem::path path_;
  std::string file_;
  ModelBuilder& builder_;
  UrdfOptions options_;
  TiXmlDocument xml_;
  const urdf::ModelInterface* model_ = nullptr;
  std::vector<std::string> world_children_;
  std::string floating_body_;                            ///< the body on the free joint (massless root)
  std::map<std::string, std::string> merged_links_;      ///< link → the body it was merged into
  std::vector<UrdfSummary::ScalarJoint> scalar_joints_;
  std::vector<const urdf::Joint*> mimics_;  ///< joints with <mimic>, in tree order
  std::map<std::string, UrdfSummary::Position> joint_positions_;  ///< every joint added, by its rbs name
  std::vector<SceneWarning> warnings_;
  std::vector<std::string> friction_joints_;  ///< moving joints with <dynamics friction>, in file order
  std::vector<std::string> bounded_bodies_;   ///< moving bodies whose mass or inertia the bounds raised
  std::vector<std::string> collision_drawn_bodies_;  ///< bodies without any <visual>, drawn as their <collision>s
  std::vector<std::string> undrawn_bodies_;   ///< bodies without any <visual> or <collision>: their inertia box
  ResourceResolver resources_;
  std::set<std::string> reported_meshes_;  ///< mesh URIs already warned about
};

}  // namespace

UrdfSummary importUrdf(const std::filesystem::path& file, ModelBuilder& builder,
                       const UrdfOptions& options) {
  return Importer(file, builder, options).run();
}

}  // namespace rbs

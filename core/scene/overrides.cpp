#include "core/scene/overrides.h"

#include <map>
#include <utility>

namespace rbs::scene_detail {
namespace {

/// Singular spellings of the list sections: "joint.elbow" addresses an element of "joints".
const std::map<std::string, std::string>& listAliases() {
  static const std::map<std::string, std::string> aliases = {
      {"body", "bodies"},           {"joint", "joints"},
      {"spring", "springs"},        {"damper", "dampers"},
      {"joint_spring", "joint_springs"}, {"loop_closure", "loop_closures"},
      {"external_wrench", "external_wrenches"}, {"actuator", "actuators"}, {"propeller", "propellers"}, {"input_set", "input_sets"},
      {"plot", "plots"},            {"push", "pushes"}};
  return aliases;
}

/// Keys that name a list element: `name`, `joint` (joint_springs), `body` (external_wrenches),
/// `title` (plots).
const char* const kNameKeys[] = {"name", "joint", "body", "title"};

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : path) {
    if (c == '.') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

YAML::Node findKey(const YAML::Node& map, const std::string& key, YAML::Node* key_node = nullptr) {
  for (const auto& kv : map)
    if (kv.first.IsScalar() && kv.first.Scalar() == key) {
      if (key_node) *key_node = kv.first;
      return kv.second;
    }
  return YAML::Node(YAML::NodeType::Undefined);
}

std::string elementName(const YAML::Node& element) {
  if (!element.IsMap()) return "";
  for (const char* k : kNameKeys) {
    const YAML::Node n = findKey(element, k);
    if (n.IsDefined() && n.IsScalar()) return n.Scalar();
  }
  return "";
}

bool isIndex(const std::string& s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

void applyOne(Source& src, YAML::Node root, const std::string& assignment,
              std::vector<DeferredValue>& deferred) {
  auto fail = [&](const std::string& message) -> SceneError {
    return SceneError(src.file(), 0, 0, "--set " + assignment + ": " + message);
  };
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw fail("expected PATH=VALUE, e.g. integrator.dt=1e-4 or joint.elbow.position=0.3");
  const std::string path = assignment.substr(0, eq);
  const std::string value_text = assignment.substr(eq + 1);

  // ---- the value: a YAML scalar, flow list or flow map ----
  try {
    checkText("--set", value_text);
  } catch (const SceneError& e) {
    throw fail(e.message());
  }
  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception& e) {
    throw fail("the value is not valid YAML (" + e.msg + ")");
  }
  if (!value.IsDefined() || value.IsNull())
    throw fail("expected a value after '=' (a number, a name or a list such as [0, 0, -9.81])");

  // ---- the path ----
  std::vector<std::string> segs = split(path);
  for (const auto& s : segs)
    if (s.empty()) throw fail("the path '" + path + "' has an empty component");
  if (auto a = listAliases().find(segs[0]); a != listAliases().end()) segs[0] = a->second;
  // Shorthands: joint.NAME.position/velocity and controller.NAME.
  if (segs[0] == "joints" && segs.size() == 3 && (segs[2] == "position" || segs[2] == "velocity"))
    segs.insert(segs.begin() + 2, "initial");
  if (segs[0] == "controller" && segs.size() == 2 && segs[1] != "name" && segs[1] != "parameters")
    segs.insert(segs.begin() + 1, "parameters");

  // A joint of the included URDF (not in the file's joints list): set on the built model.
  if (segs[0] == "joints" && segs.size() == 4 && segs[2] == "initial" &&
      (segs[3] == "position" || segs[3] == "velocity") && findKey(root, "include").IsDefined()) {
    const YAML::Node joints = findKey(root, "joints");
    bool listed = false;
    if (joints.IsDefined() && joints.IsSequence())
      for (const auto& j : joints) listed = listed || elementName(j) == segs[1];
    if (!listed) {
      deferred.push_back({DeferredValue::Target::Joint, assignment, segs[1], segs[3], value});
      src.addOverride(assignment, {value});
      return;
    }
  }
  // A link of the included URDF: link.NAME.mass|com|inertia.
  if (segs[0] == "link" || segs[0] == "links") {
    if (!findKey(root, "include").IsDefined())
      throw fail("'link' addresses the links of an included URDF ('include'); this scene has none");
    if (segs.size() != 3 || (segs[2] != "mass" && segs[2] != "com" && segs[2] != "inertia"))
      throw fail("expected link.NAME.mass, link.NAME.com or link.NAME.inertia");
    deferred.push_back({DeferredValue::Target::Link, assignment, segs[1], segs[2], value});
    src.addOverride(assignment, {value});
    return;
  }

  std::vector<YAML::Node> introduced;
  YAML::Node cur;
  cur.reset(root);
  std::string walked;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    const std::string& seg = segs[i];
    const bool last = i + 1 == segs.size();
    const std::string here = walked.empty() ? seg : walked + "." + seg;
    if (cur.IsMap()) {
      YAML::Node child = findKey(cur, seg);
      if (last) {
        cur[seg] = value;
      } else if (child.IsDefined() && (child.IsMap() || child.IsSequence())) {
        cur.reset(child);
        walked = here;
        continue;
      } else if (child.IsDefined() && child.IsScalar()) {
        throw fail("'" + here + "' holds a single value; the path cannot continue below it");
      } else {
        if (i == 0) {
          for (const auto& [alias, section] : listAliases())
            if (section == seg)
              throw fail("the scene has no '" + seg + "' list to address '" + segs[1] + "' in");
        }
        cur[seg] = YAML::Node(YAML::NodeType::Map);  // create (or replace an empty value)
      }
      YAML::Node key_node;
      YAML::Node now = findKey(cur, seg, &key_node);
      introduced.push_back(key_node);
      introduced.push_back(now);
      if (!last) cur.reset(now);
    } else if (cur.IsSequence()) {
      std::vector<std::string> names;
      std::size_t index = cur.size();
      for (std::size_t k = 0; k < cur.size(); ++k) {
        const std::string n = elementName(cur[k]);
        if (!n.empty()) names.push_back(n);
        if (n == seg && index == cur.size()) index = k;
      }
      if (index == cur.size() && isIndex(seg) && std::stoul(seg) < cur.size()) index = std::stoul(seg);
      if (index == cur.size()) {
        std::string hint = didYouMean(seg, names);
        if (hint.empty() && !names.empty()) hint = "; the elements are " + joinList(names);
        throw fail("'" + (walked.empty() ? std::string("(top)") : walked) + "' has no element named '" +
                   seg + "'" + hint);
      }
      if (last) {
        cur[index] = value;
        introduced.push_back(cur[index]);
      } else {
        YAML::Node element = cur[index];
        if (!element.IsMap() && !element.IsSequence())
          throw fail("'" + here + "' holds a single value; the path cannot continue below it");
        cur.reset(element);
      }
    } else {
      throw fail("'" + walked + "' holds a single value; the path cannot continue below it");
    }
    walked = here;
  }
  introduced.push_back(value);
  src.addOverride(assignment, std::move(introduced));
}

}  // namespace

std::vector<DeferredValue> applyOverrides(Source& src, YAML::Node root,
                                               const std::vector<std::string>& assignments) {
  std::vector<DeferredValue> deferred;
  for (const auto& a : assignments) applyOne(src, root, a, deferred);
  return deferred;
}

}  // namespace rbs::scene_detail

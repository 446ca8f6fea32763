// rbsim._rbsim: the pybind11 layer of the Python package (python/rbsim). It wraps core and sim as
// they are — loadScene, SceneRun (the one definition of a run, sim/scene_run.h), the model's
// dynamics — and converts to numpy; the package's pure-Python part (python/rbsim/__init__.py)
// gives it its user-facing shape. Long computations release the GIL, so threads run several
// simulations at once.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/control/parameters.h"
#include "core/dynamics/dynamics.h"
#include "core/dynamics/energy.h"
#include "core/dynamics/kinematics.h"
#include "core/dynamics/workspace.h"
#include "core/io/scene_error.h"
#include "core/model/joint.h"
#include "core/scene/scene.h"
#include "sim/channels.h"
#include "sim/input_hold.h"
#include "sim/scene_run.h"
#include "sim/study_run.h"

namespace py = pybind11;

namespace rbs::python {
namespace {

/// A loaded scene and how it was loaded (so that run(set=…) can load it again with more settings).
/// Shared: models and simulators keep the scene they point into alive.
struct LoadedScene {
  std::shared_ptr<const Scene> scene;
  LoadOptions options;
};

/// Loads the scene and makes its closed loop once, so that a controller or reference the settings
/// break fails here, not at run(). An error about a controller parameter that a `set` entry names
/// ("unknown controller parameter 'omega'", a value out of range) is reported at that entry.
LoadedScene loadChecked(const std::filesystem::path& file, const LoadOptions& options) {
  py::gil_scoped_release unlocked;
  auto scene = std::make_shared<const Scene>(loadScene(file, options));
  try {
    makeSceneLoop(*scene, scene->controller.name);
  } catch (const SceneError& e) {
    for (const std::string& entry : options.overrides) {
      const std::string path = entry.substr(0, entry.find('='));
      const std::string name = path.substr(path.rfind('.') + 1);
      if (path.rfind("controller.", 0) == 0 && e.message().find("parameter '" + name + "'") != std::string::npos)
        throw SceneError(e.file(), 0, 0, "set " + entry + ": " + e.message());
    }
    throw;
  }
  return {std::move(scene), options};
}

LoadedScene load(const std::filesystem::path& file, const std::vector<std::string>& overrides, bool floating,
                 const std::vector<std::filesystem::path>& package_paths) {
  LoadOptions options;
  options.overrides = overrides;
  options.floating_base = floating;
  options.package_paths = package_paths;
  return loadChecked(file, options);
}

/// The same file loaded again with `more` overrides after the first ones.
LoadedScene withOverrides(const LoadedScene& loaded, const std::vector<std::string>& more) {
  LoadOptions options = loaded.options;
  options.overrides.insert(options.overrides.end(), more.begin(), more.end());
  return loadChecked(loaded.scene->file, options);
}

/// Channels and samples as numpy arrays (copied: the result outlives the simulator).
py::dict recordingToPython(const Recording& rec) {
  const auto n = static_cast<py::ssize_t>(rec.time.size());
  const auto w = static_cast<py::ssize_t>(rec.channels.size());
  py::array_t<double> t(n);
  std::copy(rec.time.begin(), rec.time.end(), t.mutable_data());
  py::array_t<double> values({n, w});
  double* out = values.mutable_data();
  for (py::ssize_t k = 0; k < n; ++k) {
    const std::span<const double> row = rec.values[static_cast<std::size_t>(k)];
    std::copy(row.begin(), row.end(), out + k * w);
  }
  py::list names, units, descriptions;
  for (int i = 0; i < rec.channels.size(); ++i) {
    names.append(rec.channels[i].name);
    units.append(rec.channels[i].unit);
    descriptions.append(rec.channels[i].description);
  }
  py::dict d;
  d["t"] = t;
  d["values"] = values;
  d["names"] = names;
  d["units"] = units;
  d["descriptions"] = descriptions;
  d["dropped"] = rec.dropped;
  return d;
}

py::list parameterList(const ParameterSet* set) {
  py::list out;
  if (!set) return out;
  for (int i = 0; i < set->size(); ++i) {
    const ParameterSpec& s = set->spec(i);
    py::dict d;
    d["name"] = s.name;
    d["unit"] = s.unit;
    d["description"] = s.description;
    d["default"] = s.default_value;
    d["min"] = s.min;
    d["max"] = s.max;
    d["scale"] = s.scale == ParameterScale::Log ? "log" : "linear";
    d["kind"] = s.kind == ParameterKind::Toggle ? "toggle" : s.kind == ParameterKind::Choice ? "choice" : "real";
    d["choices"] = s.choices;
    d["value"] = set->value(i);
    out.append(d);
  }
  return out;
}

/// Run options from Python keywords (None: the scene's).
RunOverrides overridesFrom(std::optional<double> t_end, std::optional<double> dt_out, std::optional<std::string> stepper,
                           std::optional<double> dt, std::optional<double> rtol, std::optional<double> atol,
                           std::optional<std::string> controller) {
  RunOverrides o;
  o.t_end = t_end;
  o.dt_out = dt_out;
  o.stepper = std::move(stepper);
  o.dt = dt;
  o.rtol = rtol;
  o.atol = atol;
  o.controller = std::move(controller);
  return o;
}

py::dict statsToPython(const SimulationStats& s) {
  py::dict d;
  d["steps"] = s.steps;
  d["rhs_evaluations"] = s.rhs_evaluations;
  d["max_drift"] = s.max_drift;
  d["wall_time"] = s.wall_time;
  return d;
}

/// scene.run(): a whole run as rbsim-cli run makes it (SceneRun), every sample kept.
py::dict runScene(const LoadedScene& loaded, const RunOverrides& overrides) {
  const Scene& scene = *loaded.scene;
  std::unique_ptr<SceneRun> run;
  bool ok = false;
  // Ctrl-C reaches only the main thread: there the run asks for it between slices (taking the
  // GIL for a moment); other threads run without asking.
  const py::module_ threading = py::module_::import("threading");
  const bool main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
  std::function<bool()> stop;
  if (main_thread)
    stop = [] {
      py::gil_scoped_acquire locked;
      return PyErr_CheckSignals() != 0;
    };
  {
    py::gil_scoped_release unlocked;
    run = std::make_unique<SceneRun>(scene, overrides);
    ok = run->runToEnd(stop);
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  py::dict d = recordingToPython(run->simulator().recording());
  d["ok"] = ok;
  d["message"] = ok ? std::string() : run->simulator().message();
  d["stats"] = statsToPython(run->simulator().stats());
  d["controller"] = run->loop().controller_name;
  return d;
}

/// The model of a scene, for callers that write their own loops: dimensions, names and the
/// dynamics at a given state.
class ModelView {
 public:
  explicit ModelView(std::shared_ptr<const Scene> scene) : scene_(std::move(scene)), ws_(scene_->model) {}
  const Model& model() const { return scene_->model; }

  std::vector<std::string> configurationNames() const { return coordinateNames(true); }
  std::vector<std::string> velocityNames() const { return coordinateNames(false); }
  std::vector<std::string> inputNames() const {
    std::vector<std::string> out;
    for (const Actuator& a : model().actuators) out.push_back(a.name);
    return out;
  }
  std::vector<std::string> bodyNames() const {
    std::vector<std::string> out;
    for (const Body& b : model().bodies) out.push_back(b.name);
    return out;
  }

  VecX forwardDynamics(const VecX& x, const VecX& xi, const std::optional<VecX>& u, bool limits) {
    check(x, xi);
    VecX input = u ? *u : VecX::Zero(model().numInputs());
    if (input.size() != model().numInputs())
      throw py::value_error("u has " + std::to_string(input.size()) + " values; the model has " +
                            std::to_string(model().numInputs()) + " inputs");
    if (limits) {  // as a run does (sim/input_hold.h)
      if (!model().input_sets.empty() && !projection_) projection_.emplace(model());
      limitInputs(model(), input, projection_ ? &*projection_ : nullptr);
    }
    const DynamicsStatus status = computeForwardDynamics(model(), x, xi, input, ws_);
    if (status != DynamicsStatus::Ok)
      throw std::runtime_error("forward dynamics: " + std::string(toString(status)));
    return ws_.xidot;
  }

  MatX massMatrix(const VecX& x) {
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    computeMassMatrix(model(), ws_);
    return ws_.mass_matrix;
  }

  /// b(x, ξ) = c + f_G + f_K + f_D − f_E(x, ξ, 0): everything but the inputs, so that
  /// M ξ̇ + b = B u (+ Zᵀ μ with loop closures), (3.124).
  VecX biasForces(const VecX& x, const VecX& xi) {
    check(x, xi);
    computeKinematics(model(), x, xi, ws_);
    computeMassMatrix(model(), ws_);
    computeInertialForces(model(), ws_);
    computeGravityForces(model(), ws_);
    computeElasticForces(model(), x, ws_);
    computeDampingForces(model(), xi, ws_);
    computeInputForces(model(), x, xi, VecX::Zero(model().numInputs()), ws_);
    return ws_.inertial_forces + ws_.gravity_forces + ws_.elastic_forces + ws_.damping_forces - ws_.input_forces;
  }

  /// f_G(x) = ∇V_G, (3.113).
  VecX gravityForces(const VecX& x) {
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    computeGravityForces(model(), ws_);
    return ws_.gravity_forces;
  }

  /// B(x): the actuators' part of f_E is B u.
  MatX inputMatrix(const VecX& x) {
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    computeBodyJacobians(model(), ws_);
    computeInputMatrix(model(), ws_);
    return ws_.input_matrix;
  }

  /// M(x) ξ̇ + b(x, ξ): the generalized force (inputs and constraint forces together) that gives
  /// the accelerations ξ̇ (recursive Newton–Euler, no M formed).
  VecX inverseDynamics(const VecX& x, const VecX& xi, const VecX& xidot) {
    check(x, xi);
    if (xidot.size() != model().nxi)
      throw py::value_error("xidot has " + std::to_string(xidot.size()) + " values; the model has " +
                            std::to_string(model().nxi) + " velocity coordinates");
    computeKinematics(model(), x, xi, ws_);
    VecX out(model().nxi);
    computeInverseDynamicsForces(model(), xidot, ws_, out);
    computeElasticForces(model(), x, ws_);
    computeDampingForces(model(), xi, ws_);
    computeInputForces(model(), x, xi, VecX::Zero(model().numInputs()), ws_);
    return out + ws_.elastic_forces + ws_.damping_forces - ws_.input_forces;
  }

  /// The world pose of a body's frame: (R, r).
  std::pair<Mat3, Vec3> bodyPose(const VecX& x, const std::string& body) {
    const int b = bodyIndex(body);
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    return {ws_.pose[b].R, ws_.pose[b].r};
  }

  /// A named frame (a URDF link merged into the body it is fixed to), or a body's own frame:
  /// its world pose (R, r).
  std::pair<Mat3, Vec3> framePose(const VecX& x, const std::string& frame) {
    check(x, VecX::Zero(model().nxi));
    for (const NamedFrame& f : model().frames) {
      if (f.name != frame) continue;
      computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
      const Pose pose = ws_.pose[f.frame.body] * f.frame.offset;
      return {pose.R, pose.r};
    }
    if (model().bodyIndex(frame) >= 0) return bodyPose(x, frame);
    std::vector<std::string> names = bodyNames();
    for (const NamedFrame& f : model().frames) names.push_back(f.name);
    throw py::value_error("no frame or body named '" + frame + "'; there are " + quotedNames(names));
  }
  std::vector<std::string> frameNames() const {
    std::vector<std::string> out;
    for (const NamedFrame& f : model().frames) out.push_back(f.name);
    return out;
  }

  /// J_b (6 × n): the body's twist [v; ω] = J_b ξ, of its frame's origin, in the body's axes
  /// (frame "body") or the world's (frame "world": both rows turned by R).
  MatX bodyJacobian(const VecX& x, const std::string& body, const std::string& frame) {
    const int b = bodyIndex(body);
    const bool world = axes(frame);
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    computeBodyJacobians(model(), ws_);
    MatX J = ws_.jacobian(b);
    if (world) {
      const Mat3& R = ws_.pose[b].R;
      J.topRows<3>() = R * J.topRows<3>();
      J.bottomRows<3>() = R * J.bottomRows<3>();
    }
    return J;
  }

  /// J_p (3 × n): the world velocity of a point fixed in the body (body coordinates `point`),
  /// R (J_v − [p]× J_ω).
  MatX pointJacobian(const VecX& x, const std::string& body, const Vec3& point) {
    const MatX J = bodyJacobian(x, body, "body");
    return ws_.pose[bodyIndex(body)].R * (J.topRows<3>() - wed(point) * J.bottomRows<3>());
  }

  /// κ_b = J̇_b ξ (6): the body's acceleration [v̇; ω̇] in its own axes is J_b ξ̇ + κ_b.
  Vec6 bodyBiasAcceleration(const VecX& x, const VecX& xi, const std::string& body) {
    const int b = bodyIndex(body);
    check(x, xi);
    computeKinematics(model(), x, xi, ws_);
    return ws_.bias[b];
  }

  /// Z(x) (rows × n) of the loop closures and mimic couplings: Z ξ̇ = z, (A.13b).
  MatX constraintJacobian(const VecX& x) {
    check(x, VecX::Zero(model().nxi));
    computeKinematics(model(), x, VecX::Zero(model().nxi), ws_);
    computeBodyJacobians(model(), ws_);
    computeLoopClosures(model(), x, VecX::Zero(model().nxi), ws_);
    return ws_.constraint_jacobian;
  }

  py::dict energies(const VecX& x, const VecX& xi) {
    check(x, xi);
    computeKinematics(model(), x, xi, ws_);
    computeMassMatrix(model(), ws_);
    const Energies e = computeEnergies(model(), x, xi, ws_);
    py::dict d;
    d["kinetic"] = e.kinetic;
    d["gravitational"] = e.gravitational;
    d["elastic"] = e.elastic;
    d["potential"] = e.potential();
    d["total"] = e.total();
    return d;
  }

 private:
  std::vector<std::string> coordinateNames(bool configuration) const {
    std::vector<std::string> out;
    for (const Joint& j : model().joints) {
      const auto coords = configuration ? configurationCoordinates(j.type) : velocityCoordinates(j.type);
      for (const CoordinateInfo& c : coords) out.push_back("joint." + j.name + "." + std::string(c.name));
    }
    return out;
  }
  int bodyIndex(const std::string& body) const {
    const int b = model().bodyIndex(body);
    if (b < 0) throw py::value_error("no body named '" + body + "'; the bodies are " + quotedNames(bodyNames()));
    return b;
  }
  static bool axes(const std::string& frame) {
    if (frame != "world" && frame != "body") throw py::value_error("frame is 'world' or 'body', not '" + frame + "'");
    return frame == "world";
  }
  void check(const VecX& x, const VecX& xi) const {
    if (x.size() != model().nx)
      throw py::value_error("x has " + std::to_string(x.size()) + " values; the model has " +
                            std::to_string(model().nx) + " configuration coordinates");
    if (xi.size() != model().nxi)
      throw py::value_error("xi has " + std::to_string(xi.size()) + " values; the model has " +
                            std::to_string(model().nxi) + " velocity coordinates");
  }

  std::shared_ptr<const Scene> scene_;
  Workspace ws_;
  std::optional<InputSetProjection> projection_;  ///< made on the first limited forward dynamics
};

/// A step-wise run (SceneRun with every sample kept): advance, look, change parameters, advance.
class StepwiseRun {
  /// f() under the run's lock, waiting for it without the GIL (defined first: its return type is
  /// deduced).
  template <class F>
  auto locked(F f) -> decltype(f()) {
    py::gil_scoped_release unlocked;
    std::lock_guard lock(mutex_);
    return f();
  }

 public:
  StepwiseRun(LoadedScene loaded, const RunOverrides& overrides)
      : scene_(std::move(loaded.scene)), run_(*scene_, overrides) {
    run_.start();
  }

  // advance_to releases the GIL, so the GIL no longer keeps two Python threads out of one run:
  // every method takes the run's own lock (with the GIL released while it waits).
  bool advanceTo(double t) {
    py::gil_scoped_release unlocked;
    std::lock_guard lock(mutex_);
    Simulator& sim = run_.simulator();
    if (t < sim.time()) {
      py::gil_scoped_acquire locked;
      throw py::value_error("advance_to(" + std::to_string(t) + "): the run is at t = " + std::to_string(sim.time()) +
                            " s and goes forward only; restart() goes back to 0");
    }
    return sim.advanceTo(t);
  }
  double time() { return locked([&] { return run_.simulator().time(); }); }
  VecX x() { return locked([&] { return VecX(run_.simulator().state().x); }); }
  VecX xi() { return locked([&] { return VecX(run_.simulator().state().xi); }); }
  bool ok() { return locked([&] { return run_.simulator().message().empty(); }); }
  std::string message() { return locked([&] { return run_.simulator().message(); }); }
  py::dict recording() {
    const Recording copy = locked([&] { return run_.simulator().recording(); });
    return recordingToPython(copy);
  }
  py::dict stats() { return statsToPython(locked([&] { return run_.simulator().stats(); })); }
  py::list parameters() {
    std::lock_guard lock(mutex_);  // parameterList builds Python objects: the GIL is held here
    return parameterList(run_.loop().parameters());
  }
  void setParameter(const std::string& name, double value) {
    std::lock_guard lock(mutex_);
    ParameterSet* set = run_.loop().parameters();
    if (!set) throw py::value_error("the run has no controller, so no parameter '" + name + "'");
    const int i = set->find(name);
    if (i < 0) {
      std::string known;
      for (int k = 0; k < set->size(); ++k) known += (k ? ", " : "") + set->spec(k).name;
      throw py::value_error("controller '" + run_.loop().controller_name + "' has no parameter '" + name +
                            "'; it has: " + known);
    }
    try {
      set->set(i, value);
    } catch (const std::invalid_argument& e) {
      throw py::value_error(e.what());
    }
  }
  void restart() {
    py::gil_scoped_release unlocked;
    std::lock_guard lock(mutex_);
    run_.start();
  }

 private:
  std::shared_ptr<const Scene> scene_;
  SceneRun run_;
  std::mutex mutex_;
};

/// A parameter study's runs (sim/study_run.h): the Dask runner evaluates them one task each.
class StudyHandle {
 public:
  explicit StudyHandle(const std::filesystem::path& file) : study_(loadStudy(file)), runs_(expandStudy(study_)) {
    hash_ = studyHashes(study_);
  }
  void check() const { checkStudy(study_); }
  std::string evaluate(long index) const {
    if (index < 0 || index >= static_cast<long>(runs_.size()))
      throw py::index_error("run " + std::to_string(index) + " of a study with " + std::to_string(runs_.size()) + " runs");
    const StudyRunSpec& run = runs_[static_cast<std::size_t>(index)];
    py::gil_scoped_release unlocked;
    return studyCsvRow(run, evaluateStudyRun(study_, run), hash_);
  }
  /// The row of a run that could not be evaluated (its worker died): status error, `message`.
  std::string errorRow(long index, const std::string& message) const {
    if (index < 0 || index >= static_cast<long>(runs_.size())) throw py::index_error("no run " + std::to_string(index));
    StudyRunResult failed;
    failed.status = RunStatus::Error;
    failed.message = message;
    failed.metrics.assign(study_.metrics.size(), std::nan(""));
    return studyCsvRow(runs_[static_cast<std::size_t>(index)], failed, hash_);
  }
  std::set<long> completed(const std::filesystem::path& results, const std::set<std::string>& retry) const {
    return completedStudyRuns(study_, results, hash_, retry);
  }
  const Study& study() const { return study_; }
  long runs() const { return static_cast<long>(runs_.size()); }
  const std::string& hash() const { return hash_; }

 private:
  Study study_;
  std::vector<StudyRunSpec> runs_;
  std::string hash_;
};

}  // namespace
}  // namespace rbs::python

PYBIND11_MODULE(_rbsim, m) {
  using namespace rbs;
  using namespace rbs::python;
  m.doc() = "rbsim's C++ core (use the rbsim package, not this module)";

  // SceneError carries where: file, line, column (1-based; 0 when unknown) and the message.
  static py::exception<SceneError> scene_error(m, "SceneError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SceneError& e) {
      py::object error = py::reinterpret_borrow<py::object>(scene_error.ptr())(e.what());
      error.attr("file") = e.file();
      error.attr("line") = e.line();
      error.attr("column") = e.column();
      error.attr("message") = e.message();
      PyErr_SetObject(scene_error.ptr(), error.ptr());
    }
  });

  py::class_<LoadedScene>(m, "Scene")
      .def_property_readonly("name", [](const LoadedScene& s) { return s.scene->name; })
      .def_property_readonly("description", [](const LoadedScene& s) { return s.scene->description; })
      .def_property_readonly("file", [](const LoadedScene& s) { return s.scene->file; })
      .def_property_readonly("overrides", [](const LoadedScene& s) { return s.options.overrides; })
      .def_property_readonly("warnings",
                             [](const LoadedScene& s) {
                               std::vector<std::string> out;
                               for (const SceneWarning& w : s.scene->warnings) out.push_back(w.text());
                               return out;
                             })
      .def_property_readonly("controller", [](const LoadedScene& s) { return s.scene->controller.name; })
      .def_property_readonly("integrator",
                             [](const LoadedScene& s) {
                               const IntegratorSettings& i = s.scene->integrator;
                               py::dict d;
                               d["stepper"] = i.stepper;
                               d["dt"] = i.dt;
                               d["rtol"] = i.rtol;
                               d["atol"] = i.atol;
                               d["drift"] = i.drift;
                               d["t_end"] = i.t_end;
                               d["dt_out"] = i.dt_out;
                               d["control_rate"] = i.control_rate;
                               return d;
                             })
      .def("with_overrides", &withOverrides)
      .def("parameters",
           [](const LoadedScene& s, std::optional<std::string> controller) {
             const SceneLoop loop = makeSceneLoop(*s.scene, controller.value_or(s.scene->controller.name));
             return parameterList(loop.parameters());
           },
           py::arg("controller") = py::none())
      .def("run",
           [](const LoadedScene& s, std::optional<double> t_end, std::optional<double> dt_out,
              std::optional<std::string> integrator, std::optional<double> dt, std::optional<double> rtol,
              std::optional<double> atol, std::optional<std::string> controller) {
             return runScene(s, overridesFrom(t_end, dt_out, std::move(integrator), dt, rtol, atol, std::move(controller)));
           },
           py::arg("t_end") = py::none(), py::arg("dt_out") = py::none(), py::arg("integrator") = py::none(),
           py::arg("dt") = py::none(), py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
           py::arg("controller") = py::none())
      .def("model", [](const LoadedScene& s) { return std::make_unique<ModelView>(s.scene); });

  m.def("load", &load, py::arg("path"), py::arg("overrides") = std::vector<std::string>{},
        py::arg("floating") = false, py::arg("package_paths") = std::vector<std::filesystem::path>{});

  py::class_<StudyHandle>(m, "Study")
      .def(py::init<const std::filesystem::path&>(), py::arg("file"))
      .def("check", &StudyHandle::check)
      .def("evaluate", &StudyHandle::evaluate, py::arg("index"))
      .def("completed", &StudyHandle::completed, py::arg("results"), py::arg("retry") = std::set<std::string>{},
           "The run indices a results file holds; rows whose status is in `retry` leave the file.")
      .def("error_row", &StudyHandle::errorRow, py::arg("index"), py::arg("message"))
      .def_property_readonly("runs", &StudyHandle::runs)
      .def_property_readonly("hashes", &StudyHandle::hash)
      .def_property_readonly("header", [](const StudyHandle& h) { return studyCsvHeader(h.study()); })
      .def_property_readonly("name", [](const StudyHandle& h) { return h.study().name; })
      .def_property_readonly("scene", [](const StudyHandle& h) { return h.study().scene; })
      .def_property_readonly("parameters", [](const StudyHandle& h) { return studyParameterColumns(h.study()); })
      .def_property_readonly("metrics", [](const StudyHandle& h) {
        std::vector<std::string> names;
        for (const StudyMetric& metric : h.study().metrics) names.push_back(metric.name);
        return names;
      });
  m.def("sort_study_results", &sortStudyResults, py::arg("results"));
  m.def("study_status_counts", &studyStatusCounts, py::arg("results"),
        "How many rows of a results file have each status (ok, diverged, error).");
  m.def("version", &rbsimVersion);

  py::class_<ModelView>(m, "Model")
      .def_property_readonly("nx", [](const ModelView& v) { return v.model().nx; })
      .def_property_readonly("nxi", [](const ModelView& v) { return v.model().nxi; })
      .def_property_readonly("nu", [](const ModelView& v) { return v.model().numInputs(); })
      .def_property_readonly("x_names", &ModelView::configurationNames)
      .def_property_readonly("xi_names", &ModelView::velocityNames)
      .def_property_readonly("input_names", &ModelView::inputNames)
      .def_property_readonly("body_names", &ModelView::bodyNames)
      .def_property_readonly("frame_names", &ModelView::frameNames)
      .def_property_readonly("initial_x", [](const ModelView& v) { return VecX(v.model().initial_state.x); })
      .def_property_readonly("initial_xi", [](const ModelView& v) { return VecX(v.model().initial_state.xi); })
      .def("forward_dynamics", &ModelView::forwardDynamics, py::arg("x"), py::arg("xi"), py::arg("u") = py::none(),
           py::arg("limits") = true)
      .def("mass_matrix", &ModelView::massMatrix, py::arg("x"))
      .def("energies", &ModelView::energies, py::arg("x"), py::arg("xi"))
      .def("bias_forces", &ModelView::biasForces, py::arg("x"), py::arg("xi"),
           "b = c + f_G + f_K + f_D - f_E(x, xi, 0): M xidot + b = B u (+ Z^T mu)")
      .def("gravity_forces", &ModelView::gravityForces, py::arg("x"), "f_G = grad V_G")
      .def("input_matrix", &ModelView::inputMatrix, py::arg("x"), "B: the actuators' generalized force is B u")
      .def("inverse_dynamics", &ModelView::inverseDynamics, py::arg("x"), py::arg("xi"), py::arg("xidot"),
           "M xidot + b: the generalized force that gives the accelerations xidot")
      .def("body_pose", &ModelView::bodyPose, py::arg("x"), py::arg("body"), "(R, r) of the body's frame, world")
      .def("frame_pose", &ModelView::framePose, py::arg("x"), py::arg("frame"),
           "(R, r) of a named frame (a merged URDF link) or a body's frame, world")
      .def("body_jacobian", &ModelView::bodyJacobian, py::arg("x"), py::arg("body"), py::arg("frame") = "world",
           "J (6 x n): [v; omega] of the body frame's origin = J xi, in world or body axes")
      .def("point_jacobian", &ModelView::pointJacobian, py::arg("x"), py::arg("body"), py::arg("point"),
           "J (3 x n): the world velocity of a point fixed in the body (body coordinates)")
      .def("body_bias_acceleration", &ModelView::bodyBiasAcceleration, py::arg("x"), py::arg("xi"), py::arg("body"),
           "Jdot xi (6), body axes: the body's acceleration is J xidot + Jdot xi")
      .def("constraint_jacobian", &ModelView::constraintJacobian, py::arg("x"),
           "Z (rows x n) of the loop closures and mimic couplings");

  py::class_<StepwiseRun>(m, "Simulator")
      .def(py::init([](const LoadedScene& s, std::optional<double> dt_out, std::optional<std::string> integrator,
                       std::optional<double> dt, std::optional<double> rtol, std::optional<double> atol,
                       std::optional<std::string> controller) {
             return std::make_unique<StepwiseRun>(
                 s, overridesFrom(std::nullopt, dt_out, std::move(integrator), dt, rtol, atol, std::move(controller)));
           }),
           py::arg("scene"), py::arg("dt_out") = py::none(), py::arg("integrator") = py::none(),
           py::arg("dt") = py::none(), py::arg("rtol") = py::none(), py::arg("atol") = py::none(),
           py::arg("controller") = py::none())
      .def("advance_to", &StepwiseRun::advanceTo, py::arg("t"))
      .def_property_readonly("time", &StepwiseRun::time)
      .def_property_readonly("x", &StepwiseRun::x)
      .def_property_readonly("xi", &StepwiseRun::xi)
      .def_property_readonly("ok", &StepwiseRun::ok)
      .def_property_readonly("message", &StepwiseRun::message)
      .def("recording", &StepwiseRun::recording)
      .def("stats", &StepwiseRun::stats)
      .def("parameters", &StepwiseRun::parameters)
      .def("set_parameter", &StepwiseRun::setParameter, py::arg("name"), py::arg("value"))
      .def("restart", &StepwiseRun::restart);
}

// "No heap allocation per evaluation after the model is built" (issue 2, item 4).
//
// This executable interposes malloc/calloc/realloc (glibc resolves the executable's definitions
// first) and counts calls while a flag is set. Eigen allocates through malloc and operator new
// through libstdc++'s malloc, so every heap allocation is seen. It is a separate executable so that
// the interposition touches no other test.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>

#include "core/control/allocation.h"
#include "core/control/prototype.h"
#include "core/control/reference.h"
#include "core/control/registry.h"
#include "core/dynamics/dynamics.h"
#include "core/math/inequality_qp.h"
#include "core/model/input_sets.h"
#include "core/model/model_builder.h"
#include "sim/closed_loop.h"
#include "sim/input_hold.h"
#include "sim/push_forces.h"
#include "tests/support/benchmark_models.h"
#include "tests/support/example_models.h"
#include "tests/support/reference_fixtures.h"
#include "tests/support/test_models.h"

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t n, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
void count() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocations.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

extern "C" {
void* malloc(std::size_t size) {
  count();
  return __libc_malloc(size);
}
void* calloc(std::size_t n, std::size_t size) {
  count();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t size) {
  count();
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  count();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  count();
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12;  // ENOMEM
}
}

namespace rbs {
namespace {

/// Number of heap allocations made by `f`.
template <class F>
long allocationsDuring(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

TEST(NoAllocation, TheCounterSeesEigenAndStandardAllocations) {
  // The test can fail: a dynamic Eigen vector and a std::vector both allocate.
  EXPECT_GE(allocationsDuring([] { VecX v = VecX::Ones(1000); ASSERT_GT(v.sum(), 0); }), 1);
  EXPECT_GE(allocationsDuring([] { std::vector<double> v(1000, 1.0); ASSERT_GT(v[3], 0); }), 1);
}

/// A model with every joint type, springs, dampers, actuators, external wrenches and a loop closure.
Model everythingModel() {
  test::Rng rng(5);
  ModelBuilder b;
  const JointType types[] = {JointType::Free, JointType::Spherical, JointType::SphericalQuaternion,
                             JointType::SphericalEulerZYX, JointType::SphericalAbsolute,
                             JointType::Revolute, JointType::RevoluteUnitCircle, JointType::Prismatic,
                             JointType::Planar, JointType::Universal, JointType::FreeQuaternion,
                             JointType::Fixed};
  std::string parent = kWorld;
  int i = 0;
  for (JointType t : types) {
    const std::string name = "b" + std::to_string(i);
    b.addBody(test::randomBody(rng, name));
    JointSpec j{.name = "j" + std::to_string(i), .type = t, .parent = parent, .child = name};
    j.parent_placement = test::randomPose(rng);
    if (t != JointType::SphericalAbsolute) j.child_placement = test::randomPose(rng);
    j.axis = Vec3::UnitX();
    j.axis2 = Vec3::UnitY();
    b.addJoint(j);
    parent = name;
    ++i;
  }
  b.addSpring({.name = "s", .a = {kWorld, {}}, .b = {"b3", test::randomPose(rng)}, .stiffness = 10.0,
               .center = Vec3(0.1, 0, 0), .rotational_stiffness = Mat3::Identity()});
  b.addSpring({.name = "s2", .a = {"b1", {}}, .b = {"b7", {}}, .stiffness = 3.0});
  b.addDamper({.name = "d", .a = {kWorld, {}}, .b = {"b5", {}}, .damping = 0.5});
  b.addJointSpringDamper({.joint = "j5", .stiffness = 2.0, .damping = 0.1});
  b.addJointSpringDamper({.joint = "j6", .stiffness = 2.0, .damping = 0.1});
  b.addExternalWrench({.body = "b2", .force = Vec3(1, 2, 3), .world_axes = true});
  b.addActuator({.name = "f", .kind = ActuatorKind::BodyForce, .body = "b0", .point = Vec3(0.1, 0, 0)});
  b.addActuator({.name = "t", .kind = ActuatorKind::BodyTorque, .body = "b4"});
  b.addActuator({.name = "m", .kind = ActuatorKind::JointEffort, .joint = "j9", .component = 1});
  b.addLoopClosure({.name = "loop", .kind = LoopClosure::Kind::Weld, .a = {"b2", {}}, .b = {"b8", {}}});
  return b.build();
}

TEST(NoAllocation, ForwardDynamicsAllocatesNothingAfterTheWorkspaceIsBuilt) {
  const Model m = everythingModel();
  test::Rng rng(6);
  const State s = test::randomState(m, rng);
  const VecX u = VecX::Ones(m.numInputs());
  Workspace ws(m);
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);  // warm-up
  const long n = allocationsDuring([&] {
    for (int k = 0; k < 10; ++k) computeForwardDynamics(m, s.x, s.xi, u, ws, 1.0);
  });
  EXPECT_EQ(n, 0);
}

TEST(NoAllocation, PushesAllocateNothing) {
  // scripted pushes latched at their windows' boundaries and the mouse's spring, on a tree
  Model m = everythingModel();
  m.pushes.push_back({1, Vec3(0.1, 0.0, 0.0), Vec3(1.0, 2.0, 3.0), Vec3(0.0, 0.1, 0.0), 0.0, 1.0});
  m.pushes.push_back({m.numBodies() - 1, Vec3::Zero(), Vec3(0.0, 0.0, 1.0), Vec3::Zero(), 0.5, 1.0});
  test::Rng rng(7);
  const State s = test::randomState(m, rng);
  const VecX u = VecX::Ones(m.numInputs());
  Workspace ws(m);
  PushForces pushes(m);
  SpringPush spring;
  spring.body = 0;
  spring.target = Vec3(1.0, 0.0, 0.0);
  pushes.setSpring(spring, 0.0);
  pushes.restart(0.7, 1e-12);
  ASSERT_EQ(computeForwardDynamicsWithPushes(m, 0.0, s, u, ws, 0.0, &pushes), DynamicsStatus::Ok);  // warm-up
  const long n = allocationsDuring([&] {
    for (int k = 0; k < 10; ++k) {
      pushes.restart(0.3 * k, 1e-12);
      computeForwardDynamicsWithPushes(m, 0.0, s, u, ws, 0.0, &pushes);
    }
  });
  EXPECT_EQ(n, 0);
  EXPECT_NE(pushes.power(), 0.0);
}

TEST(NoAllocation, JacobiansAndInputMatrixAllocateNothing) {
  const Model m = everythingModel();
  test::Rng rng(7);
  const State s = test::randomState(m, rng);
  Workspace ws(m);
  const long n = allocationsDuring([&] {
    computeKinematics(m, s.x, s.xi, ws);
    computeBodyJacobians(m, ws);
    computeMassMatrix(m, ws);
    computeInputMatrix(m, ws);
  });
  EXPECT_EQ(n, 0);
}

TEST(NoAllocation, LongChainForwardDynamicsAllocatesNothing) {
  // Both paths: the articulated-body recursion and the dense chain's blocked Cholesky.
  for (bool articulated : {true, false}) {
    Model m = test::randomChain(100, 9);
    ASSERT_TRUE(m.articulated_body_dynamics);
    ASSERT_TRUE(m.dofs_form_chain);
    m.articulated_body_dynamics = articulated;
    test::Rng rng(10);
    const State s = test::randomState(m, rng);
    Workspace ws(m);
    const VecX u;
    computeForwardDynamics(m, s.x, s.xi, u, ws);
    EXPECT_EQ(allocationsDuring([&] { computeForwardDynamics(m, s.x, s.xi, u, ws); }), 0) << articulated;
  }
}

TEST(NoAllocation, ArticulatedBodyPathWithMultiAxisJointsAllocatesNothing) {
  // The articulated-body recursion's small D blocks (universal, ball, six-axis joints) live in
  // fixed-capacity matrices.
  test::Rng rng(12);
  ModelBuilder b;
  for (const char* name : {"base", "arm", "hand", "ball"}) b.addBody(test::randomBody(rng, name));
  b.addJoint({.name = "free", .type = JointType::FreeQuaternion, .parent = kWorld, .child = "base"});
  b.addJoint({.name = "shoulder", .type = JointType::Universal, .parent = "base", .child = "arm"});
  b.addJoint({.name = "wrist", .type = JointType::SphericalQuaternion, .parent = "arm", .child = "hand"});
  b.addJoint({.name = "knob", .type = JointType::Revolute, .parent = "hand", .child = "ball"});
  const Model m = b.build();
  ASSERT_TRUE(m.articulated_body_dynamics);
  const State s = test::randomState(m, rng);
  Workspace ws(m);
  const VecX u;
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);
  EXPECT_EQ(allocationsDuring([&] { computeForwardDynamics(m, s.x, s.xi, u, ws); }), 0);
}

// A free flyer has a constant M: its inverse is formed at the first evaluation and then reused.
TEST(NoAllocation, FreeFlyerForwardDynamicsAllocatesNothing) {
  test::Rng rng(11);
  ModelBuilder b;
  b.addBody(test::randomBody(rng, "vehicle"));
  b.addJoint({.name = "flight", .type = JointType::Free, .child = "vehicle"});
  b.addActuator({.name = "f", .kind = ActuatorKind::BodyForce, .body = "vehicle", .point = Vec3(0.2, 0, 0)});
  const Model m = b.build();
  ASSERT_TRUE(m.constant_mass_matrix);
  const State s = test::randomState(m, rng);
  const VecX u = VecX::Ones(1);
  Workspace ws(m);
  ASSERT_EQ(computeForwardDynamics(m, s.x, s.xi, u, ws), DynamicsStatus::Ok);  // warm-up
  EXPECT_EQ(allocationsDuring([&] { computeForwardDynamics(m, s.x, s.xi, u, ws); }), 0);
}

/// The random allocation problem of the allocator tests: M = A Aᵀ + 1 and M̄ = 2 M + 1 (positive
/// definite), B (n×p), b = b̄ = 1, bounds ±bound, drawn from `seed` in that order; `rng` continues
/// the draws.
struct RandomAllocation {
  RandomAllocation(unsigned seed, double bound) : rng(seed) {
    const MatX A = MatX::NullaryExpr(n, n, [&] { return test::uniform(rng, -1, 1); });
    M = A * A.transpose() + MatX::Identity(n, n);
    Mbar = 2.0 * M + MatX::Identity(n, n);
    B = MatX::NullaryExpr(n, p, [&] { return test::uniform(rng, -1, 1); });
    lower = VecX::Constant(p, -bound);
    upper = VecX::Constant(p, bound);
  }
  /// The constrained allocation (4.63) of this problem as it stands.
  bool solve(Allocator& allocator, AllocationResult& out) const {
    return allocator.solve(M, b, B, Mbar, bbar, lower, upper, AllocationMode::Constrained, out);
  }
  static constexpr int n = 6, p = 4;
  test::Rng rng;
  MatX M, Mbar, B;
  VecX b = VecX::Ones(n), bbar = VecX::Ones(n), lower, upper;
};

// The allocator sizes its factorizations and explicit inverses at the first call; with the same
// M, B, M̄ after that, new b and b̄ allocate nothing, nor do the diagnostics.
TEST(NoAllocation, AllocatorWithUnchangedMatricesAllocatesNothing) {
  RandomAllocation problem(12, 0.1);
  const int n = problem.n, p = problem.p;
  Allocator allocator(n, p, /*constant_matrices=*/true);
  AllocationResult out;
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(problem.solve(allocator, out));
  out.saturated.reserve(p);
  EXPECT_EQ(allocationsDuring([&] {
              for (int k = 0; k < 10; ++k) {
                problem.b(0) = k;
                problem.bbar(1) = -k;
                problem.solve(allocator, out);
                allocator.evaluateDeviations(out);  // the diagnostics of an output sample
              }
            }),
            0);
}

// With priorities (issue 46) a saturated allocation runs the lexicographic QP: after the first
// solves of each reduced size it allocates nothing either, whichever levels and bounds are active.
TEST(NoAllocation, PrioritizedAllocationAllocatesNothing) {
  RandomAllocation problem(17, 0.1);
  const int n = problem.n, p = problem.p;
  Allocator allocator(n, p, /*constant_matrices=*/true);
  std::vector<Allocator::PriorityLevel> levels{
      {MatX::Zero(1, n), {p - 1}}, {MatX::Zero(2, n), {}}, {MatX::Zero(1, n), {}}};
  levels[0].accelerations(0, n - 1) = 1.0;  // a level the last input owns
  levels[1].accelerations(0, 3) = levels[1].accelerations(1, 4) = 1.0;
  levels[2].accelerations(0, 2) = 1.0;
  allocator.setPriorities(levels);
  AllocationResult out;
  const auto solveAll = [&] {
    for (int k = 0; k < 20; ++k) {
      problem.b(0) = 3.0 * std::sin(k);
      problem.bbar(1) = -2.0 * std::cos(1.7 * k);
      problem.bbar(4) = 4.0 * std::sin(0.3 * k);
      ASSERT_TRUE(problem.solve(allocator, out));
    }
  };
  solveAll();  // every reduced size once
  bool saturated = false;
  for (int s : out.saturated) saturated = saturated || s != 0;
  ASSERT_TRUE(saturated) << "the bounds must bind for the prioritized path to run";
  out.saturated.reserve(p);
  EXPECT_EQ(allocationsDuring(solveAll), 0);
}

// With input sets the constrained allocation runs the dual QP on the polygon; with varying M (no
// caching) it allocates nothing after the first calls, nor does the simulator's projection.
TEST(NoAllocation, AllocatorWithInputSetsAndTheProjectionAllocateNothing) {
  RandomAllocation problem(13, 1.0);
  const int n = problem.n, p = problem.p;
  MatX& M = problem.M;
  const MatX &Mbar = problem.Mbar, &B = problem.B;
  VecX &b = problem.b, &bbar = problem.bbar;
  const VecX &lower = problem.lower, &upper = problem.upper;
  test::Rng& rng = problem.rng;
  const MatX W = MatX::NullaryExpr(5, p, [&] { return test::uniform(rng, -1, 1); });
  const VecX l = VecX::Constant(5, 0.05);
  Allocator allocator(n, p);
  allocator.setInputSetRows(W, l);
  AllocationResult out;
  for (int k = 0; k < 2; ++k)
    ASSERT_TRUE(allocator.solve(M, b, B, Mbar, bbar, lower, upper, AllocationMode::Constrained, out));
  int qp_runs = 0;
  EXPECT_EQ(allocationsDuring([&] {
              for (int k = 0; k < 10; ++k) {
                b(0) = 3.0 * k;
                bbar(1) = -2.0 * k;
                M(0, 0) += 0.01;  // a new factorization every call
                allocator.solve(M, b, B, Mbar, bbar, lower, upper, AllocationMode::Constrained, out);
                qp_runs += out.qp_iterations > 0;
              }
            }),
            0);
  EXPECT_GT(qp_runs, 5);

  ModelBuilder builder;
  builder.addBody({"body", 1.0, Vec3::Zero(), Mat3::Identity()});
  builder.addJoint({.name = "free", .type = JointType::Free, .parent = kWorld, .child = "body"});
  for (const char* name : {"s", "c"})
    builder.addActuator({.name = name, .kind = ActuatorKind::BodyForce, .body = "body", .lower = -20, .upper = 20});
  MatX rows;
  VecX bounds;
  annularSectorPolygon(2, 14, -0.5, 0.5, 4, rows, bounds);
  builder.addInputSet({"sector", {"s", "c"}, rows, bounds});
  const Model model = builder.build();
  InputSetProjection projection(model);
  VecX u(2);
  EXPECT_EQ(allocationsDuring([&] {
              for (int k = 0; k < 10; ++k) {
                u << 10.0 - k, -3.0 + k;  // mostly outside the sector
                projection.project(u);
              }
            }),
            0);
  EXPECT_GT(projection.projections(), 5);
}

// A task-space reference (inverse kinematics from knots 2 ms apart) samples without allocating:
// a run restarted from t = 0 after the load-time walk (one loop of 2.5 s, past the 2 s window of
// knots) walks again from the checkpoints it passes, and an integrator's stages revisit knots.
TEST(NoAllocation, ToolPathReferenceSamplesAllocateNothing) {
  const Model m = test::randomChain(6, 11);
  const auto ref = makeReference(
      m, ReferenceSettings{"tool_path", {{"point", {0.05, -0.02, 0.1}}, {"radius", {0.03}}, {"period", {2.5}}},
                           {{"body", "link5"}, {"path", "circle"}}});
  ReferenceSample sample;
  ref->sample(2.4, sample);  // sizes the sample (inside the window the walk left)
  EXPECT_EQ(allocationsDuring([&] {
              for (int k = 0; k <= 300; ++k) ref->sample(0.0073 * k, sample);          // from 0 again
              for (int k = 0; k <= 300; ++k) ref->sample(0.0073 * k + 0.0005, sample);  // stages
            }),
            0);
}

// The general-inequality QP sizes everything at construction: solves of the constructed size
// (adding, dropping, detecting an empty set) allocate nothing.
TEST(NoAllocation, InequalityQpAllocatesNothingAfterConstruction) {
  test::Rng rng(8);
  const int p = 4, m = 10;
  const MatX R = MatX::NullaryExpr(p, p, [&] { return test::uniform(rng, -1, 1); });
  const MatX H = R * R.transpose() + MatX::Identity(p, p);
  const MatX A = MatX::NullaryExpr(m, p, [&] { return test::uniform(rng, -1, 1); });
  const VecX c = VecX::Constant(m, 0.2), u0 = VecX::Constant(p, 3.0);
  MatX A_empty = A;  // rows 0 and 1 contradict each other
  A_empty.row(1) = -A.row(0);
  VecX c_empty = c;
  c_empty(0) = c_empty(1) = -0.1;
  InequalityQp qp(p, m);
  int optimal = 0, infeasible = 0;
  EXPECT_EQ(allocationsDuring([&] {
              optimal += qp.solve(H, u0, A, c).status == InequalityQpStatus::Optimal;
              infeasible += qp.solve(H, u0, A_empty, c_empty).status == InequalityQpStatus::Infeasible;
            }),
            0);
  EXPECT_EQ(optimal, 1);
  EXPECT_EQ(infeasible, 1);
}

/// The closed loop's right-hand side at `s` (and at states that differ in the velocities) allocates
/// nothing once it has run.
void expectRightHandSideAllocatesNothing(const Model& m, std::shared_ptr<ClosedLoop> loop, const State& s) {
  const InputHold every_call(m, loop, 0.0);
  DynamicsRhs rhs = makeRhs(m, every_call, 0.0);
  VecX z = joinState(s);
  VecX dz(z.size());
  for (int k = 0; k < 3; ++k) rhs(z, dz, 0.001 * k);  // warm-up: sizes everything
  EXPECT_EQ(allocationsDuring([&] {
              for (int k = 3; k < 20; ++k) {
                z.tail(m.nxi).array() += 1e-3;
                rhs(z, dz, 0.001 * k);
              }
            }),
            0);
  EXPECT_TRUE(dz.allFinite());
}

/// The same where the right-hand side takes the shared plant rates.
void expectSharedRightHandSideAllocatesNothing(const Model& m, std::shared_ptr<ClosedLoop> loop, const State& s) {
  const InputHold every_call(m, loop, 0.0);
  VecX xdot(m.nx), xidot(m.nxi);
  VecX u(m.numInputs());
  every_call.evaluate(0.0, s, u);
  ASSERT_TRUE(every_call.plantRate(s, u, 0.0, xdot, xidot));  // the path under test is the shared one
  expectRightHandSideAllocatesNothing(m, loop, s);
}

// A closed loop's right-hand side: reference sample, prototype controller with its allocation, and
// the plant's rates handed over from the controller's evaluation (issue 21, item 2).
TEST(NoAllocation, ClosedLoopRightHandSideWithSharedRatesAllocatesNothing) {
  const Model m = test::actuatedPlanarBody(3.0);
  auto loop = std::make_shared<ClosedLoop>(
      makeController(m, {"prototype_body", {{"mbar", 1}, {"dbar", 4}, {"kbar", 4}}, {}}),
      std::make_unique<test::SpinningReference>());
  State s = m.initial_state;
  s.x[1] = 0.4;
  expectSharedRightHandSideAllocatesNothing(m, loop, s);
}

// The same with the allocation by inverse dynamics (one joint effort per coordinate): the
// Newton–Euler pass, the reference's joint motions and the template's cached moments.
TEST(NoAllocation, InverseDynamicsAllocationAllocatesNothing) {
  const Model m = test::sevenDofArm();
  State s = m.initial_state;
  for (int i = 0; i < m.nxi; ++i) s.x[i] = 0.1 * (i + 1), s.xi[i] = 0.2 - 0.05 * i;
  auto loop = std::make_shared<ClosedLoop>(
      makeController(m, {"prototype_body", {}, {{"template", "joints"}}}),
      std::make_unique<test::HeldPose>(VecX::Constant(m.nx, 0.3), m.nxi));
  expectSharedRightHandSideAllocatesNothing(m, loop, s);
  EXPECT_TRUE(dynamic_cast<const PrototypeController&>(loop->controller()).allocatedByInverseDynamics());
}

// tiltrotor_inversion: the base template as a root-joint pair (no body Jacobians), the desired base
// force by the Newton–Euler pass with the damper's and the external wrench's forces, the joints'
// diagonal of M for the tilt torques and motors, and the (5.28) inversion per arm.
TEST(NoAllocation, TiltrotorInversionAllocatesNothing) {
  const Model m = test::torqueTiltedTricopter();
  auto loop = std::make_shared<ClosedLoop>(makeController(m, {"tiltrotor_inversion", {}, {}}),
                                           std::make_unique<test::HeldPose>(m.initial_state.x, m.nxi));
  State s = m.initial_state;
  s.xi.head<6>() << 0.1, -0.2, 0.05, 0.3, -0.1, 0.2;
  expectRightHandSideAllocatesNothing(m, loop, s);
  EXPECT_TRUE(loop->controller().message().empty()) << loop->controller().message();
}

// The same with recovery, falling fast after the supervisor left the manoeuvre: (5.28) leaves the
// arms' limits and the lexicographic QP over the arms' polygons takes over (docs/CONTROL.md
// "Recovery", "Tilting rotors").
TEST(NoAllocation, TiltrotorPrioritizedInversionAllocatesNothing) {
  const Model m = test::torqueTiltedTricopter();
  std::unique_ptr<Controller> controller = makeController(m, {"tiltrotor_inversion", {}, {{"recovery", "on"}}});
  Recovery* supervisor = controller->recovery();
  ASSERT_NE(supervisor, nullptr);
  auto loop = std::make_shared<ClosedLoop>(std::move(controller), std::make_unique<test::HeldPose>(m.initial_state.x, m.nxi));
  loop->setReferenceFactory(
      [&m](const ReferenceRetiming&) { return std::make_unique<test::HeldPose>(m.initial_state.x, m.nxi); });
  State away = m.initial_state;
  away.x[0] += 2.0;
  ASSERT_TRUE(supervisor->supervise(0.0, away));
  ASSERT_EQ(supervisor->phase(), RecoveryPhase::Stabilizing);
  State s = m.initial_state;
  s.xi.head<6>() << 0.1, -0.2, -15.0, 2.0, -1.5, 0.2;
  expectRightHandSideAllocatesNothing(m, loop, s);
  EXPECT_TRUE(loop->controller().message().empty()) << loop->controller().message();
}

}  // namespace
}  // namespace rbs

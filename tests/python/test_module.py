"""The rbsim Python module against rbsim-cli and against the physics it wraps."""
import csv
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import rbsim


def read_cli_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    data = np.array([[float(v) for v in row] for row in body])
    return header, data


@pytest.mark.parametrize(
    "scene, t_end, extra",
    [
        ("quadcopter_looping.yaml", 2.0, {}),
        ("robot_arm_6r.yaml", 1.0, {"controller.kbar": 20.5}),
        ("tricopter_suspended_load.yaml", 1.0, {}),
    ],
)
def test_a_run_equals_rbsim_cli_run_bit_for_bit(scenes, rbsim_cli, tmp_path, scene, t_end, extra):
    out = tmp_path / "cli.csv"
    command = [rbsim_cli, "run", str(scenes / scene), "--out", str(out), "--t-end", repr(t_end), "--quiet"]
    for path, value in extra.items():
        command += ["--set", f"{path}={value!r}"]
    subprocess.run(command, check=True)
    header, cli = read_cli_csv(out)

    result = rbsim.load(scenes / scene, set=extra).run(t_end=t_end)
    assert result.ok, result.message
    assert header == ["t"] + result.names
    assert len(result) == cli.shape[0] > 100
    assert np.array_equal(result.t, cli[:, 0])
    assert np.array_equal(result.values, cli[:, 1:], equal_nan=True)
    # The same through run(set=...) on the unchanged scene.
    again = rbsim.load(scenes / scene).run(t_end=t_end, set=extra)
    assert np.array_equal(again.values, result.values, equal_nan=True)


def test_channels_carry_names_units_and_columns(scenes):
    result = rbsim.load(scenes / "quadcopter_looping.yaml").run(t_end=0.5, dt_out=0.01)
    assert len(result) == 51
    assert result.unit("body.base.px") == "m"
    assert result.unit("energy.total") == "J"
    column = result.names.index("energy.total")
    assert np.array_equal(result["energy.total"], result.values[:, column])
    assert "error.position" in result
    with pytest.raises(KeyError, match="no channel 'energy.totl'"):
        result["energy.totl"]
    frame = result.to_pandas()
    assert list(frame.columns) == result.names
    assert np.array_equal(frame.index.to_numpy(), result.t)
    assert np.array_equal(frame["body.base.pz"].to_numpy(), result["body.base.pz"])


def test_a_broken_scene_raises_scene_error_with_file_line_and_column(tmp_path, scenes):
    broken = tmp_path / "broken.yaml"
    text = (scenes / "double_pendulum.yaml").read_text()
    lines = text.splitlines()
    # A key the loader does not know, on a line of its own at the top level.
    lines.insert(2, "integrator_typo: 3")
    broken.write_text("\n".join(lines) + "\n")
    with pytest.raises(rbsim.SceneError) as caught:
        rbsim.load(broken)
    e = caught.value
    assert e.file == str(broken)
    assert e.line == 3
    assert e.column == 1
    assert "integrator_typo" in e.message
    assert str(e).startswith(f"{broken}:3:1:")
    assert isinstance(e, ValueError)

    with pytest.raises(rbsim.SceneError, match="no such file"):
        rbsim.load(tmp_path / "missing.yaml")
    with pytest.raises(rbsim.SceneError) as bad_set:
        rbsim.load(scenes / "double_pendulum.yaml", set={"joint.nothere.position": 1.0})
    assert "nothere" in bad_set.value.message


def test_bad_run_settings_raise_value_errors(scenes):
    scene = rbsim.load(scenes / "quadcopter.yaml")
    with pytest.raises(ValueError, match="unknown integrator 'rk5'"):
        scene.run(t_end=0.1, integrator="rk5")
    with pytest.raises(ValueError, match="adaptive"):
        scene.run(t_end=0.1, rtol=1e-6)
    with pytest.raises(rbsim.SceneError, match="unknown controller 'pd'"):
        scene.run(t_end=0.1, controller="pd")


def test_a_diverging_run_is_a_result_with_its_message(scenes):
    result = rbsim.load(scenes / "motivation_gimbal_lock.yaml").run()
    assert not result.ok
    assert result.message
    assert 0 < result.t[-1] < rbsim.load(scenes / "motivation_gimbal_lock.yaml").integrator["t_end"]
    with pytest.raises(rbsim.SimulationError):
        result.check()


def test_four_threads_give_the_numbers_of_a_sequential_run(scenes):
    scene = rbsim.load(scenes / "quadcopter_looping.yaml")
    poles = [2.0, 2.5, 3.0, 3.5]
    sequential = [scene.run(t_end=1.5, set={"controller.pole": p}).values for p in poles]
    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(lambda p: scene.run(t_end=1.5, set={"controller.pole": p}).values, poles))
    for a, b in zip(sequential, threaded):
        assert np.array_equal(a, b, equal_nan=True)
    assert not np.array_equal(sequential[0], sequential[1])  # the pole matters


def test_a_run_releases_the_gil(scenes):
    # While a run goes on in another thread, this thread keeps executing Python. With the GIL held
    # through the run it could count only until the interpreter's switch interval (0.1 ms here)
    # handed the GIL to the run, a few thousand steps at most, then nothing until the run returned.
    scene = rbsim.load(scenes / "robot_arm_6r.yaml")
    started, done = threading.Event(), threading.Event()

    def work():
        started.set()
        scene.run(t_end=3.0)
        done.set()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        worker = threading.Thread(target=work)
        worker.start()
        started.wait()
        counted = 0
        while not done.is_set():
            counted += 1
        worker.join()
    finally:
        sys.setswitchinterval(interval)
    assert counted > 100_000


def test_model_level_dynamics_agree_with_the_energy_and_gravity(scenes):
    model = rbsim.load(scenes / "robot_arm_6r.yaml").model()
    assert model.nx == len(model.x_names) and model.nxi == len(model.xi_names)
    assert model.nu == len(model.input_names) == 6
    rng = np.random.default_rng(3)
    x = model.initial_x + 0.3 * rng.standard_normal(model.nx)  # revolute joints: any angle is valid
    xi = rng.standard_normal(model.nxi)
    M = model.mass_matrix(x)
    assert np.allclose(M, M.T, atol=1e-14)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    assert model.energies(x, xi)["kinetic"] == pytest.approx(0.5 * xi @ M @ xi, rel=1e-12)
    # M xi_dot = f(u) is affine in u: two inputs, the difference is M^-1 B du with B from a third.
    u = rng.standard_normal(model.nu)
    a0 = model.forward_dynamics(x, xi)
    a1 = model.forward_dynamics(x, xi, u)
    a2 = model.forward_dynamics(x, xi, 2 * u)
    assert np.allclose(a2 - a0, 2 * (a1 - a0), rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="x has 2 values"):
        model.forward_dynamics([0.0, 1.0], xi)
    with pytest.raises(ValueError, match="u has 1 values"):
        model.forward_dynamics(x, xi, [1.0])


def _so3_log(R):
    """The rotation vector of R (angles below pi)."""
    angle = np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))
    w = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]]) / 2
    return w if angle < 1e-12 else w * angle / np.sin(angle)


def test_the_model_api_agrees_with_forward_dynamics_and_finite_differences(scenes):
    """Issue 48: bias forces, gravity, the input matrix, inverse dynamics, body and point Jacobians
    and J_dot xi, checked against the forward dynamics (M xi_dot + b = B u) and central differences
    along a motion (the arm's joints are angles: x = q, x_dot = xi)."""
    model = rbsim.load(scenes / "robot_arm_6r.yaml").model()
    rng = np.random.default_rng(7)
    x = model.initial_x + 0.4 * rng.standard_normal(model.nx)
    xi = rng.standard_normal(model.nxi)
    u = rng.standard_normal(model.nu)
    xi_dot = model.forward_dynamics(x, xi, u)
    M, b, B = model.mass_matrix(x), model.bias_forces(x, xi), model.input_matrix(x)
    assert np.allclose(M @ xi_dot + b, B @ u, rtol=1e-10, atol=1e-10)
    assert np.allclose(model.inverse_dynamics(x, xi, xi_dot), B @ u, rtol=1e-10, atol=1e-10)
    # f_G = dV_G/dq (the arm has no springs; its joint dampers vanish at rest)
    h = 1e-6
    for k in range(model.nx):
        e = np.zeros(model.nx)
        e[k] = h
        dV = (model.energies(x + e, xi)["gravitational"] - model.energies(x - e, xi)["gravitational"]) / (2 * h)
        assert model.gravity_forces(x)[k] == pytest.approx(dV, abs=1e-6)
    assert np.allclose(model.bias_forces(x, np.zeros(model.nxi)), model.gravity_forces(x), atol=1e-12)
    # Jacobians: the motion x(t) = x + t xi, differences at t = -h, +h
    point = np.array([0.02, -0.01, 0.05])
    for body in ("upper_arm", "flange"):
        R0, r0 = model.body_pose(x, body)
        Rp, rp = model.body_pose(x + h * xi, body)
        Rm, rm = model.body_pose(x - h * xi, body)
        v_world = (rp - rm) / (2 * h)
        w_world = _so3_log(Rp @ Rm.T) / (2 * h)
        J = model.body_jacobian(x, body)
        assert np.allclose(J @ xi, np.concatenate([v_world, w_world]), atol=1e-6)
        Jb = model.body_jacobian(x, body, frame="body")
        assert np.allclose(Jb @ xi, np.concatenate([R0.T @ v_world, R0.T @ w_world]), atol=1e-6)
        p_dot = ((Rp @ point + rp) - (Rm @ point + rm)) / (2 * h)
        assert np.allclose(model.point_jacobian(x, body, point) @ xi, p_dot, atol=1e-6)
        # J_dot xi: the change of the body twist J_b(x) xi along the motion, xi held
        twist_rate = (model.body_jacobian(x + h * xi, body, "body") @ xi
                      - model.body_jacobian(x - h * xi, body, "body") @ xi) / (2 * h)
        assert np.allclose(model.body_bias_acceleration(x, xi, body), twist_rate, atol=1e-5)
    assert model.constraint_jacobian(x).shape == (0, model.nxi)
    with pytest.raises(ValueError, match="no body named 'hand'; the bodies are 'pedestal'"):
        model.body_jacobian(x, "hand")
    with pytest.raises(ValueError, match="frame is 'world' or 'body'"):
        model.body_jacobian(x, "flange", "tool")


def test_constraint_forces_lie_in_the_range_of_the_constraint_jacobian(scenes):
    """A closed chain: the forward dynamics keep Z xi_dot on the closure's rows, and what M xi_dot +
    b − B u leaves over is a constraint force Z^T mu."""
    model = rbsim.load(scenes / "four_bar_linkage.yaml").model()
    x, xi = model.initial_x, model.initial_xi
    Z = model.constraint_jacobian(x)
    assert Z.shape[0] > 0 and Z.shape[1] == model.nxi
    u = np.zeros(model.nu)
    rest = model.inverse_dynamics(x, xi, model.forward_dynamics(x, xi, u)) - model.input_matrix(x) @ u
    mu, *_ = np.linalg.lstsq(Z.T, rest, rcond=None)
    assert np.linalg.norm(Z.T @ mu - rest) <= 1e-8 * max(1.0, np.linalg.norm(rest))
    assert np.linalg.norm(rest) > 1e-6  # the closure does push


def test_a_free_body_falls_with_gravity(scenes):
    model = rbsim.load(scenes / "quadcopter.yaml").model()
    xidot = model.forward_dynamics(model.initial_x, np.zeros(model.nxi))
    assert xidot[2] == pytest.approx(-9.81, abs=1e-12)


def test_stepwise_runs_equal_a_whole_run_and_parameters_change_between_steps(scenes):
    scene = rbsim.load(scenes / "quadcopter_looping.yaml")
    whole = scene.run(t_end=2.0)
    sim = rbsim.Simulator(scene)
    for t in (0.5, 1.0, 1.25, 2.0):
        assert sim.advance_to(t)
    assert sim.time == 2.0
    assert np.array_equal(sim.recording().values, whole.values, equal_nan=True)
    assert sim.x.shape == (12,) and sim.xi.shape == (6,)

    parameters = {p["name"]: p for p in sim.parameters()}
    pole = parameters["pole"]
    assert pole["min"] <= pole["value"] <= pole["max"]
    sim.restart()
    sim.advance_to(1.0)
    sim.set_parameter("pole", pole["value"] * 1.5)
    assert {p["name"]: p["value"] for p in sim.parameters()}["pole"] == pole["value"] * 1.5
    sim.advance_to(2.0)
    changed = sim.recording()
    k = int(np.searchsorted(changed.t, 1.0))
    assert np.array_equal(changed.values[: k + 1], whole.values[: k + 1], equal_nan=True)
    assert not np.array_equal(changed["error.position"][k + 10:], whole["error.position"][k + 10:])
    with pytest.raises(ValueError, match="no parameter 'pol'"):
        sim.set_parameter("pol", 1.0)
    with pytest.raises(ValueError):
        sim.set_parameter("pole", pole["max"] * 10 + 1)


def test_parameters_carry_ranges_units_and_defaults(scenes):
    for p in rbsim.load(scenes / "robot_arm_6r.yaml").parameters():
        assert p["min"] <= p["default"] <= p["max"], p
        assert p["min"] <= p["value"] <= p["max"], p
        assert p["scale"] in ("linear", "log") and p["kind"] in ("real", "toggle", "choice")
        assert isinstance(p["unit"], str) and p["description"]
    assert rbsim.load(scenes / "double_pendulum.yaml").parameters() == []


def test_set_takes_numpy_values_and_fails_at_load_at_the_entry(scenes):
    """Issue 48: `set=` read a numpy array as one element; a controller parameter a `set` entry
    names wrongly (the module docstring's own example, `controller.omega`) loaded and failed only
    at run(), at the scene's controller line; set_parameter could not set a choice by name; going
    back with advance_to returned True."""
    looping = scenes / "quadcopter_looping.yaml"
    with pytest.raises(rbsim.SceneError, match=r"set controller\.omega=3: controller: unknown controller parameter"):
        rbsim.load(looping, set={"controller.omega": 3})
    with pytest.raises(rbsim.SceneError, match=r"set controller\.pole=-3\.0: .*outside its range"):
        rbsim.load(looping, set={"controller.pole": -3.0})
    scene = rbsim.load(looping, set={"gravity": np.array([0.0, 0.0, -9.0]), "controller.pole": np.float64(6),
                                     "integrator.drift": "project"})
    assert scene.overrides == ["gravity=[0.0, 0.0, -9.0]", "controller.pole=6.0", "integrator.drift=project"]
    at_rest = scene.model().forward_dynamics(scene.model().initial_x, np.zeros(scene.model().nxi))
    assert at_rest[2] == pytest.approx(-9.0, abs=1e-12)  # no thrust at zero input: the set gravity
    sim = rbsim.Simulator(scene)
    assert sim.advance_to(0.1)
    with pytest.raises(ValueError, match="goes forward only"):
        sim.advance_to(0.05)
    sim.set_parameter("allocation", "constrained")
    assert next(p["value"] for p in sim.parameters() if p["name"] == "allocation") == 1.0
    with pytest.raises(ValueError, match="no choice 'fastest'; its choices: least_squares, constrained"):
        sim.set_parameter("allocation", "fastest")


def test_the_version_is_the_programs(rbsim_cli):
    version = subprocess.run([rbsim_cli, "--version"], capture_output=True, text=True, check=True).stdout
    assert version.splitlines()[0] == f"rbsim-cli {rbsim.__version__}"
    assert rbsim.__version__.count(".") == 2



def test_the_type_declarations_name_what_the_compiled_module_has():
    """python/rbsim/_rbsim.pyi (the type declarations for type checkers and editors) lists every
    function and class of the compiled module with every public member, and nothing it lacks."""
    import ast
    import inspect
    import pathlib

    declarations_file = pathlib.Path(rbsim.__file__).with_name("_rbsim.pyi")
    assert declarations_file.exists() and pathlib.Path(rbsim.__file__).with_name("py.typed").exists()
    tree = ast.parse(declarations_file.read_text())
    declared = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            declared[node.name] = None
        elif isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name != "__init__":
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            declared[node.name] = members
    module = rbsim._rbsim
    native = {}
    for name in dir(module):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if inspect.isclass(value):
            inherited = set(dir(ValueError)) if issubclass(value, Exception) else set()
            native[name] = {a for a in dir(value) if not a.startswith("_") and a not in inherited}
            if issubclass(value, Exception):
                native[name] |= {"file", "line", "column", "message"}  # set on each instance
        else:
            native[name] = None
    assert declared == native


def test_a_merged_links_frame_pose_is_where_its_joint_puts_it(tmp_path):
    """A link fixed to a moving one is merged into its body and kept as a named frame: its pose
    is the body's times its fixed joint, here a tool 0.2 m out and 0.1 m up on a link turning about
    z, itself turned a quarter turn about z."""
    urdf = tmp_path / "tool.urdf"
    urdf.write_text("""<robot name="r"><link name="world"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <joint name="turn" type="continuous"><parent link="world"/><child link="arm"/><axis xyz="0 0 1"/></joint>
  <joint name="bolt" type="fixed"><parent link="arm"/><child link="tool"/><origin xyz="0.2 0 0.1" rpy="0 0 1.5707963267948966"/></joint>
</robot>""")
    model = rbsim.load(urdf).model()
    assert model.frame_names == ["tool"]
    q = 0.7
    R, r = model.frame_pose([q], "tool")
    assert np.allclose(r, [0.2 * np.cos(q), 0.2 * np.sin(q), 0.1], atol=1e-14)
    c, s = np.cos(q + np.pi / 2), np.sin(q + np.pi / 2)
    assert np.allclose(R, [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-14)
    R_arm, r_arm = model.frame_pose([q], "arm")  # a body's own frame by its name
    assert np.allclose(r_arm, 0) and np.allclose(R_arm, model.body_pose([q], "arm")[0])
    with pytest.raises(ValueError, match="no frame or body named 'hand'; there are 'arm', 'tool'"):
        model.frame_pose([q], "hand")


def test_forward_dynamics_limits_the_inputs_as_a_run_does(scenes):
    """Issue 48: forward_dynamics(u) took u beyond the actuators' effort limits, which runs clamp.
    By default it clamps too (the arm's wrist, tau6 ≤ 10 N m: 25 N m acts as 10); limits=False
    takes u as given."""
    model = rbsim.load(scenes / "robot_arm_6r.yaml").model()
    x, xi = model.initial_x, np.zeros(model.nxi)
    at_limit, beyond = np.zeros(model.nu), np.zeros(model.nu)
    at_limit[5], beyond[5] = 10.0, 25.0
    assert np.array_equal(model.forward_dynamics(x, xi, beyond), model.forward_dynamics(x, xi, at_limit))
    raw = model.forward_dynamics(x, xi, beyond, limits=False)
    rest = model.forward_dynamics(x, xi)
    assert np.allclose(raw - rest, 2.5 * (model.forward_dynamics(x, xi, at_limit) - rest), rtol=1e-10, atol=1e-9)

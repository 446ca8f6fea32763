"""rbsim from Python: load a scene, run it, read its channels as numpy arrays.

    import rbsim
    scene = rbsim.load("scenes/quadcopter_looping.yaml", set={"controller.pole": 6.0})
    result = scene.run(t_end=5.0)
    result["error.position"]          # numpy array, one value per sample
    result.t, result.values           # times and the (samples x channels) matrix

The numbers come from the same C++ code as rbsim-cli and the GUI (sim/scene_run.h), so
`scene.run(...)` equals `rbsim-cli run` bit for bit. Runs release the GIL: threads run several
simulations at once. docs/PYTHON.md has the whole interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from . import _rbsim

SceneError = _rbsim.SceneError
"""A scene or URDF that cannot be loaded or run: `file`, `line`, `column` (1-based, 0 when
unknown) and `message` say where and what; str(error) is FILE:LINE:COLUMN: message."""

__version__ = _rbsim.version()
"""rbsim's version, as `rbsim-cli --version` and the study results record it."""

__all__ = ["load", "Scene", "Result", "Channel", "Simulator", "Model", "SceneError", "SimulationError"]


class SimulationError(RuntimeError):
    """A run that stopped early, raised by Result.check() (the result itself keeps the samples)."""


def _assignments(settings: Mapping[str, object] | None) -> list[str]:
    """{"controller.pole": 6} -> ["controller.pole=6"], the scene's --set syntax."""
    if not settings:
        return []
    return [f"{path}={_setting_text(value)}" for path, value in settings.items()]


def _setting_text(value) -> str:
    """A value in the --set syntax: numbers (Python or numpy) as the shortest text that reads back
    as the same double, booleans as true/false, lists, tuples and numpy arrays as [a, b, …]
    (nested for matrices), strings as they are (a choice, a file name)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    elif isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_setting_text(v) for v in value) + "]"
    return str(value)


@dataclass(frozen=True)
class Channel:
    name: str
    unit: str
    description: str


class Result:
    """The samples of one run: `t` (n,), `values` (n, channels), `channels` (names, units,
    descriptions); result["name"] is one channel's column."""

    def __init__(self, data: dict):
        self.t: np.ndarray = data["t"]
        self.values: np.ndarray = data["values"]
        self.channels: list[Channel] = [
            Channel(n, u, d) for n, u, d in zip(data["names"], data["units"], data["descriptions"])
        ]
        self._index = {c.name: i for i, c in enumerate(self.channels)}
        self.ok: bool = data.get("ok", True)
        self.message: str = data.get("message", "")
        self.stats: dict = data.get("stats", {})
        self.controller: str = data.get("controller", "")
        self.dropped: int = data.get("dropped", 0)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.channels]

    def __contains__(self, name: str) -> bool:
        return name in self._index

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.values[:, self._index[name]]
        except KeyError:
            close = [n for n in self._index if name.split(".")[-1] in n][:5]
            hint = f"; similar: {', '.join(close)}" if close else ""
            raise KeyError(f"no channel '{name}' ({len(self.channels)} channels){hint}") from None

    def unit(self, name: str) -> str:
        return self.channels[self._index[name]].unit

    def check(self) -> "Result":
        """Raises SimulationError when the run stopped early; returns self otherwise."""
        if not self.ok:
            raise SimulationError(self.message)
        return self

    def to_pandas(self):
        """A pandas DataFrame indexed by t (pandas is optional: ImportError without it)."""
        import pandas as pd

        frame = pd.DataFrame(self.values, columns=self.names)
        frame.index = pd.Index(self.t, name="t")
        return frame

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        end = f"{self.t[-1]:g} s" if len(self.t) else "empty"
        state = "ok" if self.ok else f"stopped: {self.message}"
        return f"<rbsim.Result {len(self.t)} samples to {end}, {len(self.channels)} channels, {state}>"


class Model:
    """A scene's model for your own loops: sizes, coordinate names and the dynamics at a state.
    Each Model has its own workspace: use one per thread."""

    def __init__(self, native):
        self._m = native

    nx = property(lambda self: self._m.nx, doc="number of configuration coordinates x")
    nxi = property(lambda self: self._m.nxi, doc="number of velocity coordinates xi")
    nu = property(lambda self: self._m.nu, doc="number of inputs u")
    x_names = property(lambda self: self._m.x_names, doc="joint.J.COORD for every entry of x")
    xi_names = property(lambda self: self._m.xi_names, doc="joint.J.COORD for every entry of xi")
    input_names = property(lambda self: self._m.input_names)
    body_names = property(lambda self: self._m.body_names)
    frame_names = property(lambda self: self._m.frame_names,
                           doc="named frames on bodies: URDF links merged into the body they are fixed to")
    initial_x = property(lambda self: self._m.initial_x)
    initial_xi = property(lambda self: self._m.initial_xi)

    def forward_dynamics(self, x, xi, u=None, limits: bool = True) -> np.ndarray:
        """xi_dot at (x, xi) with inputs u (default 0), each clamped to its actuator's limits and
        projected onto the input sets as a run does (limits=False: u as given). RuntimeError for a
        singular mass matrix or a non-finite result."""
        return self._m.forward_dynamics(np.asarray(x, float), np.asarray(xi, float),
                                        None if u is None else np.asarray(u, float), limits)

    def mass_matrix(self, x) -> np.ndarray:
        """M(x) (n x n), symmetric positive definite: the kinetic energy is xi^T M xi / 2."""
        return self._m.mass_matrix(np.asarray(x, float))

    def energies(self, x, xi) -> dict:
        """kinetic, gravitational, elastic, potential, total [J]."""
        return self._m.energies(np.asarray(x, float), np.asarray(xi, float))

    def bias_forces(self, x, xi) -> np.ndarray:
        """b(x, xi) = c + f_G + f_K + f_D - f_E(x, xi, 0) (n): Coriolis, centrifugal and gyroscopic
        forces, gravity, springs, dampers, less what acts without inputs (propeller drag, servos'
        state terms), so that M xi_dot + b = B u, plus Z^T mu with loop closures."""
        return self._m.bias_forces(np.asarray(x, float), np.asarray(xi, float))

    def gravity_forces(self, x) -> np.ndarray:
        """f_G(x) (n), the gradient of the gravitational energy along xi (part of bias_forces)."""
        return self._m.gravity_forces(np.asarray(x, float))

    def input_matrix(self, x) -> np.ndarray:
        """B(x) (n x nu): the generalized force of the inputs u is B u."""
        return self._m.input_matrix(np.asarray(x, float))

    def inverse_dynamics(self, x, xi, xi_dot) -> np.ndarray:
        """M(x) xi_dot + b(x, xi) (n): the generalized force (inputs and constraint forces) that
        gives the accelerations xi_dot; recursive Newton-Euler, no M formed."""
        return self._m.inverse_dynamics(np.asarray(x, float), np.asarray(xi, float), np.asarray(xi_dot, float))

    def body_pose(self, x, body: str):
        """(R, r): the world rotation and position of the body's frame."""
        return self._m.body_pose(np.asarray(x, float), body)

    def frame_pose(self, x, frame: str):
        """(R, r): the world rotation and position of a named frame (frame_names) or a body's frame."""
        return self._m.frame_pose(np.asarray(x, float), frame)

    def body_jacobian(self, x, body: str, frame: str = "world") -> np.ndarray:
        """J (6 x n): [v; omega] = J xi, the velocity of the body frame's origin and the angular
        velocity, in world axes (frame="world") or the body's (frame="body")."""
        return self._m.body_jacobian(np.asarray(x, float), body, frame)

    def point_jacobian(self, x, body: str, point) -> np.ndarray:
        """J (3 x n): the world velocity J xi of a point fixed in the body (body coordinates)."""
        return self._m.point_jacobian(np.asarray(x, float), body, np.asarray(point, float))

    def body_bias_acceleration(self, x, xi, body: str) -> np.ndarray:
        """J_dot xi (6), body axes: the body's acceleration [v_dot; omega_dot] (of its twist in its
        own axes) is body_jacobian(x, body, "body") xi_dot + this."""
        return self._m.body_bias_acceleration(np.asarray(x, float), np.asarray(xi, float), body)

    def constraint_jacobian(self, x) -> np.ndarray:
        """Z(x) (rows x n) of the loop closures and mimic couplings: their velocities are Z xi."""
        return self._m.constraint_jacobian(np.asarray(x, float))


class Scene:
    """A loaded scene (YAML or URDF). Immutable: run(set=...) loads a changed copy for that run."""

    def __init__(self, native):
        self._s = native

    name = property(lambda self: self._s.name)
    description = property(lambda self: self._s.description)
    file = property(lambda self: self._s.file)
    warnings = property(lambda self: self._s.warnings, doc="what loads but is not simulated as written")
    controller = property(lambda self: self._s.controller, doc="the scene's controller ('' without one)")
    integrator = property(lambda self: self._s.integrator, doc="the scene's integrator settings")
    overrides = property(lambda self: self._s.overrides, doc="the PATH=VALUE settings it was loaded with")

    def with_set(self, settings: Mapping[str, object]) -> "Scene":
        """The same file loaded again with more PATH=VALUE settings (docs/SCENE_FORMAT.md)."""
        return Scene(self._s.with_overrides(_assignments(settings)))

    def parameters(self, controller: str | None = None) -> list[dict]:
        """The controller's tunable parameters: name, unit, description, default, min, max,
        scale (linear/log), kind (real/toggle/choice), choices, value (as the scene sets it)."""
        return self._s.parameters(controller)

    def run(self, t_end: float | None = None, dt_out: float | None = None, integrator: str | None = None,
            controller: str | None = None, set: Mapping[str, object] | None = None,
            dt: float | None = None, rtol: float | None = None, atol: float | None = None) -> Result:
        """Simulates from the initial state to t_end (default: the scene's) and returns every
        sample. A run that stops early (divergence) returns what it simulated with ok=False and
        the message; result.check() raises it."""
        scene = self.with_set(set) if set else self
        return Result(scene._s.run(t_end=t_end, dt_out=dt_out, integrator=integrator, dt=dt,
                                   rtol=rtol, atol=atol, controller=controller))

    def model(self) -> Model:
        """The scene's model at its initial state, for your own loops: dynamics, Jacobians, poses.
        Each call makes a new Model with its own workspace (one per thread)."""
        return Model(self._s.model())

    def __repr__(self) -> str:
        return f"<rbsim.Scene {self.name!r} from {str(self.file)!r}>"


class Simulator:
    """A step-wise run: advance_to(t), read state and recording, change controller parameters
    between steps (as the GUI's sliders do), advance again."""

    def __init__(self, scene: Scene, dt_out: float | None = None, integrator: str | None = None,
                 controller: str | None = None, dt: float | None = None, rtol: float | None = None,
                 atol: float | None = None):
        self._sim = _rbsim.Simulator(scene._s, dt_out=dt_out, integrator=integrator, dt=dt, rtol=rtol,
                                     atol=atol, controller=controller)

    def advance_to(self, t: float) -> bool:
        """Integrates to t. False when the run stopped early (message says why); ValueError for a
        t before the run's time (restart() goes back to 0)."""
        return self._sim.advance_to(float(t))

    time = property(lambda self: self._sim.time)
    x = property(lambda self: self._sim.x)
    xi = property(lambda self: self._sim.xi)
    ok = property(lambda self: self._sim.ok)
    message = property(lambda self: self._sim.message)

    def recording(self) -> Result:
        data = self._sim.recording()
        data["ok"], data["message"] = self.ok, self.message
        data["stats"] = self._sim.stats()
        return Result(data)

    def parameters(self) -> list[dict]:
        return self._sim.parameters()

    def set_parameter(self, name: str, value) -> None:
        """A number, True/False for a toggle, or a choice's name ("constrained") for a choice.
        ValueError for an unknown name, an unknown choice or a value outside the range."""
        if isinstance(value, str):
            spec = next((p for p in self.parameters() if p["name"] == name), None)
            choices = list(spec["choices"]) if spec and spec.get("choices") else []
            if value not in choices:
                raise ValueError(f"parameter {name!r} has no choice {value!r}" +
                                 (f"; its choices: {', '.join(choices)}" if choices else ": it is not a choice"))
            value = choices.index(value)
        self._sim.set_parameter(name, float(value))

    def restart(self) -> None:
        """Back to t = 0 in the initial state (the parameters keep their values)."""
        self._sim.restart()


def load(path, set: Mapping[str, object] | None = None, floating: bool = False,
         package_paths: Iterable = ()) -> Scene:
    """Loads a scene file (.yaml) or a URDF robot (.urdf). `set`: PATH=VALUE settings as for
    rbsim-cli --set (numbers, booleans, strings, lists and numpy arrays); `floating`: a URDF's root
    on a free joint. Raises SceneError with the place; a controller parameter a `set` entry breaks
    (an unknown name, a value out of range) is reported at that entry."""
    return Scene(_rbsim.load(str(path), _assignments(set), floating, [str(p) for p in package_paths]))

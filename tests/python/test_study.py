"""Parameter studies: rbsim-cli study's local pool and the Dask runner give the same rows, and an
interrupted study resumes with no run lost or duplicated."""
import csv
import os
import signal
import subprocess
import sys
import time

import pytest

import rbsim
import rbsim.study
import rbsim.study_plot


def write_study(path, scenes, t_end=1.0, kbar=(10, 20, 30)):
    path.write_text(
        f"name: arm gains\n"
        f"scene: {scenes / 'robot_arm_6r.yaml'}\n"
        f"run: {{t_end: {t_end}, dt_out: 0.01}}\n"
        f"grid:\n"
        f"  controller.kbar: [{', '.join(str(k) for k in kbar)}]\n"
        f"  controller.dbar: [4, 8]\n"
        f"metrics:\n"
        f"  - {{name: peak_kinetic, channel: energy.kinetic, stat: max}}\n"
        f"  - {{channel: energy.total, stat: final}}\n"
        f"  - {{channel: power.input, stat: rms, from: 0.25}}\n"
    )
    return path


def rows(path):
    """The rows without wall_time (the one column that differs between runners), by run."""
    with open(path, newline="") as f:
        table = list(csv.reader(f))
    wall = table[0].index("wall_time")
    table = [r[:wall] + r[wall + 1:] for r in table]
    return table[0], table[1:]


def cli(rbsim_cli, *args, **kwargs):
    return subprocess.run([rbsim_cli, "study", *map(str, args)], capture_output=True, text=True, **kwargs)


def test_the_local_pool_and_a_dask_cluster_give_the_same_rows(tmp_path, scenes, rbsim_cli):
    study = write_study(tmp_path / "study.yaml", scenes)
    one = cli(rbsim_cli, study, "--out", tmp_path / "one.csv", "--jobs", 1)
    two = cli(rbsim_cli, study, "--out", tmp_path / "two.csv", "--jobs", 2)
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0, two.stderr
    assert "6 runs in '" + str(tmp_path / "two.csv") + "': 6 ok, 0 diverged, 0 errors (6 made now" in two.stderr

    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        counts = rbsim.study.run(study, tmp_path / "dask.csv", client=client, progress=False)
    assert counts == {"total": 6, "resumed": 0, "made": 6, "ok": 6, "diverged": 0, "error": 0}

    header, a = rows(tmp_path / "one.csv")
    assert rows(tmp_path / "two.csv") == (header, a)
    assert rows(tmp_path / "dask.csv") == (header, a)
    assert header[:6] == ["run", "point", "repetition", "seed", "controller.kbar", "controller.dbar"]
    assert [r[0] for r in a] == [str(i) for i in range(6)]
    assert all(r[header.index("status")] == "ok" for r in a)
    assert all(r[-3] == rbsim._rbsim.version() for r in a)
    assert header[-3:] == ["rbsim_version", "scene_hash", "study_hash"]
    # The metrics are those of a Python run with the same settings.
    result = rbsim.load(scenes / "robot_arm_6r.yaml", set={"controller.kbar": 20, "controller.dbar": 8}).run(
        t_end=1.0, dt_out=0.01)
    run3 = a[3]
    assert (run3[4], run3[5]) == ("20", "8")
    assert float(run3[header.index("peak_kinetic")]) == result["energy.kinetic"].max()
    assert float(run3[header.index("final.energy.total")]) == result["energy.total"][-1]


def test_an_interrupted_study_resumes_with_no_run_lost_or_duplicated(tmp_path, scenes, rbsim_cli):
    study = write_study(tmp_path / "study.yaml", scenes, t_end=3.0, kbar=(5, 10, 15, 20, 25, 30))
    out = tmp_path / "results.csv"
    process = subprocess.Popen([rbsim_cli, "study", str(study), "--out", str(out), "--jobs", "2"],
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # Ctrl-C once some runs are written
        if out.exists() and len(out.read_text().splitlines()) >= 4:
            break
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "run the same command to resume" in err
    header, partial = rows(out)
    assert 3 <= len(partial) < 12
    assert len({r[0] for r in partial}) == len(partial)

    resumed = cli(rbsim_cli, study, "--out", out, "--jobs", 2)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {len(partial)} of 12 runs" in resumed.stderr
    header, done = rows(out)
    assert [r[0] for r in done] == [str(i) for i in range(12)]  # each run once, in order
    for r in partial:
        assert r in done  # the finished runs were kept as they were

    fresh = cli(rbsim_cli, study, "--out", tmp_path / "fresh.csv", "--jobs", 1)
    assert fresh.returncode == 0, fresh.stderr
    assert rows(tmp_path / "fresh.csv") == (header, done)

    # The Dask runner resumes a partial file the same way (here: the first four rows).
    lines = out.read_text().splitlines(keepends=True)
    partial_dask = tmp_path / "dask.csv"
    partial_dask.write_text("".join(lines[:5]))
    env = dict(os.environ)
    finished = subprocess.run([sys.executable, "-m", "rbsim.study", str(study), "--out", str(partial_dask),
                               "--local", "2", "--quiet"], capture_output=True, text=True, env=env, timeout=600)
    assert finished.returncode == 0, finished.stderr
    assert rows(partial_dask) == (header, done)


def test_a_study_of_another_scene_version_is_not_mixed_in(tmp_path, scenes, rbsim_cli):
    scene = tmp_path / "arm.yaml"
    scene.write_text((scenes / "robot_arm_6r.yaml").read_text())
    study = tmp_path / "study.yaml"
    study.write_text(f"scene: arm.yaml\nrun: {{t_end: 0.2}}\ngrid: {{controller.kbar: [10, 20]}}\n"
                     f"metrics: [{{channel: energy.total}}]\n")
    out = tmp_path / "results.csv"
    assert cli(rbsim_cli, study, "--out", out).returncode == 0
    scene.write_text(scene.read_text() + "\n# changed\n")
    again = cli(rbsim_cli, study, "--out", out)
    assert again.returncode == 2
    assert "another version of the scene" in again.stderr


def test_a_broken_study_file_is_reported_at_its_line(tmp_path, scenes, rbsim_cli):
    study = tmp_path / "study.yaml"
    study.write_text(f"scene: {scenes / 'robot_arm_6r.yaml'}\nmetrics:\n  - {{channel: energy.totl}}\n")
    result = cli(rbsim_cli, study, "--out", tmp_path / "r.csv")
    assert result.returncode == 2
    assert f"{study}:3:5: metric 'rms.energy.totl': the scene has no channel 'energy.totl'" in result.stderr
    assert not (tmp_path / "r.csv").exists()
    with pytest.raises(rbsim.SceneError) as caught:
        rbsim.study.run(study, tmp_path / "r.csv", client=object())
    assert caught.value.line == 3


def test_the_pictures_show_each_metric_against_each_parameter_and_the_runs_that_finished(tmp_path, scenes, rbsim_cli):
    import matplotlib.image

    study = tmp_path / "study.yaml"
    study.write_text(
        f"scene: {scenes / 'quadcopter_looping.yaml'}\n"
        f"set: {{integrator.control_rate: 200, perturbation.noise.position: 0.002}}\n"
        f"run: {{t_end: 1.5, dt_out: 0.01}}\n"
        f"grid:\n  controller.pole: [6, 8]\n  perturbation.mass_scale: [0.9, 1.0, 1.1]\n"
        f"repetitions: {{count: 3, seed: perturbation.seed}}\n"
        f"metrics:\n  - {{name: rms_position, channel: error.position, stat: rms}}\n")
    out, pictures = tmp_path / "results.csv", tmp_path / "pictures"
    result = cli(rbsim_cli, study, "--out", out, "--jobs", 2, "--plot", pictures)
    assert result.returncode == 0, result.stderr
    names = sorted(p.name for p in pictures.iterdir())
    expected = ["rms_position_heat_controller_pole_perturbation_mass_scale",
                "rms_position_vs_controller_pole", "rms_position_vs_perturbation_mass_scale",
                "status_controller_pole_perturbation_mass_scale"]
    assert names == sorted(f"{n}.{ext}" for n in expected for ext in ("png", "pdf"))
    for n in expected:
        image = matplotlib.image.imread(pictures / f"{n}.png")
        assert image.shape[0] > 300 and image.shape[1] > 400
        assert image[..., :3].std() > 0.05  # not blank
        assert (pictures / f"{n}.pdf").read_bytes().startswith(b"%PDF")

    # A study with runs that cannot be made: its status picture shows the share that finished.
    bad = tmp_path / "bad.yaml"
    bad.write_text(f"scene: {scenes / 'robot_arm_6r.yaml'}\nrun: {{t_end: 0.2}}\n"
                   f"grid: {{controller.kbar: [-3, 10, 20]}}\nmetrics: [{{channel: energy.total}}]\n")
    failed = cli(rbsim_cli, bad, "--out", tmp_path / "bad.csv", "--plot", tmp_path / "bad")
    assert failed.returncode == 1  # error rows
    assert "3 runs in '" + str(tmp_path / "bad.csv") + "': 2 ok, 0 diverged, 1 errors" in failed.stderr
    results = rbsim.study_plot.StudyResults(tmp_path / "bad.csv")
    assert [r["status"] for r in results.rows] == ["error", "ok", "ok"]
    assert (tmp_path / "bad" / "status_controller_kbar.png").exists()
    with pytest.raises(ValueError, match="no metric nope"):
        rbsim.study.plot(tmp_path / "bad.csv", tmp_path / "x", metrics=["nope"])


def python_study(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "rbsim.study", *map(str, args)], capture_output=True, text=True,
                          **kwargs)


def free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class HandStartedCluster:
    """A Dask scheduler and workers started as a user would (`dask scheduler`, `dask worker`),
    each its own process; stopped when the `with` block ends."""

    def __init__(self):
        self.address = f"tcp://127.0.0.1:{free_port()}"
        self.processes = []

    def __enter__(self):
        self.processes.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
             "--port", self.address.rsplit(":", 1)[1], "--dashboard-address", ":0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(2.0)
        return self

    def add_worker(self):
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", self.address, "--nthreads", "1",
                                   "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.processes.append(worker)
        return worker

    def study(self, study, out):
        return subprocess.Popen([sys.executable, "-m", "rbsim.study", str(study), "--out", str(out),
                                 "--scheduler", self.address], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def __exit__(self, *exc):
        for p in self.processes:
            p.terminate()
        for p in self.processes:
            p.wait(timeout=30)


def test_a_hand_started_scheduler_and_workers_give_the_rows_of_the_local_pool(tmp_path, scenes, rbsim_cli):
    """Issue 48: `python3 -m rbsim.study --scheduler` turned every run into an error row ("Can't get
    attribute '_study' on <module '__main__' from '/usr/bin/dask'>": the task was pickled from
    __main__). A scheduler and two workers started as a user would, with no worker at first: the
    study says it waits, and once the workers join it gives the rows of rbsim-cli's pool and of
    --local bit for bit (wall_time aside)."""
    study = write_study(tmp_path / "study.yaml", scenes, t_end=0.5)
    pool = cli(rbsim_cli, study, "--out", tmp_path / "pool.csv", "--jobs", 2)
    assert pool.returncode == 0, pool.stderr
    local = python_study(study, "--out", tmp_path / "local.csv", "--local", 2)
    assert local.returncode == 0, local.stderr
    with HandStartedCluster() as cluster:
        runner = cluster.study(study, tmp_path / "dask.csv")
        time.sleep(4.0)  # no worker yet: it says so and waits
        cluster.add_worker()
        cluster.add_worker()
        _, err = runner.communicate(timeout=120)
    assert runner.returncode == 0, err
    assert "the scheduler has no worker; waiting for one (6 runs to go" in err
    assert "6 runs in " in err and ": 6 ok, 0 diverged, 0 errors (6 made now, 0 before)" in err
    reference = rows(tmp_path / "pool.csv")
    assert rows(tmp_path / "local.csv") == reference
    assert rows(tmp_path / "dask.csv") == reference


def test_a_local_cluster_in_another_process_gives_the_same_rows(tmp_path, scenes, rbsim_cli):
    """Issue 48: a LocalCluster started in another process (as in a notebook beside the shell)
    failed like the hand-started cluster; its scheduler's address now serves as any other."""
    study = write_study(tmp_path / "study.yaml", scenes, t_end=0.5)
    pool = cli(rbsim_cli, study, "--out", tmp_path / "pool.csv", "--jobs", 2)
    assert pool.returncode == 0, pool.stderr
    port = free_port()
    host = subprocess.Popen([sys.executable, "-c", f"""
import sys, time, distributed
with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, scheduler_port={port},
                              host="127.0.0.1", dashboard_address=None) as cluster:
    print("ready", flush=True)
    sys.stdin.read()  # until the test closes it
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert host.stdout.readline().strip() == "ready"
        result = python_study(study, "--out", tmp_path / "dask.csv", "--scheduler", f"tcp://127.0.0.1:{port}",
                              timeout=120)
    finally:
        host.stdin.close()
        host.wait(timeout=60)
    assert result.returncode == 0, result.stderr
    assert rows(tmp_path / "dask.csv") == rows(tmp_path / "pool.csv")


def test_killing_one_of_two_workers_loses_nothing(tmp_path, scenes, rbsim_cli):
    """Issue 48: a worker killed (SIGKILL) once the first rows are in: its runs go to the other
    worker, and the file holds every run, equal to rbsim-cli's (runs of about 0.3 s each)."""
    study = tmp_path / "study.yaml"
    study.write_text(f"scene: {scenes / 'quadcopter_table51.yaml'}\nrun: {{t_end: 6.0}}\n"
                     f"grid: {{controller.pole: [6, 7, 8, 9, 10, 11, 12, 13]}}\n"
                     f"metrics: [{{channel: error.position, stat: rms}}]\n")
    pool = cli(rbsim_cli, study, "--out", tmp_path / "pool.csv", "--jobs", 2)
    assert pool.returncode == 0, pool.stderr
    out = tmp_path / "dask.csv"
    with HandStartedCluster() as cluster:
        doomed = cluster.add_worker()
        cluster.add_worker()
        time.sleep(2.0)
        runner = cluster.study(study, out)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 2):
            time.sleep(0.05)
        rows_when_killed = len(out.read_text().splitlines()) - 1
        doomed.kill()
        _, err = runner.communicate(timeout=120)
    assert runner.returncode == 0, err
    assert 1 <= rows_when_killed < 8, "the worker was killed after the study's end"
    assert ": 8 ok, 0 diverged, 0 errors (8 made now" in err, err
    assert rows(out) == rows(tmp_path / "pool.csv")


def test_retry_errors_makes_the_failed_runs_again(tmp_path, scenes, rbsim_cli):
    """Issue 48: a results file with error rows was final ("540 runs (540 before): 0 ok, 0 diverged,
    0 errors", exit 0). The summary counts what the file holds and exits 1 while it holds errors;
    --retry-errors makes those runs again. Here run 1's row is the one a killed Dask worker leaves
    (Study.error_row); retried, both runners give back the row the study makes."""
    study = tmp_path / "study.yaml"
    study.write_text(f"scene: {scenes / 'robot_arm_6r.yaml'}\nrun: {{t_end: 0.2}}\n"
                     f"grid: {{controller.kbar: [10, 20]}}\nmetrics: [{{channel: energy.total}}]\n")
    for runner in ("cli", "python"):
        out = tmp_path / f"{runner}.csv"

        def go(*extra):
            if runner == "cli":
                return cli(rbsim_cli, study, "--out", out, *extra)
            return python_study(study, "--out", out, "--local", 1, *extra)

        assert go().returncode == 0
        made = rows(out)
        lines = out.read_text().splitlines()
        lines[2] = rbsim._rbsim.Study(str(study)).error_row(1, "the Dask task failed: KilledWorker")
        out.write_text("\n".join(lines) + "\n")
        again = go()
        assert again.returncode == 1, again.stderr
        assert ": 1 ok, 0 diverged, 1 errors (0 made now" in again.stderr, again.stderr
        assert "--retry-errors" in again.stderr
        retried = go("--retry-errors")
        assert retried.returncode == 0, retried.stderr
        assert ": 2 ok, 0 diverged, 0 errors (1 made now" in retried.stderr, retried.stderr
        assert rows(out) == made


def test_plots_take_empty_cells_keep_the_callers_backend_and_say_what_they_pool(tmp_path, scenes, rbsim_cli,
                                                                               monkeypatch):
    """Issue 48: --plot failed on a `list:` study whose points leave a column empty ("could not
    convert string to float: ''"); plot() switched matplotlib's backend (a notebook's later plots
    stopped showing); the all-finished status heat map was yellow (the middle of its scale); a
    picture titled "median over the repetitions" pooled the values of a third parameter."""
    import matplotlib
    import matplotlib.pyplot as plt

    listed = tmp_path / "list.yaml"
    listed.write_text(f"scene: {scenes / 'robot_arm_6r.yaml'}\nrun: {{t_end: 0.2}}\n"
                      f"list:\n  - {{controller.kbar: 10, controller.dbar: 4}}\n  - {{controller.kbar: 20}}\n"
                      f"  - {{controller.dbar: 8}}\nmetrics: [{{channel: energy.total}}]\n")
    result = cli(rbsim_cli, listed, "--out", tmp_path / "list.csv", "--plot", tmp_path / "list")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "list" / "rms_energy_total_vs_controller_kbar.png").exists()

    matplotlib.use("svg")  # the caller's choice (not the Agg that plot() draws with)
    before = matplotlib.get_backend()
    figure = plt.figure()
    grid = tmp_path / "grid.yaml"
    grid.write_text(f"scene: {scenes / 'robot_arm_6r.yaml'}\nrun: {{t_end: 0.2}}\n"
                    f"grid: {{controller.kbar: [10, 20], controller.dbar: [4, 8], perturbation.mass_scale: [1.0, 1.1]}}\n"
                    f"metrics: [{{channel: energy.total}}]\n")
    assert cli(rbsim_cli, grid, "--out", tmp_path / "grid.csv").returncode == 0
    titles = {}
    save = rbsim.study_plot._save

    def keep_title(fig, out_dir, name):
        titles[name] = fig.axes[0].get_title()
        save(fig, out_dir, name)

    monkeypatch.setattr(rbsim.study_plot, "_save", keep_title)
    rbsim.study.plot(tmp_path / "grid.csv", tmp_path / "grid")
    assert matplotlib.get_backend() == before
    assert plt.get_fignums() == [figure.number]
    plt.close(figure)
    # three varied parameters: four combinations of the other two, one line each
    assert "median" not in titles["rms_energy_total_vs_controller_kbar"]  # one run per point: no pooling
    assert titles["rms_energy_total_heat_controller_kbar_controller_dbar"].endswith("and perturbation.mass_scale")
    status = matplotlib.image.imread(tmp_path / "grid" / "status_controller_kbar_controller_dbar.png")
    h, w = status.shape[:2]
    r, g, b = status[h // 2, w // 3, :3]
    assert g > 0.3 and g > 2 * r, (r, g, b)  # green: every run finished

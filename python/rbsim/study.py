"""Parameter studies on a Dask cluster (docs/STUDIES.md).

    python3 -m rbsim.study STUDY.yaml --out results.csv --scheduler tcp://HOST:8786
    python3 -m rbsim.study STUDY.yaml --out results.csv --local 4     # a LocalCluster of 4 processes

Each run is one Dask task that calls the C++ evaluateStudyRun (sim/study_run.h), the function
`rbsim-cli study` runs in its worker processes: the two give the same rows bit for bit (wall_time
aside). Rows are appended as tasks finish; an interrupted study resumes on the next call; a
complete study is rewritten in run order; --retry-errors (--retry-diverged) makes the runs the file
holds as errors (diverged) again. The workers must be able to `import rbsim` (same PYTHONPATH and
build on every worker machine): the task is `rbsim.study.evaluate`, found by that name on the
workers also when this module runs as `python3 -m rbsim.study`. While the scheduler has no worker,
a line on stderr says so every 30 s (and the study waits for one; Ctrl-C keeps the finished runs).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time

from . import _rbsim
from .study_plot import plot  # noqa: F401  (rbsim.study.plot(results, out_dir): the pictures)


_WAIT_STEP = 1.0  # [s] how often the runner looks whether tasks finished or workers left
_NO_WORKER_NOTICE = 30.0  # [s] between the lines that say the scheduler has no worker


@functools.lru_cache(maxsize=8)
def _study(file: str, stamp: tuple) -> "_rbsim.Study":
    return _rbsim.Study(file)


def evaluate(file: str, index: int) -> str:
    """One run of a study as its CSV row (a Dask task). The study is parsed once per process and
    file version (a long-lived worker reads an edited study again)."""
    status = os.stat(file)
    return _study(file, (status.st_mtime_ns, status.st_size)).evaluate(index)


def _open_results(study, out: str, retry=()):
    done = study.completed(out, set(retry))
    new = not os.path.exists(out) or os.path.getsize(out) == 0
    f = open(out, "a", newline="")
    if new:
        f.write(study.header + "\n")
        f.flush()
    return f, done


def run(file, out, client=None, scheduler: str | None = None, progress: bool = True,
        retry=()) -> dict:
    """Runs the study's missing runs on a Dask cluster (an existing `client`, or one connected to
    `scheduler`) and writes them to `out`; the runs the file holds with a status in `retry`
    ("error", "diverged") are made again. Returns what the file then holds: total, ok, diverged,
    error, and how many runs were in it before (resumed) and were made now (made)."""
    import distributed

    file = os.path.abspath(str(file))
    out = str(out)
    study = _rbsim.Study(file)
    study.check()
    f, done = _open_results(study, out, retry)
    pending = [i for i in range(study.runs) if i not in done]
    own_client = client is None
    if own_client:
        client = distributed.Client(scheduler)
    start = time.monotonic()
    futures = client.map(evaluate, [file] * len(pending), pending, pure=False)
    index_of = {future.key: index for future, index in zip(futures, pending)}
    remaining, finished, last_notice = set(futures), 0, None
    try:
        while remaining:
            try:
                ready, remaining = distributed.wait(remaining, timeout=_WAIT_STEP, return_when="FIRST_COMPLETED")
            except TimeoutError:  # nothing finished within the step (distributed raises it)
                ready = set()
            if not ready:  # nothing finished: is anybody working?
                if not client.scheduler_info().get("workers"):
                    now = time.monotonic()
                    if last_notice is None or now - last_notice >= _NO_WORKER_NOTICE:
                        print(f"\npython3 -m rbsim.study: the scheduler has no worker; waiting for one "
                              f"({len(remaining)} runs to go; Ctrl-C stops, the finished runs are kept)",
                              file=sys.stderr, flush=True)
                        last_notice = now
                continue
            last_notice = None
            for future in ready:
                try:
                    row = future.result()
                except Exception as e:  # the task failed (its worker died): the run is an error row
                    row = study.error_row(index_of[future.key], f"the Dask task failed: {type(e).__name__}: {e}")
                if not row.endswith("," + study.hashes):
                    raise RuntimeError(f"a worker evaluated another version of {file} or its scene "
                                       f"(row ends {row.rsplit(',', 2)[1:]}, expected {study.hashes}); "
                                       "restart the workers or use the same files everywhere")
                f.write(row + "\n")
                f.flush()
                finished += 1
            if progress and sys.stderr.isatty():
                elapsed = time.monotonic() - start
                eta = elapsed / finished * (len(pending) - finished)
                print(f"\r{len(done) + finished}/{study.runs} runs  elapsed {elapsed:.0f}s  ETA {eta:.0f}s   ",
                      end="", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        client.cancel(futures)
        raise
    finally:
        f.close()
        if own_client:
            client.close()
    _rbsim.sort_study_results(out)
    held = _rbsim.study_status_counts(out)
    return {"total": study.runs, "resumed": len(done), "made": finished,
            "ok": held.get("ok", 0), "diverged": held.get("diverged", 0), "error": held.get("error", 0)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m rbsim.study", description=__doc__.split("\n\n")[0])
    parser.add_argument("study", help="the study file (YAML)")
    parser.add_argument("--out", required=True, help="results CSV (resumed when it exists)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="address of a Dask scheduler, e.g. tcp://host:8786")
    where.add_argument("--local", type=int, metavar="N", help="start a LocalCluster of N worker processes")
    parser.add_argument("--plot", metavar="DIR", help="when complete, draw the standard pictures into DIR")
    parser.add_argument("--retry-errors", action="store_true",
                        help="make the runs the results file holds as errors again")
    parser.add_argument("--retry-diverged", action="store_true",
                        help="make the runs the results file holds as diverged again")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    retry = [s for s, wanted in (("error", args.retry_errors), ("diverged", args.retry_diverged)) if wanted]
    try:
        if args.local:
            import distributed

            with distributed.LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, distributed.Client(cluster) as client:
                counts = run(args.study, args.out, client=client, progress=not args.quiet, retry=retry)
        else:
            counts = run(args.study, args.out, scheduler=args.scheduler, progress=not args.quiet, retry=retry)
    except _rbsim.SceneError as e:
        print(e, file=sys.stderr)
        return 2
    except (RuntimeError, ValueError, OSError) as e:  # results of another study, unreadable files
        print(f"python3 -m rbsim.study: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\ninterrupted: the finished runs are in {args.out}; run the same command to resume", file=sys.stderr)
        return 130
    if args.plot:
        plot(args.out, args.plot)
    if not args.quiet:
        print(f"{counts['total']} runs in {args.out}: {counts['ok']} ok, {counts['diverged']} diverged, "
              f"{counts['error']} errors ({counts['made']} made now, {counts['resumed']} before)", file=sys.stderr)
        if counts["error"] and not args.retry_errors:
            print("--retry-errors makes the runs with errors again", file=sys.stderr)
    return 1 if counts["error"] else 0


if __name__ == "__main__":
    # Run as the module rbsim.study, not as __main__: the tasks it sends (evaluate) are pickled by
    # their module's name, and a worker has no __main__ of ours to find them in.
    from rbsim import study as _module

    sys.exit(_module.main())

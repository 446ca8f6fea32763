"""The standard pictures of a parameter study's results (docs/STUDIES.md, "Pictures").

    python3 -m rbsim.study_plot RESULTS.csv OUT_DIR [--metric NAME]...

For every metric (or the ones named):
- `METRIC_vs_PARAM.png/.pdf` for every varied parameter: the metric against the parameter, the
  median over the repetitions (seeds) as a line and their range as a band, one line per value of
  a second varied parameter (up to eight); random studies, whose points do not repeat, as dots;
- `METRIC_heat_P1_P2.png/.pdf` for the first two varied parameters of a grid: the mean over the
  repetitions per cell;
and `status_P1[_P2].png/.pdf`: the share of runs that finished (not diverged, not error) per
value (per cell). Needs matplotlib (Debian python3-matplotlib).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
from collections import defaultdict


class StudyResults:
    """A results CSV: parameter columns, metric columns and rows as dicts of floats/strings."""

    def __init__(self, path):
        with open(path, newline="") as f:
            table = list(csv.reader(f))
        if not table:
            raise ValueError(f"{path}: empty file")
        header = table[0]
        try:
            first_parameter = header.index("seed") + 1
            status = header.index("status")
            first_metric = header.index("wall_time") + 1
            version = header.index("rbsim_version")
        except ValueError:
            raise ValueError(f"{path}: not a study results file (columns run, …, status, …, rbsim_version)") from None
        self.parameters = header[first_parameter:status]
        self.metrics = header[first_metric:version]
        self.rows = []
        for line, row in enumerate(table[1:], start=2):
            if len(row) != len(header):
                raise ValueError(f"{path}:{line}: {len(row)} values, the header has {len(header)}")
            r = {"status": row[status], "repetition": int(row[header.index("repetition")])}
            for i in list(range(first_parameter, status)) + list(range(first_metric, version)):
                r[header[i]] = float(row[i])
            self.rows.append(r)

    def varied(self) -> list[str]:
        """The parameters with more than one value, in column order."""
        return [p for p in self.parameters if len({r[p] for r in self.rows}) > 1]


def _save(figure, out_dir, name):
    for ext in ("png", "pdf"):
        figure.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _is_grid(results: StudyResults, p1: str, p2: str) -> bool:
    pairs = {(r[p1], r[p2]) for r in results.rows}
    return len(pairs) == len({r[p1] for r in results.rows}) * len({r[p2] for r in results.rows})


def plot_metric_vs(results: StudyResults, metric: str, parameter: str, out_dir: str, plt) -> str:
    others = [p for p in results.varied() if p != parameter]
    by = others[0] if others and len({r[others[0]] for r in results.rows}) <= 8 else None
    figure, ax = plt.subplots(figsize=(6.4, 4.2))
    groups = defaultdict(lambda: defaultdict(list))
    for r in results.rows:
        if not math.isnan(r[metric]):
            groups[r[by] if by else None][r[parameter]].append(r[metric])
    repeated = any(len(v) > 1 for g in groups.values() for v in g.values())
    for key in sorted(groups, key=lambda k: (k is None, k)):
        xs = sorted(groups[key])
        label = f"{by} = {key:g}" if by else None
        if repeated:
            median = [sorted(groups[key][x])[len(groups[key][x]) // 2] for x in xs]
            low = [min(groups[key][x]) for x in xs]
            high = [max(groups[key][x]) for x in xs]
            (line,) = ax.plot(xs, median, marker="o", label=label)
            ax.fill_between(xs, low, high, alpha=0.2, color=line.get_color())
        else:
            ax.plot(xs, [groups[key][x][0] for x in xs], "o" if len(xs) > 30 else "o-", ms=3, label=label)
    values = [v for g in groups.values() for vs in g.values() for v in vs]
    if values and min(values) > 0 and max(values) / min(values) > 100:
        ax.set_yscale("log")  # a lost run would flatten every other curve on a linear axis
    ax.set_xlabel(parameter)
    ax.set_ylabel(metric)
    title = f"{metric} vs {parameter}"
    if repeated:
        title += "\nmedian over the repetitions, band: their range"
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if by:
        ax.legend(fontsize=8)
    name = _safe(f"{metric}_vs_{parameter}")
    _save(figure, out_dir, name)
    plt.close(figure)
    return name


def _cells(results, p1, p2, value):
    xs = sorted({r[p1] for r in results.rows})
    ys = sorted({r[p2] for r in results.rows})
    sums = defaultdict(list)
    for r in results.rows:
        sums[(r[p1], r[p2])].append(value(r))
    grid = [[(sum(v) / len(v)) if (v := [x for x in sums[(x_, y_)] if not math.isnan(x)]) else math.nan for x_ in xs]
            for y_ in ys]
    return xs, ys, grid


def _heat(ax, figure, xs, ys, grid, label, cmap):
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap,
                      extent=(-0.5, len(xs) - 0.5, -0.5, len(ys) - 0.5))
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs], rotation=45 if len(xs) > 6 else 0)
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    figure.colorbar(image, ax=ax, label=label)


def plot_heat(results: StudyResults, metric: str, p1: str, p2: str, out_dir: str, plt) -> str:
    xs, ys, grid = _cells(results, p1, p2, lambda r: r[metric])
    figure, ax = plt.subplots(figsize=(6.4, 4.8))
    _heat(ax, figure, xs, ys, grid, metric, "viridis")
    ax.set_xlabel(p1)
    ax.set_ylabel(p2)
    ax.set_title(f"{metric}, mean over the repetitions", fontsize=10)
    name = _safe(f"{metric}_heat_{p1}_{p2}")
    _save(figure, out_dir, name)
    plt.close(figure)
    return name


def plot_status(results: StudyResults, out_dir: str, plt) -> str:
    varied = results.varied()
    finished = lambda r: 1.0 if r["status"] == "ok" else 0.0  # noqa: E731
    figure, ax = plt.subplots(figsize=(6.4, 4.8))
    if len(varied) >= 2 and _is_grid(results, varied[0], varied[1]):
        xs, ys, grid = _cells(results, varied[0], varied[1], finished)
        _heat(ax, figure, xs, ys, grid, "share of runs that finished", "RdYlGn")
        ax.set_xlabel(varied[0])
        ax.set_ylabel(varied[1])
        name = _safe(f"status_{varied[0]}_{varied[1]}")
    elif varied:
        share = defaultdict(list)
        for r in results.rows:
            share[r[varied[0]]].append(finished(r))
        xs = sorted(share)
        ax.plot(xs, [sum(share[x]) / len(share[x]) for x in xs], "o-")
        ax.set_ylim(-0.05, 1.05)
        ax.set_xlabel(varied[0])
        ax.set_ylabel("share of runs that finished")
        name = _safe(f"status_{varied[0]}")
    else:
        ok = sum(finished(r) for r in results.rows)
        ax.bar(["finished", "diverged or error"], [ok, len(results.rows) - ok])
        name = "status"
    counts = defaultdict(int)
    for r in results.rows:
        counts[r["status"]] += 1
    ax.set_title("runs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())), fontsize=10)
    _save(figure, out_dir, name)
    plt.close(figure)
    return name


def plot(results_csv, out_dir, metrics=None) -> list[str]:
    """Writes the pictures of a results file into out_dir (created); returns their names."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = StudyResults(results_csv)
    unknown = [m for m in (metrics or []) if m not in results.metrics]
    if unknown:
        raise ValueError(f"no metric {', '.join(unknown)} in {results_csv}; it has: {', '.join(results.metrics)}")
    os.makedirs(out_dir, exist_ok=True)
    varied = results.varied()
    names = []
    for metric in metrics or results.metrics:
        for parameter in varied:
            names.append(plot_metric_vs(results, metric, parameter, out_dir, plt))
        if len(varied) >= 2 and _is_grid(results, varied[0], varied[1]):
            names.append(plot_heat(results, metric, varied[0], varied[1], out_dir, plt))
    names.append(plot_status(results, out_dir, plt))
    return names


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m rbsim.study_plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="a study's results CSV")
    parser.add_argument("out_dir", help="where the PNG and PDF files go")
    parser.add_argument("--metric", action="append", help="only this metric (repeatable)")
    args = parser.parse_args(argv)
    try:
        names = plot(args.results, args.out_dir, args.metric)
    except (OSError, ValueError) as e:
        print(f"rbsim.study_plot: {e}", file=sys.stderr)
        return 2
    print(f"{len(names)} pictures (PNG and PDF) in {args.out_dir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The standard pictures of a parameter study's results (docs/STUDIES.md, "Pictures").

    python3 -m rbsim.study_plot RESULTS.csv OUT_DIR [--metric NAME]...

For every metric (or the ones named):
- `METRIC_vs_PARAM.png/.pdf` for every varied parameter: the metric against the parameter, the
  median over the repetitions (seeds) as a line and their range as a band, one line per
  combination of the other varied parameters (up to eight; beyond, they are pooled with the
  repetitions and the title says so); random studies, whose points do not repeat, as dots;
- `METRIC_heat_P1_P2.png/.pdf` for the first two varied parameters of a grid: the mean over the
  repetitions per cell;
and `status_P1[_P2].png/.pdf`: the share of runs that finished (not diverged, not error) per
value (per cell), from red (none) to green (all). A run of a `list:` point that leaves a
parameter at the scene's value (an empty cell) is left out of the pictures along that parameter.
Needs matplotlib (Debian python3-matplotlib); the figures are drawn without pyplot, so the caller's
backend and figures are left alone.
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
                try:  # empty: a list point that leaves the parameter at the scene's value, or no metric
                    r[header[i]] = float(row[i]) if row[i] != "" else math.nan
                except ValueError:
                    raise ValueError(f"{path}:{line}: column {header[i]}: not a number: {row[i]!r}") from None
            self.rows.append(r)

    def values(self, parameter: str) -> list[float]:
        """The parameter's values in the rows, ascending (empty cells left out)."""
        return sorted({r[parameter] for r in self.rows if not math.isnan(r[parameter])})

    def varied(self) -> list[str]:
        """The parameters with more than one value, in column order."""
        return [p for p in self.parameters if len(self.values(p)) > 1]


def _figure(size):
    """A figure with one axes, made without pyplot: the caller's backend and figures stay as they are."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=size)
    return figure, figure.subplots()


def _save(figure, out_dir, name):
    for ext in ("png", "pdf"):
        figure.savefig(os.path.join(out_dir, f"{name}.{ext}"), dpi=120, bbox_inches="tight")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


def _placed(results: StudyResults, *parameters):
    """The rows that have a value for every one of the parameters."""
    return [r for r in results.rows if not any(math.isnan(r[p]) for p in parameters)]


def _is_grid(results: StudyResults, p1: str, p2: str) -> bool:
    rows = _placed(results, p1, p2)
    pairs = {(r[p1], r[p2]) for r in rows}
    return len(pairs) == len({r[p1] for r in rows}) * len({r[p2] for r in rows})


def plot_metric_vs(results: StudyResults, metric: str, parameter: str, out_dir: str) -> str:
    others = [p for p in results.varied() if p != parameter]
    rows = _placed(results, parameter)
    combinations = {tuple(r[p] for p in others) for r in rows}
    separate = bool(others) and len(combinations) <= 8  # one line each; else pooled
    figure, ax = _figure((6.4, 4.2))
    groups = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if not math.isnan(r[metric]):
            groups[tuple(r[p] for p in others) if separate else None][r[parameter]].append(r[metric])
    repeated = any(len(v) > 1 for g in groups.values() for v in g.values())
    for key in sorted(groups, key=lambda k: (k is None, tuple(-math.inf if math.isnan(v) else v for v in k or ()))):
        xs = sorted(groups[key])
        label = (", ".join("{} = {}".format(p, "scene's" if math.isnan(v) else f"{v:g}") for p, v in zip(others, key))
                 if separate else None)
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
        pooled = "the repetitions" if separate or not others else f"the repetitions and {', '.join(others)}"
        title += f"\nmedian over {pooled}, band: their range"
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    if separate:
        ax.legend(fontsize=8)
    name = _safe(f"{metric}_vs_{parameter}")
    _save(figure, out_dir, name)
    return name


def _cells(results, p1, p2, value):
    rows = _placed(results, p1, p2)
    xs = sorted({r[p1] for r in rows})
    ys = sorted({r[p2] for r in rows})
    sums = defaultdict(list)
    for r in rows:
        sums[(r[p1], r[p2])].append(value(r))
    grid = [[(sum(v) / len(v)) if (v := [x for x in sums[(x_, y_)] if not math.isnan(x)]) else math.nan for x_ in xs]
            for y_ in ys]
    return xs, ys, grid


def _heat(ax, figure, xs, ys, grid, label, cmap, limits=(None, None)):
    image = ax.imshow(grid, origin="lower", aspect="auto", cmap=cmap, vmin=limits[0], vmax=limits[1],
                      extent=(-0.5, len(xs) - 0.5, -0.5, len(ys) - 0.5))
    ax.set_xticks(range(len(xs)), [f"{x:g}" for x in xs], rotation=45 if len(xs) > 6 else 0)
    ax.set_yticks(range(len(ys)), [f"{y:g}" for y in ys])
    figure.colorbar(image, ax=ax, label=label)


def plot_heat(results: StudyResults, metric: str, p1: str, p2: str, out_dir: str) -> str:
    xs, ys, grid = _cells(results, p1, p2, lambda r: r[metric])
    figure, ax = _figure((6.4, 4.8))
    _heat(ax, figure, xs, ys, grid, metric, "viridis")
    ax.set_xlabel(p1)
    ax.set_ylabel(p2)
    rest = [p for p in results.varied() if p not in (p1, p2)]
    ax.set_title(f"{metric}, mean over the repetitions" + (f" and {', '.join(rest)}" if rest else ""), fontsize=10)
    name = _safe(f"{metric}_heat_{p1}_{p2}")
    _save(figure, out_dir, name)
    return name


def plot_status(results: StudyResults, out_dir: str) -> str:
    varied = results.varied()
    finished = lambda r: 1.0 if r["status"] == "ok" else 0.0  # noqa: E731
    figure, ax = _figure((6.4, 4.8))
    if len(varied) >= 2 and _is_grid(results, varied[0], varied[1]):
        xs, ys, grid = _cells(results, varied[0], varied[1], finished)
        # 0 red … 1 green, whatever the shares are (all finished was the scale's middle, yellow)
        _heat(ax, figure, xs, ys, grid, "share of runs that finished", "RdYlGn", limits=(0.0, 1.0))
        ax.set_xlabel(varied[0])
        ax.set_ylabel(varied[1])
        name = _safe(f"status_{varied[0]}_{varied[1]}")
    elif varied:
        share = defaultdict(list)
        for r in _placed(results, varied[0]):
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
    return name


def plot(results_csv, out_dir, metrics=None) -> list[str]:
    """Writes the pictures of a results file into out_dir (created); returns their names. Leaves
    matplotlib's backend and the caller's pyplot figures as they are."""
    results = StudyResults(results_csv)
    unknown = [m for m in (metrics or []) if m not in results.metrics]
    if unknown:
        raise ValueError(f"no metric {', '.join(unknown)} in {results_csv}; it has: {', '.join(results.metrics)}")
    os.makedirs(out_dir, exist_ok=True)
    varied = results.varied()
    names = []
    for metric in metrics or results.metrics:
        for parameter in varied:
            names.append(plot_metric_vs(results, metric, parameter, out_dir))
        if len(varied) >= 2 and _is_grid(results, varied[0], varied[1]):
            names.append(plot_heat(results, metric, varied[0], varied[1], out_dir))
    names.append(plot_status(results, out_dir))
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

"""Figures of the scaling studies (scripts/bench/scaling_study.py): each
CSV the studies write gets a PNG beside it, drawn with matplotlib when it is
installed; `scaling_study.py plot --results DIR` draws them again."""
import csv
import os
import re


def plot_missing(name):
    """The line a table gets instead of its figure; `plot` replaces it with the figure's link."""
    return f"plot: {name}.png not drawn (no matplotlib here): `scripts/bench/scaling_study.py plot --results DIR` draws it"



def load_pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def read_csv(path):
    """Rows of a CSV this script wrote, numbers as numbers."""
    rows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            for key, value in row.items():
                try:
                    row[key] = int(value)
                except (TypeError, ValueError):
                    try:
                        row[key] = float(value)
                    except (TypeError, ValueError):
                        pass
            rows.append(row)
    return rows


def line_panels(plt, path, title, series, xlabel, panels):
    """series: {label: [(x, row)]}; panels: [(metric, ylabel, ideal)], ideal(x) or None."""
    figure, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 4.2))
    if len(panels) == 1:
        axes = [axes]
    for axis, (metric, ylabel, ideal) in zip(axes, panels):
        xs_all = set()
        for label, points in series.items():
            xs = [p[0] for p in points]
            xs_all.update(xs)
            axis.plot(xs, [p[1][metric] for p in points], marker="o", label=label)
        if ideal and xs_all:
            xs = sorted(xs_all)
            axis.plot(xs, [ideal(x) for x in xs], linestyle="--", color="gray", label="ideal")
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        if len(xs_all) > 1 and max(xs_all) / max(min(xs_all), 1e-9) >= 4:
            axis.set_xscale("log", base=2)
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=8)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def bars(plt, path, title, labels, values, notes, xlabel, log=False):
    figure, axis = plt.subplots(figsize=(8, 0.5 * len(labels) + 1.5))
    axis.barh(labels, values, color="tab:blue")
    axis.set_xlabel(xlabel)
    if log:
        axis.set_xscale("log")
    axis.invert_yaxis()
    axis.set_title(title)
    for i, (value, note) in enumerate(zip(values, notes)):
        axis.text(value, i, f" {note}", va="center", fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def frame_label(row):
    return f"{os.path.basename(str(row.get('scene', '')))} {row.get('width')}x{row.get('height')}, {row.get('spp')} spp"


def draw_strong(plt, rows, path):
    series = {}
    for row in rows:
        labels = []
        if row["ranks"] == 1:
            labels.append("1 rank x threads")
        if row["threads"] == 1:
            labels.append("ranks x 1 thread")
        if not labels:
            labels.append("ranks x threads (mixed)")
        for label in labels:  # the 1-core point starts both lines
            series.setdefault(label, []).append((row["cores"], row))
    line_panels(plt, path, f"Strong scaling: {frame_label(rows[0])}", series, "cores (ranks x threads)",
                [("speedup", "speedup", lambda x: x), ("efficiency", "parallel efficiency", lambda x: 1.0)])


def draw_weak(plt, rows, path):
    first = rows[0]
    line_panels(plt, path,
                f"Weak scaling: {first['width']}x{first['height']} per rank, {first.get('spp')} spp, "
                f"{first['threads']} thread(s)/rank",
                {"farmrt": [(r["ranks"], r) for r in rows]}, "ranks",
                [("wall_seconds", "time (s)", None), ("efficiency", "weak-scaling efficiency", lambda x: 1.0)])


def draw_backends(plt, rows, path):
    bars(plt, path, f"Backends: {os.path.basename(str(rows[0].get('scene', '')))} "
                    f"{rows[0].get('width')}x{rows[0].get('height')} (samples/s from the render phase)",
         [r["configuration"] for r in rows], [r["samples_per_second"] for r in rows],
         [f"{r['speedup']:.1f}x" for r in rows], "samples per second", log=True)


def draw_frames(plt, rows, path):
    bars(plt, path, f"{rows[0]['frames']} frames of {rows[0]['width']}x{rows[0]['height']} at {rows[0]['spp']} spp",
         [f"{r['scene']}: {r['mode']} ({r['ranks']} rank{'s' if r['ranks'] > 1 else ''})" for r in rows],
         [r["seconds_per_frame"] * 1000 for r in rows],
         [f"{r['speedup_vs_process_per_frame']:.1f}x" for r in rows], "ms per frame", log=True)


def draw_slurm(plt, rows, path):
    kind = "strong" if "strong" in os.path.basename(path) else "weak"
    base = rows[0]
    line_panels(plt, path, f"{kind.capitalize()} scaling (Slurm)", {"farmrt": [(r["cores"], r) for r in rows]}, "cores",
                [("speedup", "speedup", (lambda x: x / base["cores"]) if kind == "strong" else None),
                 ("efficiency", "efficiency", lambda x: 1.0)])


def drawer_for(name):
    """The plot of a CSV this script or bench/frames.sh writes, by its base name."""
    if name.endswith("_slurm"):
        return draw_slurm
    if name.startswith("strong"):
        return draw_strong
    if name.startswith("weak"):
        return draw_weak
    if name.startswith("backend"):
        return draw_backends
    if name.startswith("frames_benchmark"):
        return draw_frames
    return None


def figure_line(results, name):
    """Draws RESULTS/NAME.png from RESULTS/NAME.csv; returns the markdown line for it."""
    plt = load_pyplot()
    rows = read_csv(os.path.join(results, name + ".csv"))
    if plt is None or not rows:
        return plot_missing(name)
    drawer_for(name)(plt, rows, os.path.join(results, name + ".png"))
    return f"![{name}]({name}.png)"


def plot(args, _runner):
    """Plots from the CSVs in --results; every .md there gets the links in place of the
    plot_missing lines (a study's .md without one gets its link at the end)."""
    if load_pyplot() is None:
        raise SystemExit("scaling_study: plot needs matplotlib (apt-get install python3-matplotlib)")
    drawn = []
    for entry in sorted(os.listdir(args.results)):
        name, extension = os.path.splitext(entry)
        if extension == ".csv" and drawer_for(name) is not None:
            if figure_line(args.results, name).startswith("!["):
                drawn.append(name)
    for entry in sorted(os.listdir(args.results)):
        name, extension = os.path.splitext(entry)
        if extension != ".md":
            continue
        path = os.path.join(args.results, entry)
        with open(path) as f:
            text = f.read()
        linked = re.sub(r"^plot: (\S+)\.png not drawn.*$",
                        lambda m: f"![{m.group(1)}]({m.group(1)}.png)" if m.group(1) in drawn else m.group(0),
                        text, flags=re.M)
        if name in drawn and f"({name}.png)" not in linked:
            linked = linked.rstrip("\n") + f"\n\n![{name}]({name}.png)\n"
        if linked != text:
            with open(path, "w") as f:
                f.write(linked)
    return None, "plots: " + (", ".join(f"{n}.png" for n in drawn) if drawn else f"no study CSVs in {args.results}")

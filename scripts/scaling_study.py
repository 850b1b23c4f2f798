#!/usr/bin/env python3
"""Scaling studies of farmrt: strong scaling, weak scaling and a backend comparison.

Each study runs farmrt (through mpirun) with --stats, and writes to RESULTS/:
  NAME.csv   one row per configuration (times, speedup, efficiency, farm figures)
  NAME.png   plots (matplotlib, Debian's python3-matplotlib; skipped with a note without it)
  NAME.md    the table, machine, date and command

  scripts/scaling_study.py strong    fixed frame; 1..N cores as ranks x threads
  scripts/scaling_study.py weak      pixels grow with the ranks (fixed work per rank)
  scripts/scaling_study.py backends  scalar, SIMD, CUDA and hybrid (those this build has)
  scripts/scaling_study.py all       the three, one after another
  scripts/scaling_study.py report --kind strong|weak --stats-dir DIR
                                     tables and plots from --stats files written elsewhere
                                     (scripts/slurm/submit_scaling.sh on a cluster)

Speedup is T(baseline) / T; efficiency is speedup / (cores used / baseline cores),
weak-scaling efficiency is T(1 rank) / T(N ranks). T is farmrt's wall time from
its run report (set-up, render and write; mpirun's start-up is not in it).
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def machine_description():
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    text = f"{model}, {os.cpu_count()} hardware threads, {platform.system()} {platform.release()}"
    try:
        gpus = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20)
        if gpus.returncode == 0 and gpus.stdout.strip():
            text += ", GPU: " + "; ".join(g.strip() for g in gpus.stdout.strip().splitlines())
    except (OSError, subprocess.SubprocessError):
        pass
    return text


class Runner:
    """Runs farmrt jobs and reads their run reports."""

    def __init__(self, args):
        self.farmrt = os.path.abspath(os.path.join(args.build, "farmrt"))
        self.mpiexec = args.mpiexec
        self.repeats = args.repeats
        self.dry_run = getattr(args, "dry_run", False)
        self.tmp = tempfile.mkdtemp(prefix="farmrt-scaling-")
        self.env = dict(os.environ)
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        self.env.setdefault("OMPI_MCA_mca_base_param_files", os.path.join(ROOT, "mpi", "openmpi-mca-params.conf"))
        self.help_text = subprocess.run([self.farmrt, "--help"], capture_output=True, text=True).stdout

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def has_option(self, text):
        return text in self.help_text

    def cpu_options(self):
        """Pins the CPU backend where farmrt would otherwise pick a GPU (--backend auto)."""
        return ["--backend", "cpu"] if self.has_option("--backend") else []

    def run(self, groups, common):
        """groups: [(ranks, [farmrt options])] (MPMD when several). Returns the median-wall run report."""
        reports = []
        for repeat in range(self.repeats):
            stats = os.path.join(self.tmp, f"stats{repeat}.json")
            command = [self.mpiexec]
            for index, (ranks, options) in enumerate(groups):
                if index:
                    command.append(":")
                command += ["-n", str(ranks), self.farmrt] + common + options
                command += ["-o", os.path.join(self.tmp, "out.pfm"), "--quiet", "--stats", stats]
            print("scaling_study:", " ".join(command), file=sys.stderr)
            result = subprocess.run(command, env=self.env, capture_output=True, text=True)
            if result.returncode != 0:
                raise RuntimeError(f"farmrt failed ({result.returncode}): {' '.join(command)}\n{result.stderr[-2000:]}")
            with open(stats) as f:
                reports.append(json.load(f))
        reports.sort(key=lambda r: r["wall_seconds"])
        return reports[len(reports) // 2]


def row_from(report, **extra):
    row = dict(extra)
    row.update({
        "wall_seconds": report["wall_seconds"],
        "render_seconds": report["render_seconds"],
        "samples_per_second": report["samples_per_second"],
        "load_imbalance": report.get("load_imbalance", 1.0),
        "communication_fraction": report.get("communication_fraction", 0.0),
        "parallel_efficiency_farm": report.get("parallel_efficiency", 1.0),
        "backend": report.get("backend", ""),
    })
    return row


def write_csv(path, rows, columns):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


def markdown_table(rows, columns, headers):
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if i else "---" for i in range(len(headers))) + "|"]
    for row in rows:
        cells = []
        for column in columns:
            value = row.get(column, "")
            if isinstance(value, float):
                value = f"{value:.3f}" if column != "samples_per_second" else f"{value:.4g}"
            cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def header(title, args, extra):
    command = "scripts/scaling_study.py " + " ".join(sys.argv[1:])
    lines = [f"# {title}", "",
             f"- date: {datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%MZ')}",
             f"- machine: {args.machine or machine_description()}",
             f"- command: `{command}`"]
    lines += [f"- {e}" for e in extra]
    return "\n".join(lines) + "\n"


def plot(path, title, series, xlabel, panels):
    """series: {label: [(x, {metric: value})]}; panels: [(metric, ylabel, ideal)], ideal(x) or None."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "plots skipped: matplotlib is not installed (apt-get install python3-matplotlib)"
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
    return f"![{title}]({os.path.basename(path)})"


def powers_of_two_up_to(n):
    values, v = [], 1
    while v <= n:
        values.append(v)
        v *= 2
    if values[-1] != n:
        values.append(n)
    return values


# ---- strong scaling -----------------------------------------------------------------------

def strong(args, runner):
    cores = args.max_cores or os.cpu_count()
    common = [args.scene, "--width", str(args.width), "--height", str(args.height), "--spp", str(args.spp)]
    rows = []
    for total in powers_of_two_up_to(cores):
        # Every split of `total` cores into ranks x threads (powers of two, and the whole).
        splits = sorted({(r, total // r) for r in powers_of_two_up_to(total) if total % r == 0})
        for ranks, threads in splits:
            report = runner.run([(ranks, ["--threads", str(threads)] + runner.cpu_options())], common)
            rows.append(row_from(report, cores=total, ranks=ranks, threads=threads))
    base = next(r for r in rows if r["cores"] == 1)["wall_seconds"]
    for row in rows:
        row["speedup"] = base / row["wall_seconds"]
        row["efficiency"] = row["speedup"] / row["cores"]
    name = args.name or "strong_scaling"
    columns = ["cores", "ranks", "threads", "wall_seconds", "render_seconds", "speedup", "efficiency",
               "samples_per_second", "load_imbalance", "communication_fraction", "backend"]
    write_csv(os.path.join(args.results, name + ".csv"), rows, columns)
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
    figure = plot(os.path.join(args.results, name + ".png"),
                  f"Strong scaling: {os.path.basename(args.scene)} {args.width}x{args.height}, {args.spp} spp",
                  series, "cores (ranks x threads)",
                  [("speedup", "speedup", lambda x: x), ("efficiency", "parallel efficiency", lambda x: 1.0)])
    text = header("Strong scaling", args, [
        f"frame: {args.scene}, {args.width}x{args.height}, {args.spp} spp, dynamic schedule; median of {args.repeats}",
        "speedup = T(1 core) / T; efficiency = speedup / cores"])
    text += "\n" + markdown_table(rows, ["cores", "ranks", "threads", "wall_seconds", "speedup", "efficiency",
                                         "samples_per_second", "load_imbalance", "communication_fraction"],
                                  ["cores", "ranks", "threads/rank", "time (s)", "speedup", "efficiency",
                                   "samples/s", "load imbalance", "comm. fraction"])
    text += "\n\n" + figure + "\n"
    return name, text


# ---- weak scaling -------------------------------------------------------------------------

def weak(args, runner):
    cores = args.max_cores or os.cpu_count()
    threads = args.threads_per_rank
    rows = []
    for ranks in powers_of_two_up_to(max(1, cores // threads)):
        # The image grows with the ranks (rows x ranks): the work per rank stays the same.
        height = args.base_height * ranks
        common = [args.scene, "--width", str(args.base_width), "--height", str(height), "--spp", str(args.spp)]
        report = runner.run([(ranks, ["--threads", str(threads)] + runner.cpu_options())], common)
        rows.append(row_from(report, ranks=ranks, threads=threads, cores=ranks * threads, width=args.base_width,
                             height=height))
    base = rows[0]["wall_seconds"]
    for row in rows:
        row["efficiency"] = base / row["wall_seconds"]
        row["scaled_speedup"] = row["efficiency"] * row["ranks"]
    name = args.name or "weak_scaling"
    columns = ["ranks", "threads", "cores", "width", "height", "wall_seconds", "render_seconds", "efficiency",
               "scaled_speedup", "samples_per_second", "load_imbalance", "communication_fraction", "backend"]
    write_csv(os.path.join(args.results, name + ".csv"), rows, columns)
    figure = plot(os.path.join(args.results, name + ".png"),
                  f"Weak scaling: {args.base_width}x{args.base_height} per rank, {args.spp} spp, {threads} thread(s)/rank",
                  {"farmrt": [(r["ranks"], r) for r in rows]}, "ranks",
                  [("wall_seconds", "time (s)", None), ("efficiency", "weak-scaling efficiency", lambda x: 1.0)])
    text = header("Weak scaling", args, [
        f"{args.scene}: {args.base_width}x({args.base_height} x ranks) pixels, {args.spp} spp, {threads} thread(s) per rank;"
        f" median of {args.repeats}",
        "efficiency = T(1 rank) / T(N ranks); scaled speedup = efficiency x ranks"])
    text += "\n" + markdown_table(rows, ["ranks", "threads", "width", "height", "wall_seconds", "efficiency",
                                         "scaled_speedup", "samples_per_second", "load_imbalance"],
                                  ["ranks", "threads/rank", "width", "height", "time (s)", "efficiency",
                                   "scaled speedup", "samples/s", "load imbalance"])
    text += "\n\n" + figure + "\n"
    return name, text


# ---- backends ------------------------------------------------------------------------------

def backends(args, runner):
    cores = args.max_cores or os.cpu_count()
    common = [args.scene, "--width", str(args.width), "--height", str(args.height), "--spp", str(args.spp)]
    configurations = []  # (label, groups)
    simd = runner.has_option("--simd")
    cpu = runner.cpu_options()
    if simd:
        configurations.append(("scalar, 1 thread", [(1, ["--threads", "1", "--simd", "off"] + cpu)]))
        configurations.append(("SIMD, 1 thread", [(1, ["--threads", "1", "--simd", "auto"] + cpu)]))
        configurations.append((f"scalar, {cores} threads", [(1, ["--threads", str(cores), "--simd", "off"] + cpu)]))
        configurations.append((f"SIMD, {cores} threads", [(1, ["--threads", str(cores), "--simd", "auto"] + cpu)]))
    else:
        configurations.append(("CPU, 1 thread", [(1, ["--threads", "1"] + cpu)]))
        configurations.append((f"CPU, {cores} threads", [(1, ["--threads", str(cores)] + cpu)]))
    notes = []
    if runner.has_option("--backend") and "cuda" in runner.help_text:
        configurations.append(("CUDA, 1 GPU", [(1, ["--backend", "cuda", "--threads", "1"])]))
        # Hybrid: one GPU rank and CPU ranks on the remaining cores, in one dynamic job.
        cpu_threads = max(1, cores - 1)
        cpu = ["--backend", "cpu", "--threads", str(cpu_threads)] + (["--simd", "auto"] if simd else [])
        configurations.append((f"hybrid: 1 GPU + {cpu_threads} CPU threads",
                               [(1, ["--backend", "cuda", "--threads", "1"]), (1, cpu)]))
    else:
        notes.append("CUDA and hybrid: not in this build (farmrt --help has no --backend cuda)")
    rows = []
    for label, groups in configurations:
        try:
            report = runner.run(groups, common)
        except RuntimeError as error:
            notes.append(f"{label}: failed: {str(error).splitlines()[0]}")
            continue
        ranks = sum(g[0] for g in groups)
        rows.append(row_from(report, configuration=label, ranks=ranks))
    base = rows[0]["wall_seconds"]
    for row in rows:
        row["speedup"] = base / row["wall_seconds"]
    name = args.name or "backend_comparison"
    columns = ["configuration", "ranks", "wall_seconds", "render_seconds", "speedup", "samples_per_second",
               "load_imbalance", "backend"]
    write_csv(os.path.join(args.results, name + ".csv"), rows, columns)
    figure_note = ""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        figure, axis = plt.subplots(figsize=(8, 0.6 * len(rows) + 1.5))
        axis.barh([r["configuration"] for r in rows], [r["samples_per_second"] for r in rows], color="tab:blue")
        axis.set_xlabel("samples per second")
        axis.invert_yaxis()
        axis.set_title(f"Backends: {os.path.basename(args.scene)} {args.width}x{args.height}, {args.spp} spp")
        for i, r in enumerate(rows):
            axis.text(r["samples_per_second"], i, f" {r['speedup']:.1f}x", va="center", fontsize=8)
        figure.tight_layout()
        figure.savefig(os.path.join(args.results, name + ".png"), dpi=120)
        plt.close(figure)
        figure_note = f"![backends]({name}.png)"
    except ImportError:
        figure_note = "plots skipped: matplotlib is not installed"
    text = header("Backend comparison", args, [
        f"frame: {args.scene}, {args.width}x{args.height}, {args.spp} spp; median of {args.repeats}",
        f"speedup relative to '{rows[0]['configuration']}'"] + notes)
    text += "\n" + markdown_table(rows, ["configuration", "ranks", "wall_seconds", "speedup", "samples_per_second",
                                         "backend"],
                                  ["configuration", "ranks", "time (s)", "speedup", "samples/s", "backend"])
    text += "\n\n" + figure_note + "\n"
    return name, text


# ---- report from --stats files (Slurm) -----------------------------------------------------

def report(args, _runner):
    rows = []
    for entry in sorted(os.listdir(args.stats_dir)):
        if not entry.endswith(".json"):
            continue
        with open(os.path.join(args.stats_dir, entry)) as f:
            r = json.load(f)
        threads = r.get("total_threads", r.get("threads", 1))
        ranks = r.get("ranks", 1)
        rows.append(row_from(r, ranks=ranks, threads=threads // max(ranks, 1), cores=threads,
                             width=r["settings"]["width"], height=r["settings"]["height"], source=entry))
    if not rows:
        raise SystemExit(f"scaling_study: no .json run reports in {args.stats_dir}")
    rows.sort(key=lambda r: (r["cores"], r["ranks"]))
    base = rows[0]
    for row in rows:
        if args.kind == "strong":
            row["speedup"] = base["wall_seconds"] / row["wall_seconds"]
            row["efficiency"] = row["speedup"] / (row["cores"] / base["cores"])
        else:
            row["efficiency"] = base["wall_seconds"] / row["wall_seconds"]
            row["speedup"] = row["efficiency"] * row["ranks"] / base["ranks"]
    name = args.name or f"{args.kind}_scaling_slurm"
    columns = ["ranks", "threads", "cores", "width", "height", "wall_seconds", "render_seconds", "speedup",
               "efficiency", "samples_per_second", "load_imbalance", "communication_fraction", "source"]
    write_csv(os.path.join(args.results, name + ".csv"), rows, columns)
    figure = plot(os.path.join(args.results, name + ".png"), f"{args.kind.capitalize()} scaling (Slurm)",
                  {"farmrt": [(r["cores"], r) for r in rows]}, "cores",
                  [("speedup", "speedup", (lambda x: x / base["cores"]) if args.kind == "strong" else None),
                   ("efficiency", "efficiency", lambda x: 1.0)])
    text = header(f"{args.kind.capitalize()} scaling (Slurm jobs)", args, [f"run reports: {args.stats_dir}"])
    text += "\n" + markdown_table(rows, ["ranks", "threads", "cores", "width", "height", "wall_seconds", "speedup",
                                         "efficiency", "samples_per_second", "load_imbalance"],
                                  ["ranks", "threads/rank", "cores", "width", "height", "time (s)", "speedup",
                                   "efficiency", "samples/s", "load imbalance"])
    text += "\n\n" + figure + "\n"
    return name, text


def use_python_with_matplotlib():
    """Debian's python3-matplotlib lives in /usr/bin/python3; another python3 first on PATH
    (pyenv, conda) may lack it: run under Debian's then."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        debian = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(debian) and os.path.exists(debian) and \
                not os.environ.get("FARMRT_SCALING_REEXEC"):
            check = subprocess.run([debian, "-c", "import matplotlib"], capture_output=True)
            if check.returncode == 0:
                os.environ["FARMRT_SCALING_REEXEC"] = "1"
                os.execv(debian, [debian, os.path.abspath(__file__)] + sys.argv[1:])


def main():
    use_python_with_matplotlib()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("study", choices=["strong", "weak", "backends", "all", "report"])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--mpiexec", default="mpirun")
    parser.add_argument("--scene", default=os.path.join("configs", "spheres.yaml"))
    parser.add_argument("--width", type=int, default=600)
    parser.add_argument("--height", type=int, default=338)
    parser.add_argument("--spp", type=int, default=16)
    parser.add_argument("--base-width", type=int, default=400)
    parser.add_argument("--base-height", type=int, default=120)
    parser.add_argument("--threads-per-rank", type=int, default=1)
    parser.add_argument("--max-cores", type=int, default=0, help="default: all hardware threads")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--results", default=os.path.join(ROOT, "results"))
    parser.add_argument("--name", default="", help="output base name (default: the study's)")
    parser.add_argument("--machine", default="", help="machine description (default: detected)")
    parser.add_argument("--kind", choices=["strong", "weak"], default="strong", help="report: which study")
    parser.add_argument("--stats-dir", default="", help="report: directory of --stats JSON files")
    args = parser.parse_args()
    os.chdir(ROOT)
    os.makedirs(args.results, exist_ok=True)
    runner = None if args.study == "report" else Runner(args)
    studies = {"strong": strong, "weak": weak, "backends": backends, "report": report}
    chosen = ["strong", "weak", "backends"] if args.study == "all" else [args.study]
    try:
        for study in chosen:
            if len(chosen) > 1:
                args.name = ""
            name, text = studies[study](args, runner)
            with open(os.path.join(args.results, name + ".md"), "w") as f:
                f.write(text)
            print(text)
    finally:
        if runner:
            runner.close()


if __name__ == "__main__":
    main()

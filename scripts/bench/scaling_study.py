#!/usr/bin/env python3
"""Scaling studies of farmrt: strong scaling, weak scaling and a backend comparison.

Each study runs farmrt (through mpirun) with --stats, and writes to RESULTS/:
  NAME.csv   one row per configuration (times, speedup, efficiency, farm figures)
  NAME.png   plots (matplotlib, Debian's python3-matplotlib; skipped with a note without it)
  NAME.md    the table, machine, date and command

  scripts/bench/scaling_study.py strong    fixed frame; 1..N cores as ranks x threads
  scripts/bench/scaling_study.py weak      pixels grow with the ranks (fixed work per rank)
  scripts/bench/scaling_study.py backends  scalar, SIMD, CUDA and hybrid (those this build has)
  scripts/bench/scaling_study.py all       the three, one after another
  scripts/bench/scaling_study.py report --kind strong|weak --stats-dir DIR
                                     tables and plots from --stats files written elsewhere
                                     (scripts/slurm/submit_scaling.sh on a cluster)
  scripts/bench/scaling_study.py plot --results DIR
                                     the plots again from the CSVs in DIR (studies run on a
                                     machine without matplotlib), and the links in the .md files

--budget S stops starting configurations after S seconds (the table says which were left out).

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
import re
import subprocess
import sys
import tempfile
import time

from scaling_plots import figure_line, plot  # noqa: E402 (beside this script)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
        self.deadline = time.monotonic() + args.budget if args.budget > 0 else None
        self.tmp = tempfile.mkdtemp(prefix="farmrt-scaling-")
        self.env = dict(os.environ)
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        self.env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        self.env.setdefault("OMPI_MCA_mca_base_param_files", os.path.join(ROOT, "mpi", "openmpi-mca-params.conf"))
        self.help_text = subprocess.run([self.farmrt, "--help"], capture_output=True, text=True).stdout

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def out_of_time(self):
        return self.deadline is not None and time.monotonic() > self.deadline

    def has_option(self, text):
        return text in self.help_text

    def gpu_problem(self):
        """None where farmrt can render on a GPU here, else why not (farmrt's one-line error)."""
        if not self.has_option("--backend"):
            return "this farmrt has no --backend option"
        probe = subprocess.run([self.farmrt, os.path.join(ROOT, "configs", "tiny.yaml"), "--backend", "cuda", "--width",
                                "8", "--height", "8", "--spp", "1", "--quiet", "-o", os.path.join(self.tmp, "probe.pfm")],
                               env=self.env, capture_output=True, text=True)
        if probe.returncode == 0:
            return None
        lines = probe.stderr.strip().splitlines()
        return lines[-1] if lines else f"farmrt --backend cuda exits {probe.returncode}"

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
            if column == "samples_per_second" and isinstance(value, (int, float)):
                value = f"{value:.4g}"
            elif isinstance(value, float):
                value = f"{value:.3f}"
            cells.append(str(value))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def header(title, args, extra):
    command = "scripts/bench/scaling_study.py " + " ".join(sys.argv[1:])
    lines = [f"# {title}", "",
             f"- date: {datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%MZ')}",
             f"- machine: {args.machine or machine_description()}",
             f"- command: `{command}`"]
    lines += [f"- {e}" for e in extra]
    return "\n".join(lines) + "\n"


def publish(args, name, title, notes, rows, csv_columns, table):
    """Writes RESULTS/NAME.csv and the plot; returns (name, markdown): header with NOTES, the
    table (TABLE: [(column, heading)]) and the figure's line."""
    write_csv(os.path.join(args.results, name + ".csv"), rows, csv_columns)
    text = header(title, args, notes)
    text += "\n" + markdown_table(rows, [c for c, _ in table], [h for _, h in table])
    text += "\n\n" + figure_line(args.results, name) + "\n"
    return name, text


def powers_of_two_up_to(n):
    values, v = [], 1
    while v <= n:
        values.append(v)
        v *= 2
    if values[-1] != n:
        values.append(n)
    return values


# ---- strong scaling -----------------------------------------------------------------------

def frame_columns(args, width=None, height=None, spp=None):
    """What every row says about its frame, so a plot can be drawn from the CSV alone."""
    return {"scene": args.scene, "width": width or args.width, "height": height or args.height, "spp": spp or args.spp}


def left_out_note(left_out):
    if not left_out:
        return []
    return [f"left out (time budget --budget spent): {'; '.join(left_out)}"]


def strong(args, runner):
    cores = args.max_cores or os.cpu_count()
    common = [args.scene, "--width", str(args.width), "--height", str(args.height), "--spp", str(args.spp)]
    rows, left_out = [], []
    for total in powers_of_two_up_to(cores):
        # Every split of `total` cores into ranks x threads (powers of two, and the whole).
        splits = sorted({(r, total // r) for r in powers_of_two_up_to(total) if total % r == 0})
        for ranks, threads in splits:
            if rows and runner.out_of_time():
                left_out.append(f"{ranks}x{threads}")
                continue
            report = runner.run([(ranks, ["--threads", str(threads)] + runner.cpu_options())], common)
            rows.append(row_from(report, cores=total, ranks=ranks, threads=threads, **frame_columns(args)))
    base = next(r for r in rows if r["cores"] == 1)["wall_seconds"]
    for row in rows:
        row["speedup"] = base / row["wall_seconds"]
        row["efficiency"] = row["speedup"] / row["cores"]
    name = args.name or "strong_scaling"
    columns = ["cores", "ranks", "threads", "wall_seconds", "render_seconds", "speedup", "efficiency",
               "samples_per_second", "load_imbalance", "communication_fraction", "backend", "scene", "width",
               "height", "spp"]
    return publish(args, name, "Strong scaling", [
        f"frame: {args.scene}, {args.width}x{args.height}, {args.spp} spp, dynamic schedule; median of {args.repeats}",
        "speedup = T(1 core) / T; efficiency = speedup / cores"] + left_out_note(left_out), rows, columns,
        [("cores", "cores"), ("ranks", "ranks"), ("threads", "threads/rank"), ("wall_seconds", "time (s)"),
         ("speedup", "speedup"), ("efficiency", "efficiency"), ("samples_per_second", "samples/s"),
         ("load_imbalance", "load imbalance"), ("communication_fraction", "comm. fraction")])


# ---- weak scaling -------------------------------------------------------------------------

def weak(args, runner):
    cores = args.max_cores or os.cpu_count()
    threads = args.threads_per_rank
    rows, left_out = [], []
    for ranks in powers_of_two_up_to(max(1, cores // threads)):
        if rows and runner.out_of_time():
            left_out.append(f"{ranks} ranks")
            continue
        # The image grows with the ranks (rows x ranks): the work per rank stays the same.
        height = args.base_height * ranks
        common = [args.scene, "--width", str(args.base_width), "--height", str(height), "--spp", str(args.spp)]
        report = runner.run([(ranks, ["--threads", str(threads)] + runner.cpu_options())], common)
        rows.append(row_from(report, ranks=ranks, threads=threads, cores=ranks * threads,
                             **frame_columns(args, args.base_width, height)))
    base = rows[0]["wall_seconds"]
    for row in rows:
        row["efficiency"] = base / row["wall_seconds"]
        row["scaled_speedup"] = row["efficiency"] * row["ranks"]
    name = args.name or "weak_scaling"
    columns = ["ranks", "threads", "cores", "width", "height", "wall_seconds", "render_seconds", "efficiency",
               "scaled_speedup", "samples_per_second", "load_imbalance", "communication_fraction", "backend", "scene",
               "spp"]
    return publish(args, name, "Weak scaling", [
        f"{args.scene}: {args.base_width}x({args.base_height} x ranks) pixels, {args.spp} spp, {threads} thread(s) per rank;"
        f" median of {args.repeats}",
        "efficiency = T(1 rank) / T(N ranks); scaled speedup = efficiency x ranks"] + left_out_note(left_out), rows,
        columns, [("ranks", "ranks"), ("threads", "threads/rank"), ("width", "width"), ("height", "height"),
                  ("wall_seconds", "time (s)"), ("efficiency", "efficiency"), ("scaled_speedup", "scaled speedup"),
                  ("samples_per_second", "samples/s"), ("load_imbalance", "load imbalance")])


# ---- backends ------------------------------------------------------------------------------

def backends(args, runner):
    """Throughput (samples/s of the render phase) per backend. Each configuration renders
    enough samples to run for a comparable time: --spp on one CPU thread, --spp x cores on all
    cores, --gpu-spp on the GPU, so set-up (GPU context, upload) does not swamp the fast ones."""
    cores = args.max_cores or os.cpu_count()
    all_cores_spp = args.spp * cores
    gpu_spp = args.gpu_spp or all_cores_spp * 16
    configurations = []  # (label, CPU threads, spp, groups)
    simd = runner.has_option("--simd")
    cpu = runner.cpu_options()
    if simd:
        configurations.append(("scalar, 1 thread", 1, args.spp, [(1, ["--threads", "1", "--simd", "off"] + cpu)]))
        configurations.append(("SIMD, 1 thread", 1, args.spp, [(1, ["--threads", "1", "--simd", "auto"] + cpu)]))
        configurations.append((f"scalar, {cores} threads", cores, all_cores_spp,
                               [(1, ["--threads", str(cores), "--simd", "off"] + cpu)]))
        configurations.append((f"SIMD, {cores} threads", cores, all_cores_spp,
                               [(1, ["--threads", str(cores), "--simd", "auto"] + cpu)]))
    else:
        configurations.append(("CPU, 1 thread", 1, args.spp, [(1, ["--threads", "1"] + cpu)]))
        configurations.append((f"CPU, {cores} threads", cores, all_cores_spp, [(1, ["--threads", str(cores)] + cpu)]))
    notes = []
    gpu_problem = runner.gpu_problem()
    if gpu_problem is None:
        configurations.append(("CUDA, 1 GPU", 0, gpu_spp, [(1, ["--backend", "cuda", "--threads", "1"])]))
        # Hybrid: one GPU rank and a CPU rank on the remaining cores, in one dynamic job.
        cpu_threads = max(1, cores - 1)
        cpu_rank = ["--backend", "cpu", "--threads", str(cpu_threads)] + (["--simd", "auto"] if simd else [])
        configurations.append((f"hybrid: 1 GPU + {cpu_threads} CPU threads", cpu_threads, gpu_spp,
                               [(1, ["--backend", "cuda", "--threads", "1"]), (1, cpu_rank)]))
    else:
        notes.append(f"CUDA and hybrid: not measured: {gpu_problem}")
    rows, left_out = [], []
    for label, threads, spp, groups in configurations:
        if rows and runner.out_of_time():
            left_out.append(label)
            continue
        common = [args.scene, "--width", str(args.width), "--height", str(args.height), "--spp", str(spp)]
        try:
            report = runner.run(groups, common)
        except RuntimeError as error:
            notes.append(f"{label}: failed: {str(error).splitlines()[0]}")
            continue
        ranks = sum(g[0] for g in groups)
        rows.append(row_from(report, configuration=label, ranks=ranks, cpu_threads=threads,
                             **frame_columns(args, spp=spp)))
    base = rows[0]["samples_per_second"]
    for row in rows:
        row["speedup"] = row["samples_per_second"] / base
        # Per CPU thread, against the first (one-thread) configuration; none for the GPU alone.
        row["efficiency"] = row["speedup"] / row["cpu_threads"] if row["cpu_threads"] else ""
    name = args.name or "backend_comparison"
    columns = ["configuration", "ranks", "cpu_threads", "spp", "wall_seconds", "render_seconds", "speedup",
               "efficiency", "samples_per_second", "load_imbalance", "backend", "scene", "width", "height"]
    return publish(args, name, "Backend comparison", [
        f"frame: {args.scene}, {args.width}x{args.height}; spp per configuration (column spp): {args.spp} on one "
        f"thread, {all_cores_spp} on {cores} threads, {gpu_spp} with the GPU; median of {args.repeats}",
        f"speedup = samples/s (render phase) over '{rows[0]['configuration']}'; "
        "efficiency = speedup / CPU threads (SIMD lanes count as gains)"] + notes + left_out_note(left_out), rows,
        columns, [("configuration", "configuration"), ("ranks", "ranks"), ("spp", "spp"), ("wall_seconds", "time (s)"),
                  ("render_seconds", "render (s)"), ("speedup", "speedup"), ("efficiency", "efficiency"),
                  ("samples_per_second", "samples/s"), ("backend", "backend")])


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
    return publish(args, name, f"{args.kind.capitalize()} scaling (Slurm jobs)", [f"run reports: {args.stats_dir}"],
                   rows, columns,
                   [("ranks", "ranks"), ("threads", "threads/rank"), ("cores", "cores"), ("width", "width"),
                    ("height", "height"), ("wall_seconds", "time (s)"), ("speedup", "speedup"),
                    ("efficiency", "efficiency"), ("samples_per_second", "samples/s"),
                    ("load_imbalance", "load imbalance")])


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
    parser.add_argument("study", choices=["strong", "weak", "backends", "all", "report", "plot"])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--mpiexec", default="mpirun")
    parser.add_argument("--scene", default=os.path.join("configs", "spheres.yaml"))
    parser.add_argument("--width", type=int, default=600)
    parser.add_argument("--height", type=int, default=338)
    parser.add_argument("--spp", type=int, default=16)
    parser.add_argument("--gpu-spp", type=int, default=0, help="backends: spp with the GPU (default spp x cores x 16)")
    parser.add_argument("--budget", type=float, default=0,
                        help="seconds; no configuration starts after them (0: no limit)")
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
    runner = None if args.study in ("report", "plot") else Runner(args)
    studies = {"strong": strong, "weak": weak, "backends": backends, "report": report, "plot": plot}
    chosen = ["strong", "weak", "backends"] if args.study == "all" else [args.study]
    try:
        for study in chosen:
            if len(chosen) > 1:
                args.name = ""
            name, text = studies[study](args, runner)
            if name:
                with open(os.path.join(args.results, name + ".md"), "w") as f:
                    f.write(text)
            print(text)
    finally:
        if runner:
            runner.close()


if __name__ == "__main__":
    main()

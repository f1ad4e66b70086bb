"""Generate a synthetic N-chapter book for the benchmark.

    python -m booktools.synth_book OUT_DIR --chapters 60

writes OUT_DIR/_quarto.yml, OUT_DIR/index.qmd (a preface without code) and
OUT_DIR/contents/chNN.qmd (docs/performance.md: 20 code cells, each calculation
guarded by `check()`, 50 inline expressions, two tables and one figure a chapter,
with cross-references). Every number comes from `mlsys` through the names of the
API contract (shared spec `mlsys-api.md`) and the exact model
(`calc_exact_efficiency`, for the waste curve past the first-order domain) only,
with Quantities for every time and count of GPUs or nodes (mlsys has no bare-number
form), so the book keeps working as the package grows; chapters differ in their
parameters, so their numbers differ too.

The checker starts kernels with the book root as working directory, so the
chapters find `mlsys` at OUT_DIR/mlsys: by default the project's package is
copied there (`--link` symlinks it instead, `--no-mlsys` leaves it out, e.g.
when PYTHONPATH provides it).
"""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CELLS_PER_CHAPTER = 20
INLINES_PER_CHAPTER = 50

CLUSTER_GPUS = (256, 512, 1024, 2048, 4096, 8192, 16384)
JOB_HOURS = (1, 2, 4, 6, 8, 12)
MODEL_PARAMS_B = (7, 13, 34, 70, 175, 405)


def fence(code: str, **options) -> str:
    """A ```{python} cell with `#| key: value` option lines."""
    head = "".join(f"#| {k.replace('_', '-')}: {v}\n" for k, v in options.items())
    return f"```{{python}}\n{head}{code.strip()}\n```\n"


def inline_prose(prose: str) -> str:
    """Turn each «expr» in a paragraph into an inline expression `{python} expr`."""
    return prose.replace("«", "`{python} ").replace("»", "`")


# (code of one calculation cell, a paragraph with exactly three «inline expressions»)
CALCULATIONS: list[tuple[str, str]] = [
    ("""
node_mtbf = calc_mtbf_node(GPU_MTTF_HOURS * hour, GPUS_PER_HOST * gpu, NIC_MTTF_HOURS * hour,
                           n_nics, PSU_MTTF_HOURS * hour, n_psus)
node_mtbf_hours = node_mtbf.to("hour").magnitude
node_mtbf_str = fmt(node_mtbf, "hour", figures=3)
check(node_mtbf_hours < GPU_MTTF_HOURS / GPUS_PER_HOST, "a node fails more often than its GPUs")
""", 'A node with «GPUS_PER_HOST» GPUs and «n_nics» NICs fails about every '
     '«node_mtbf_str» hours.'),
    ("""
cluster_mtbf = calc_mtbf_cluster(node_mtbf, n_nodes * node)
cluster_mtbf_hours = cluster_mtbf.to("hour").magnitude
cluster_mtbf_str = fmt_duration(cluster_mtbf)
check(isclose(cluster_mtbf_hours * n_nodes, node_mtbf_hours), "cluster MTBF scales as 1/N")
""", 'Across «f"{n_nodes:,}"» nodes the cluster sees a failure every «cluster_mtbf_str», '
     'that is «fmt(cluster_mtbf, "minute", figures=3)» minutes.'),
    ("""
job_duration = job_hours * hour
p_fail = calc_failure_probability(cluster_mtbf, job_duration)
p_fail_str = fmt_percent(p_fail)
check(0 < p_fail <= 1, "a probability")
""", 'A «job_hours»-hour job on «f"{n_gpus:,}"» GPUs is interrupted with '
     'probability «p_fail_str».'),
    ("""
expected_failures = (job_duration / cluster_mtbf).to("dimensionless").magnitude
expected_failures_str = fmt(expected_failures, figures=3)
failures_per_day = 24 / cluster_mtbf_hours
check(expected_failures > 0, "some failures are expected")
""", 'It should expect about «expected_failures_str» failures, '
     '«fmt(failures_per_day, figures=3)» per day, '
     'one every «fmt_duration(cluster_mtbf)».'),
    ("""
ckpt_size = calc_checkpoint_size(params_b * 10**9)
ckpt_size_tb = ckpt_size.to("TB").magnitude
ckpt_size_str = fmt(ckpt_size, "TB", figures=3)
check(ckpt_size_tb > 0, "a checkpoint has a size")
""", 'A «params_b»-billion-parameter model writes a checkpoint of '
     '«ckpt_size_str» TB («fmt(ckpt_size, "GB", figures=3)» GB).'),
    ("""
ckpt_cost_s = ckpt_size.to("GB").magnitude / CHECKPOINT_WRITE_BW_GBS
ckpt_cost = ckpt_cost_s * second
ckpt_cost_str = fmt_duration(ckpt_cost)
check(ckpt_cost_s > 0, "writing takes time")
""", 'At «CHECKPOINT_WRITE_BW_GBS» GB/s it takes «ckpt_cost_str» '
     '(«fmt(ckpt_cost_s, figures=3)» s) to write.'),
    ("""
yd_interval = calc_young_daly_interval(ckpt_cost, cluster_mtbf)
yd_interval_s = yd_interval.to("second").magnitude
yd_interval_min = yd_interval.to("minute").magnitude
yd_interval_str = fmt_duration(yd_interval)
checkpoints_per_job = (job_duration / yd_interval).to("dimensionless").magnitude
check(yd_interval > ckpt_cost, "checkpoint less often than it takes to write one")
""", "Young and Daly's optimum is to checkpoint every «yd_interval_str», "
     '«fmt(yd_interval_min, figures=3)» minutes, or '
     '«fmt(checkpoints_per_job, figures=3)» checkpoints per job.'),
    ("""
daly_interval = calc_daly_interval(ckpt_cost, cluster_mtbf)
daly_gap_s = abs(daly_interval.to("second").magnitude - yd_interval_s)
daly_interval_str = fmt_duration(daly_interval)
check(daly_interval <= cluster_mtbf, "never checkpoint less often than the MTBF")
""", "Daly's refinement gives «daly_interval_str», "
     '«fmt(daly_gap_s, precision=1, allow_zero=True)» s from the first-order value, '
     'or «sci(daly_gap_s + 1)» in scientific notation.'),
    ("""
recovery = calc_recovery_time(HEARTBEAT_TIMEOUT_S * second, RESCHEDULE_TIME_S * second, ckpt_cost,
                              yd_interval / 2)
recovery_str = fmt_duration(recovery)
check(recovery.to("second").magnitude > HEARTBEAT_TIMEOUT_S, "recovery includes detection")
""", 'Recovering takes «recovery_str»: «HEARTBEAT_TIMEOUT_S» s to detect and '
     '«RESCHEDULE_TIME_S» s to reschedule, before reloading and replaying.'),
    ("""
waste_opt = calc_waste_fraction(yd_interval, ckpt_cost, cluster_mtbf,
                                HEARTBEAT_TIMEOUT_S * second, RESCHEDULE_TIME_S * second)
waste_opt_str = fmt_percent(waste_opt)
check(0 < waste_opt < 1, "waste is a fraction")
""", 'At the optimum the job wastes «waste_opt_str» of its time, '
     '«fmt(waste_opt * job_hours * 60, figures=3)» minutes of its '
     '«fmt(job_hours * 60, figures=3)».'),
    ("""
waste_double = calc_waste_fraction(2 * yd_interval, ckpt_cost, cluster_mtbf)
waste_half = calc_waste_fraction(yd_interval / 2, ckpt_cost, cluster_mtbf)
waste_plain = calc_waste_fraction(yd_interval, ckpt_cost, cluster_mtbf)
check(waste_double > waste_plain and waste_half > waste_plain, "the optimum is a minimum")
""", 'Checkpointing half as often wastes «fmt_percent(waste_double)», twice as often '
     '«fmt_percent(waste_half)», against «fmt_percent(waste_plain)».'),
    ("""
single_availability = 1 - recovery.to("hour").magnitude / node_mtbf_hours
serial_availability = calc_availability_serial(single_availability, n_nodes)
check(serial_availability <= single_availability, "more parts, less availability")
""", 'One node is up «fmt_percent(single_availability, precision=4)» of the time; '
     'all «n_nodes» at once only «fmt_percent(serial_availability)».'),
    ("""
replicas = 2 + chapter % 3
stacked_availability = calc_availability_stacked(replica_availability, replicas)
check(stacked_availability > replica_availability, "replicas add availability")
""", 'With «replicas» replicas each up «fmt_percent(replica_availability)», '
     'the service is down only «sci(1 - stacked_availability)» of the time.'),
    ("""
nines = calc_nines(stacked_availability)
nines_single = calc_nines(replica_availability)
check(nines > nines_single, "more nines with replicas")
""", 'That is «fmt(nines, precision=1)» nines instead of «fmt(nines_single, precision=1)», '
     'a gain of «fmt(nines - nines_single, precision=1)».'),
    ("""
downtime = calc_annual_downtime(stacked_availability)
downtime_single = calc_annual_downtime(replica_availability)
check(downtime < downtime_single, "replicas cut downtime")
""", 'Yearly downtime falls from «fmt_duration(downtime_single)» to '
     '«sci(downtime.to("second").magnitude)» seconds, out of «f"{HOURS_PER_YEAR:,}"» hours.'),
    ("""
step_success = 0.99 - 0.001 * (chapter % 5)
chain_steps = 10 + chapter % 20
chain = calc_chain_success(step_success, chain_steps)
check(chain < step_success, "a chain is weaker than its links")
""", 'An agent whose steps succeed «fmt_percent(step_success)» of the time finishes '
     '«chain_steps» steps with probability «fmt_percent(chain)».'),
]

INTRO = ('This synthetic chapter checks a cluster of «f"{n_gpus:,}"» GPUs running for '
         '«job_hours» hours; see @tbl-ch{n}-mtbf, @tbl-ch{n}-waste and @fig-ch{n}-waste.')

SETUP = """
from math import isclose
from mlsys.constants import (GPU_MTTF_HOURS, NIC_MTTF_HOURS, PSU_MTTF_HOURS,
                             GPUS_PER_HOST, HEARTBEAT_TIMEOUT_S, RESCHEDULE_TIME_S,
                             CHECKPOINT_WRITE_BW_GBS, HOURS_PER_YEAR, second, minute,
                             hour, day, GB, TB, gpu, node)
from mlsys.formulas import (calc_mtbf_node, calc_mtbf_cluster, calc_failure_probability,
                            calc_checkpoint_size, calc_young_daly_interval,
                            calc_daly_interval, calc_recovery_time, calc_waste_fraction,
                            calc_availability_serial, calc_availability_stacked,
                            calc_nines, calc_annual_downtime, calc_chain_success,
                            calc_exact_efficiency)
from mlsys.formatting import fmt, fmt_percent, fmt_duration, sci, md_table, check

chapter = {n}
n_gpus = {gpus}
n_nodes = n_gpus // GPUS_PER_HOST
n_nics, n_psus = 8, 2
job_hours = {hours}
params_b = {params}
replica_availability = 0.99 + 0.001 * (chapter % 9)
"""

TABLE_MTBF = """
import pandas as pd

sizes = [n_gpus // 4, n_gpus // 2, n_gpus, n_gpus * 2, n_gpus * 4]
rows = []
for gpus in sizes:
    mtbf = calc_mtbf_cluster(node_mtbf, gpus // GPUS_PER_HOST * node)
    rows.append({"GPUs": f"{gpus:,}", "Cluster MTBF": fmt_duration(mtbf),
                 "Failures per day": fmt(24 / mtbf.to("hour").magnitude, figures=3)})
check(len(rows) == len(sizes), "one row per cluster size")
md_table(pd.DataFrame(rows))
"""

TABLE_WASTE = """
import pandas as pd

# the exact model: 4x the optimum is outside the first-order model's domain
def exact_waste(interval):
    return 1 - calc_exact_efficiency(interval, ckpt_cost, 0 * second, cluster_mtbf)


factors = [0.25, 0.5, 1, 2, 4]
waste_rows = []
for factor in factors:
    interval = factor * yd_interval
    waste_rows.append({"Interval": fmt_duration(interval), "x optimum": f"{factor:g}",
                       "Waste": fmt_percent(exact_waste(interval))})
md_table(pd.DataFrame(waste_rows))
"""

FIGURE = """
import matplotlib.pyplot as plt

minutes = [yd_interval_min * f / 20 for f in range(2, 81)]
waste_curve = [100 * exact_waste(m * minute) for m in minutes]
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.plot(minutes, waste_curve)
ax.axvline(yd_interval_min, linestyle=":")
ax.set_xlabel("Checkpoint interval (minutes)")
ax.set_ylabel("Wasted time (%)")
plt.show()
"""


def chapter_text(n: int) -> str:
    """The .qmd text of synthetic chapter n (1-based)."""
    params = {"n": n, "gpus": CLUSTER_GPUS[n % len(CLUSTER_GPUS)],
              "hours": JOB_HOURS[n % len(JOB_HOURS)],
              "params": MODEL_PARAMS_B[n % len(MODEL_PARAMS_B)]}
    parts = [f"# Synthetic chapter {n} {{#sec-ch{n}}}\n",
             fence(SETUP.format(**params), label=f"setup-ch{n}"),
             inline_prose(INTRO.replace("{n}", str(n))) + "\n"]
    for step, (code, prose) in enumerate(CALCULATIONS, start=1):
        if step % 4 == 1:
            parts.append(f"## Step group {step // 4 + 1} {{#sec-ch{n}-g{step // 4 + 1}}}\n")
        parts.append(fence(code))
        parts.append(inline_prose(prose) + "\n")
    parts.append(f"## Tables and figure {{#sec-ch{n}-results}}\n")
    parts.append(f"@tbl-ch{n}-mtbf shows how the cluster MTBF falls as the cluster grows.\n")
    parts.append(fence(TABLE_MTBF, label=f"tbl-ch{n}-mtbf",
                       tbl_cap=f'"Cluster MTBF by size, chapter {n}"'))
    parts.append(f"@tbl-ch{n}-waste and @fig-ch{n}-waste show the waste around the optimum.\n")
    parts.append(fence(TABLE_WASTE, label=f"tbl-ch{n}-waste",
                       tbl_cap=f'"Waste against checkpoint interval, chapter {n}"'))
    parts.append(fence(FIGURE, label=f"fig-ch{n}-waste",
                       fig_cap=f'"Waste against checkpoint interval, chapter {n}"',
                       fig_alt='"A convex curve with its minimum at the Young-Daly interval."'))
    return "\n".join(parts)


def quarto_yml(chapter_paths: list[str]) -> str:
    listing = "".join(f"    - {p}\n" for p in chapter_paths)
    return ("project:\n  type: book\n  output-dir: _book\n\n"
            "book:\n  title: \"A synthetic benchmark book\"\n  chapters:\n"
            f"{listing}\n"
            "execute:\n  echo: false\n  warning: false\n\njupyter: python3\n")


INDEX = """# Preface {.unnumbered}

A generated book for `make bench`: every chapter computes the same kinds of
numbers with `mlsys`, for a different cluster. See @sec-ch1 to start.
"""


def write_book(out_dir: Path, chapters: int, mlsys: str = "copy",
               mlsys_source: Path | None = None) -> list[str]:
    """Write the book; returns the chapter paths (project-relative, index.qmd first).

    mlsys: "copy" (default), "link" (symlink) or "none".
    """
    out_dir = Path(out_dir)
    (out_dir / "contents").mkdir(parents=True, exist_ok=True)
    paths = ["index.qmd"]
    (out_dir / "index.qmd").write_text(INDEX, encoding="utf-8")
    width = max(2, len(str(chapters)))
    for n in range(1, chapters + 1):
        rel = f"contents/ch{n:0{width}d}.qmd"
        (out_dir / rel).write_text(chapter_text(n), encoding="utf-8")
        paths.append(rel)
    (out_dir / "_quarto.yml").write_text(quarto_yml(paths), encoding="utf-8")
    source = Path(mlsys_source or PROJECT_ROOT / "mlsys")
    target = out_dir / "mlsys"
    if mlsys != "none" and not target.exists():
        if mlsys == "link":
            target.symlink_to(source.resolve(), target_is_directory=True)
        else:
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m booktools.synth_book", description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--chapters", type=int, default=60)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--link", action="store_true", help="symlink mlsys/ instead of copying it")
    group.add_argument("--no-mlsys", action="store_true", help="do not provide mlsys/ in the book")
    args = parser.parse_args(argv)
    mode = "link" if args.link else "none" if args.no_mlsys else "copy"
    paths = write_book(args.out_dir, args.chapters, mlsys=mode)
    print(f"wrote {len(paths) - 1} chapters (+ index.qmd) to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

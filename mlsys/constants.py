"""Units and every input number of the book, each with a description and a source.

Layer 1 of ``mlsys`` (imports nothing else from the package).

* ``ureg`` is the package's single pint ``UnitRegistry``; ``Q_`` builds Quantities.
* ``GB``, ``TB``, ``byte``, ``second``, ``minute``, ``hour``, ``day``, ``FIT`` are
  unit shortcuts (``GB`` is the decimal gigabyte, 1e9 byte; ``FIT`` one failure
  per 10⁹ device-hours). Information (``bit``, ``byte``) is its own dimension.
* ``gpu`` and ``node`` are units of counts, each its own dimension, so a count of
  GPUs passed where nodes are expected is a DimensionalityError:
  ``10_000 * gpu / (GPUS_PER_HOST * gpu / node)`` is ``1250 node``.
* Every constant is a plain ``int`` or ``float`` whose name carries its unit
  (``GPU_MTTF_HOURS``, ``HEARTBEAT_TIMEOUT_S``, ``CHECKPOINT_WRITE_BW_GBS``);
  counts and fractions are dimensionless.

Provenance lives beside the numbers, not inside them: each constant is declared
with :func:`_declare`, which records a :class:`Constant` row (name, value, unit,
description, source) in a module-level registry and returns the plain number.
Read it with :func:`constant_info` or :func:`list_constants`; the source is a
citation key of the book's ``references.bib`` (see :data:`CITATION_KEYS`) or one
of the markers in :data:`SOURCE_MARKERS`.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import NamedTuple

import pint

# --------------------------------------------------------------------------- units

def _registry() -> pint.UnitRegistry:
    """pint's default definitions, with information as a dimension of its own.

    pint defines ``bit = []``, so bytes are dimensionless and a size converts
    silently into a count, a bandwidth into a frequency. Here ``bit`` is the base
    of ``[information]``: ``(2450 * GB).to(second)`` is a DimensionalityError.
    """
    folder = Path(pint.__file__).parent
    text = (folder / "default_en.txt").read_text(encoding="utf-8")
    constants_text = (folder / "constants_en.txt").read_text(encoding="utf-8")
    for old, new in (("@import constants_en.txt", constants_text),
                     ("\nbit = []\n", "\nbit = [information]\n")):
        if text.count(old) != 1:
            raise RuntimeError(f"pint's default_en.txt changed: cannot find {old.strip()!r}")
        text = text.replace(old, new)
    registry = pint.UnitRegistry(None)
    registry.load_definitions(text.splitlines())
    registry.define("failures_in_time = 1e-9 / hour = FIT")
    registry.define("gpu = [gpu]")      # counts that carry what they count: 10_000 * gpu
    registry.define("node = [node]")    # is not 1250 * node (GPUS_PER_HOST * gpu / node)
    return registry


ureg = _registry()
Q_ = ureg.Quantity
pint.set_application_registry(ureg)

byte = ureg.byte
GB = ureg.gigabyte  # decimal: 1e9 byte
TB = ureg.terabyte  # decimal: 1e12 byte
second = ureg.second
minute = ureg.minute
hour = ureg.hour
day = ureg.day
FIT = ureg.FIT  # failures per 10⁹ device-hours
gpu = ureg.gpu    # a count of GPUs: its own dimension [gpu]
node = ureg.node  # a count of nodes (hosts): its own dimension [node]

# ---------------------------------------------------------------------- provenance

#: Citation keys of the book's references.bib that a constant may cite.
CITATION_KEYS = frozenset({
    "young1974", "daly2006", "grattafiori2024", "wan2025", "ma2025", "tung2026",
    "si2025", "douillard2026", "zhong2024", "qin2025", "erdil2025", "sinha2026",
    "metr2026", "yao2025", "barroso2018", "rajbhandari2020", "kokolis2025",
})

#: Non-citation sources: a modelling choice of ours, or a definition/convention.
SOURCE_MARKERS = frozenset({"assumption", "convention"})


class Constant(NamedTuple):
    """One row of the constants table (``pandas.DataFrame(list_constants())`` works)."""

    name: str
    value: int | float
    unit: str  # pint-parsable unit string; "" for counts, ratios and fractions
    description: str
    source: str  # a key of CITATION_KEYS or a SOURCE_MARKERS marker


_REGISTRY: dict[str, Constant] = {}


def _declare(name: str, value: int | float, unit: str, description: str, source: str):
    """Record a constant's provenance and return its value unchanged (a plain number)."""
    if name in _REGISTRY:
        raise ValueError(f"constant {name} declared twice")
    if type(value) not in (int, float) or not math.isfinite(value):
        raise TypeError(f"{name}: value must be a finite int or float, got {value!r}")
    if source not in CITATION_KEYS | SOURCE_MARKERS:
        close = difflib.get_close_matches(source, sorted(CITATION_KEYS | SOURCE_MARKERS), n=1,
                                          cutoff=0.7)
        if close:
            raise ValueError(f"{name}: unknown source {source!r}: did you mean {close[0]!r}?")
        raise ValueError(f"{name}: unknown source {source!r}: add its entry to references.bib "
                         f"and {source!r} to CITATION_KEYS in mlsys/constants.py, or write "
                         f"source=\"assumption\" or \"convention\"")
    if not description.strip() or "\n" in description:
        raise ValueError(f"{name}: description must be one non-empty line")
    ureg.parse_units(unit)  # fails loudly on a unit pint cannot read
    _REGISTRY[name] = Constant(name, value, unit, description, source)
    return value


def constant_info(name: str) -> Constant:
    """The provenance row of the constant called ``name`` (KeyError if unknown)."""
    return _REGISTRY[name]


def list_constants() -> list[Constant]:
    """All constants in declaration order, as (name, value, unit, description, source) rows."""
    return list(_REGISTRY.values())


# ------------------------------------------------------- component reliability

GPU_MTTF_HOURS = _declare(
    "GPU_MTTF_HOURS", 50_000, "hour",
    "Steady-state MTTF of a datacenter GPU: upstream design value without a per-row source (the Llama 3 ledger implies a longer one)",
    "assumption")
HBM_MTTF_HOURS = _declare(
    "HBM_MTTF_HOURS", 200_000, "hour",
    "Steady-state MTTF of one HBM memory stack (upstream design value)", "assumption")
NIC_MTTF_HOURS = _declare(
    "NIC_MTTF_HOURS", 150_000, "hour",
    "Steady-state MTTF of a network interface card (upstream design value)", "assumption")
PSU_MTTF_HOURS = _declare(
    "PSU_MTTF_HOURS", 100_000, "hour",
    "Steady-state MTTF of a power supply unit (upstream design value)", "assumption")
PCIE_SWITCH_MTTF_HOURS = _declare(
    "PCIE_SWITCH_MTTF_HOURS", 200_000, "hour",
    "Steady-state MTTF of a PCIe switch (upstream design value)", "assumption")
CABLE_MTTF_HOURS = _declare(
    "CABLE_MTTF_HOURS", 500_000, "hour",
    "Steady-state MTTF of an optical cable with its transceiver (upstream design value)", "assumption")
TOR_SWITCH_MTTF_HOURS = _declare(
    "TOR_SWITCH_MTTF_HOURS", 300_000, "hour",
    "Steady-state MTTF of a top-of-rack switch (upstream design value)", "assumption")

# ------------------------------------------------------------ node and cluster

GPUS_PER_HOST = _declare(
    "GPUS_PER_HOST", 8, "", "GPUs in one training node (8-GPU server)", "convention")
NICS_PER_HOST = _declare(
    "NICS_PER_HOST", 2, "", "Network interface cards in the reference node (many 8-GPU nodes carry one per GPU)", "assumption")
PSUS_PER_HOST = _declare(
    "PSUS_PER_HOST", 2, "", "Power supply units in the reference node", "assumption")
PSU_REPAIR_HOURS = _declare(
    "PSU_REPAIR_HOURS", 24, "hour",
    "Time to replace a failed supply of a redundant (N+1) pair, for the calibration's redundancy model", "assumption")

CLUSTER_SMALL_GPUS = _declare(
    "CLUSTER_SMALL_GPUS", 256, "", "Reference cluster size: small", "assumption")
CLUSTER_1K_GPUS = _declare(
    "CLUSTER_1K_GPUS", 1_024, "", "Reference cluster size: one thousand GPUs", "assumption")
CLUSTER_MEDIUM_GPUS = _declare(
    "CLUSTER_MEDIUM_GPUS", 2_048, "", "Reference cluster size: medium", "assumption")
CLUSTER_LARGE_GPUS = _declare(
    "CLUSTER_LARGE_GPUS", 8_192, "", "Reference cluster size: large", "assumption")
CLUSTER_MEGA_GPUS = _declare(
    "CLUSTER_MEGA_GPUS", 100_000, "", "Reference cluster size: frontier scale", "assumption")
WORKED_EXAMPLE_GPUS = _declare(
    "WORKED_EXAMPLE_GPUS", 10_000, "",
    "Cluster size of the checkpoint-interval worked example", "assumption")
WORKED_EXAMPLE_DOUBLED_GPUS = _declare(
    "WORKED_EXAMPLE_DOUBLED_GPUS", 20_000, "",
    "Doubled cluster size of the worked example (halves the cluster MTBF)", "assumption")
WORKED_EXAMPLE_MODEL_PARAMS = _declare(
    "WORKED_EXAMPLE_MODEL_PARAMS", 175e9, "",
    "Parameter count of the model in the checkpoint-interval worked example", "assumption")

# -------------------------------------------------- recovery and checkpointing

HEARTBEAT_TIMEOUT_S = _declare(
    "HEARTBEAT_TIMEOUT_S", 30, "second",
    "Failure detection latency: heartbeat timeout before a node is declared dead", "assumption")
RESCHEDULE_TIME_S = _declare(
    "RESCHEDULE_TIME_S", 60, "second",
    "Time to allocate and admit a replacement node", "assumption")
CHECKPOINT_WRITE_BW_GBS = _declare(
    "CHECKPOINT_WRITE_BW_GBS", 100, "GB/s",
    "Aggregate checkpoint write (and reload) bandwidth to parallel storage", "assumption")
BYTES_PER_PARAM_MIXED_ADAM = _declare(
    "BYTES_PER_PARAM_MIXED_ADAM", 16, "byte",
    "Training memory per parameter, mixed precision with Adam, gradients included (2+2+4+4+4 bytes)",
    "rajbhandari2020")
CHECKPOINT_BYTES_PER_PARAM = _declare(
    "CHECKPOINT_BYTES_PER_PARAM", 14, "byte",
    "Checkpoint bytes per parameter: bf16 weights, fp32 master weights, two fp32 Adam moments (2+4+4+4); no gradients; 12 without the bf16 copy",
    "convention")
OVERHEAD_CHECKPOINT = _declare(
    "OVERHEAD_CHECKPOINT", 0.03, "",
    "Illustrative fraction of wall time spent writing checkpoints (upstream scenario)", "assumption")
OVERHEAD_FAILURE_RECOVERY = _declare(
    "OVERHEAD_FAILURE_RECOVERY", 0.10, "",
    "Illustrative fraction of wall time lost to detection, restart and replay (upstream scenario)",
    "assumption")


EXAMPLE_CHECKPOINT_COST_MIN = _declare(
    "EXAMPLE_CHECKPOINT_COST_MIN", 1, "minute",
    "Illustrative checkpoint cost δ in the failure-budget example", "assumption")
EXAMPLE_DETECT_MIN = _declare(
    "EXAMPLE_DETECT_MIN", 1, "minute",
    "Illustrative detection time D in the failure-budget example", "assumption")
EXAMPLE_RECOVER_MIN = _declare(
    "EXAMPLE_RECOVER_MIN", 1, "minute",
    "Illustrative recovery time R in the failure-budget example", "assumption")

BURN_IN_RATE_FACTOR_LOW = _declare(
    "BURN_IN_RATE_FACTOR_LOW", 2, "",
    "Low end of the failure-rate multiple of new nodes in their first week (upstream figure, no study named)",
    "assumption")
BURN_IN_RATE_FACTOR_HIGH = _declare(
    "BURN_IN_RATE_FACTOR_HIGH", 3, "",
    "High end of the failure-rate multiple of new nodes in their first week (upstream figure, no study named)",
    "assumption")
BURN_IN_DAYS = _declare(
    "BURN_IN_DAYS", 7, "day", "Length of the early-life window with an elevated failure rate", "assumption")
ELASTIC_SPARE_LOW = _declare(
    "ELASTIC_SPARE_LOW", 0.05, "",
    "Low end of spare capacity held for elastic training, as a fraction of the job (upstream figure)",
    "assumption")
ELASTIC_SPARE_HIGH = _declare(
    "ELASTIC_SPARE_HIGH", 0.10, "",
    "High end of spare capacity held for elastic training, as a fraction of the job (upstream figure)",
    "assumption")
USABLE_MODEL_ERROR = _declare(
    "USABLE_MODEL_ERROR", 0.01, "",
    "Largest gap in useful fraction between first-order and exact models that the book accepts",
    "assumption")

# --------------------------------------------------------------- availability

FIRST_ORDER_SMALL_RATIO = _declare(
    "FIRST_ORDER_SMALL_RATIO", 0.1, "",
    "Largest interval or restart time, as a fraction of the MTBF, at which the book calls the first-order waste model valid (tau/M and (D+R)/M small)",
    "convention")
REPLICA_AVAILABILITY = _declare(
    "REPLICA_AVAILABILITY", 0.99, "",
    "Availability of one serving replica in the stacking example", "assumption")

# ---------------------------------------------------------- time conventions

HOURS_PER_YEAR = _declare(
    "HOURS_PER_YEAR", 8_760, "hour/year", "Hours in a 365-day year", "convention")
SECONDS_PER_MINUTE = _declare(
    "SECONDS_PER_MINUTE", 60, "second/minute", "Seconds in a minute", "convention")
JOB_1_DAY_HOURS = _declare(
    "JOB_1_DAY_HOURS", 24, "hour", "Job length for failure-probability tables: one day", "assumption")
JOB_1_WEEK_HOURS = _declare(
    "JOB_1_WEEK_HOURS", 168, "hour", "Job length for failure-probability tables: one week", "assumption")
JOB_30_DAYS_HOURS = _declare(
    "JOB_30_DAYS_HOURS", 720, "hour", "Job length for failure-probability tables: 30 days", "assumption")

# -------------------------------------------- Llama 3 pre-training (grattafiori2024)

LLAMA3_SNAPSHOT_DAYS = _declare(
    "LLAMA3_SNAPSHOT_DAYS", 54, "day",
    "Length of the Llama 3 405B pre-training window whose interruptions were tallied", "grattafiori2024")
LLAMA3_MAX_GPUS = _declare(
    "LLAMA3_MAX_GPUS", 16_384, "", "Largest number of H100 GPUs used by Llama 3 pre-training", "grattafiori2024")
LLAMA3_MODEL_PARAMS = _declare(
    "LLAMA3_MODEL_PARAMS", 405e9, "", "Parameters of the Llama 3 flagship model whose pre-training was tallied",
    "grattafiori2024")
LLAMA3_INTERRUPTIONS_TOTAL = _declare(
    "LLAMA3_INTERRUPTIONS_TOTAL", 466, "", "Job interruptions in the Llama 3 window", "grattafiori2024")
LLAMA3_INTERRUPTIONS_PLANNED = _declare(
    "LLAMA3_INTERRUPTIONS_PLANNED", 47, "",
    "Planned interruptions (maintenance, upgrades) in the Llama 3 window", "grattafiori2024")
LLAMA3_INTERRUPTIONS_UNEXPECTED = _declare(
    "LLAMA3_INTERRUPTIONS_UNEXPECTED", 419, "",
    "Unexpected interruptions in the Llama 3 window", "grattafiori2024")
LLAMA3_GPU_SHARE_OF_UNEXPECTED = _declare(
    "LLAMA3_GPU_SHARE_OF_UNEXPECTED", 0.587, "",
    "Fraction of unexpected Llama 3 interruptions attributed to GPUs (incl. HBM), as the report's percentage column prints it",
    "grattafiori2024")

# Root causes of the unexpected interruptions: the count column of the report's
# root-cause table (its percentage column does not match these counts; see the
# calibration in failure-at-scale.qmd, which also checks that they sum to the total).
LLAMA3_CAUSE_FAULTY_GPU = _declare(
    "LLAMA3_CAUSE_FAULTY_GPU", 148, "",
    "Unexpected Llama 3 interruptions with root cause: faulty GPU", "grattafiori2024")
LLAMA3_CAUSE_GPU_HBM3 = _declare(
    "LLAMA3_CAUSE_GPU_HBM3", 72, "",
    "Unexpected Llama 3 interruptions with root cause: GPU HBM3 memory", "grattafiori2024")
LLAMA3_CAUSE_SOFTWARE_BUG = _declare(
    "LLAMA3_CAUSE_SOFTWARE_BUG", 54, "",
    "Unexpected Llama 3 interruptions with root cause: software bug", "grattafiori2024")
LLAMA3_CAUSE_NETWORK_SWITCH_CABLE = _declare(
    "LLAMA3_CAUSE_NETWORK_SWITCH_CABLE", 35, "",
    "Unexpected Llama 3 interruptions with root cause: network switch or cable", "grattafiori2024")
LLAMA3_CAUSE_HOST_MAINTENANCE = _declare(
    "LLAMA3_CAUSE_HOST_MAINTENANCE", 32, "",
    "Unexpected Llama 3 interruptions with root cause: unplanned host maintenance", "grattafiori2024")
LLAMA3_CAUSE_GPU_SRAM = _declare(
    "LLAMA3_CAUSE_GPU_SRAM", 19, "",
    "Unexpected Llama 3 interruptions with root cause: GPU SRAM memory", "grattafiori2024")
LLAMA3_CAUSE_GPU_SYSTEM_PROCESSOR = _declare(
    "LLAMA3_CAUSE_GPU_SYSTEM_PROCESSOR", 17, "",
    "Unexpected Llama 3 interruptions with root cause: GPU system processor", "grattafiori2024")
LLAMA3_CAUSE_NIC = _declare(
    "LLAMA3_CAUSE_NIC", 7, "",
    "Unexpected Llama 3 interruptions with root cause: network interface card", "grattafiori2024")
LLAMA3_CAUSE_NCCL_WATCHDOG = _declare(
    "LLAMA3_CAUSE_NCCL_WATCHDOG", 7, "",
    "Unexpected Llama 3 interruptions with root cause: NCCL watchdog timeout", "grattafiori2024")
LLAMA3_CAUSE_SDC = _declare(
    "LLAMA3_CAUSE_SDC", 6, "",
    "Unexpected Llama 3 interruptions with root cause: silent data corruption (counted among GPU causes)", "grattafiori2024")
LLAMA3_CAUSE_GPU_THERMAL = _declare(
    "LLAMA3_CAUSE_GPU_THERMAL", 6, "",
    "Unexpected Llama 3 interruptions with root cause: GPU thermal interface and sensor", "grattafiori2024")
LLAMA3_CAUSE_SSD = _declare(
    "LLAMA3_CAUSE_SSD", 3, "",
    "Unexpected Llama 3 interruptions with root cause: SSD", "grattafiori2024")
LLAMA3_CAUSE_PSU = _declare(
    "LLAMA3_CAUSE_PSU", 3, "",
    "Unexpected Llama 3 interruptions with root cause: power supply", "grattafiori2024")
LLAMA3_CAUSE_SERVER_CHASSIS = _declare(
    "LLAMA3_CAUSE_SERVER_CHASSIS", 2, "",
    "Unexpected Llama 3 interruptions with root cause: server chassis", "grattafiori2024")
LLAMA3_CAUSE_IO_EXPANSION_BOARD = _declare(
    "LLAMA3_CAUSE_IO_EXPANSION_BOARD", 2, "",
    "Unexpected Llama 3 interruptions with root cause: IO expansion board", "grattafiori2024")
LLAMA3_CAUSE_DEPENDENCY = _declare(
    "LLAMA3_CAUSE_DEPENDENCY", 2, "",
    "Unexpected Llama 3 interruptions with root cause: dependency", "grattafiori2024")
LLAMA3_CAUSE_CPU = _declare(
    "LLAMA3_CAUSE_CPU", 2, "",
    "Unexpected Llama 3 interruptions with root cause: CPU", "grattafiori2024")
LLAMA3_CAUSE_SYSTEM_MEMORY = _declare(
    "LLAMA3_CAUSE_SYSTEM_MEMORY", 2, "",
    "Unexpected Llama 3 interruptions with root cause: system memory", "grattafiori2024")

LLAMA3_EFFECTIVE_TRAINING_MIN = _declare(
    "LLAMA3_EFFECTIVE_TRAINING_MIN", 0.90, "",
    "Lower bound on Llama 3 effective training time (reported as more than 90 %)", "grattafiori2024")
PROJECTION_GPUS = _declare(
    "PROJECTION_GPUS", 100_000, "",
    "Scale to which the Llama 3 interruption rate is projected (per-GPU rate held fixed)", "assumption")

# --------------------------------------------------------------- ByteRobust (wan2025)

BYTEROBUST_ETTR_MAX = _declare(
    "BYTEROBUST_ETTR_MAX", 0.97, "", "Best effective training time ratio reported by ByteRobust", "wan2025")
BYTEROBUST_GPUS = _declare(
    "BYTEROBUST_GPUS", 9_600, "", "Hopper GPUs in the ByteRobust production job", "wan2025")
BYTEROBUST_DURATION_MONTHS = _declare(
    "BYTEROBUST_DURATION_MONTHS", 3, "month", "Duration of the ByteRobust production job", "wan2025")
BYTEROBUST_CKPT_OVERHEAD_MAX = _declare(
    "BYTEROBUST_CKPT_OVERHEAD_MAX", 0.009, "",
    "Upper bound on training slowdown from checkpointing at every step in ByteRobust", "wan2025")

# --------------------------------------- silent data corruption (ma2025, tung2026)

MA2025_FLAGGED_NODES = _declare(
    "MA2025_FLAGGED_NODES", 15, "", "Nodes flagged unhealthy in the Ma et al. comparison", "ma2025")
MA2025_HEALTHY_NODES = _declare(
    "MA2025_HEALTHY_NODES", 15, "", "Healthy control nodes in the Ma et al. comparison", "ma2025")
TUNG2026_MODEL_SMS = _declare(
    "TUNG2026_MODEL_SMS", 2, "", "Streaming multiprocessors in the reduced GPU model of Tung et al.", "tung2026")
TUNG2026_MICROBENCHMARKS = _declare(
    "TUNG2026_MICROBENCHMARKS", 63, "", "CUDA micro-benchmarks used for fault injection by Tung et al.", "tung2026")
TUNG2026_NAN_INF_SHARE = _declare(
    "TUNG2026_NAN_INF_SHARE", 0.0101, "",
    "Fraction of injected corruptions that produced NaN or Inf values", "tung2026")
TUNG2026_SINGLE_BIT_SHARE_MAX = _declare(
    "TUNG2026_SINGLE_BIT_SHARE_MAX", 0.40, "",
    "Upper bound on the single-bit fraction of non-special bit-flip corruptions", "tung2026")

# --------------------------------------------------------------- NCCLX (si2025)

NCCLX_LATENCY_RATIO_CROSS_RACK = _declare(
    "NCCLX_LATENCY_RATIO_CROSS_RACK", 7, "", "Cross-rack latency relative to same-rack (approx.)", "si2025")
NCCLX_LATENCY_RATIO_CROSS_ZONE = _declare(
    "NCCLX_LATENCY_RATIO_CROSS_ZONE", 15, "", "Cross-zone latency relative to same-rack (approx.)", "si2025")
NCCLX_LATENCY_RATIO_CROSS_BUILDING = _declare(
    "NCCLX_LATENCY_RATIO_CROSS_BUILDING", 30, "",
    "Cross-building latency relative to same-rack (approx.)", "si2025")
NCCLX_FABRIC_GPUS_MIN = _declare(
    "NCCLX_FABRIC_GPUS_MIN", 100_000, "", "Lower bound on GPUs in the NCCLX training fabric", "si2025")

# ---------------------------------------------------- Decoupled DiLoCo (douillard2026)

DILOCO_SIMULATED_CHIPS = _declare(
    "DILOCO_SIMULATED_CHIPS", 1_200_000, "", "Accelerator chips in the Decoupled DiLoCo simulation", "douillard2026")
DILOCO_CHIP_INTERRUPTION_YEARS = _declare(
    "DILOCO_CHIP_INTERRUPTION_YEARS", 1, "year",
    "Mean interval between interruptions of one chip in the simulation", "douillard2026")
DILOCO_LEARNERS = _declare(
    "DILOCO_LEARNERS", 8, "", "Independent learners in the Decoupled DiLoCo simulation", "douillard2026")
DILOCO_GOODPUT = _declare(
    "DILOCO_GOODPUT", 0.88, "", "Goodput kept by Decoupled DiLoCo in the simulation", "douillard2026")
DILOCO_ELASTIC_DP_GOODPUT = _declare(
    "DILOCO_ELASTIC_DP_GOODPUT", 0.58, "",
    "Goodput of elastic data parallelism in the same simulation", "douillard2026")
DILOCO_CROSS_REGION_PARAMS = _declare(
    "DILOCO_CROSS_REGION_PARAMS", 12_000_000_000, "",
    "Parameters of the model trained across regions with Decoupled DiLoCo", "douillard2026")

# ------------------------------------------------------------ DistServe (zhong2024)

DISTSERVE_REQUEST_RATE_GAIN_MAX = _declare(
    "DISTSERVE_REQUEST_RATE_GAIN_MAX", 7.4, "",
    "Best factor of more requests served within SLO by DistServe", "zhong2024")
DISTSERVE_SLO_TIGHTENING_MAX = _declare(
    "DISTSERVE_SLO_TIGHTENING_MAX", 12.6, "",
    "Best factor of tighter SLO met by DistServe", "zhong2024")

# ------------------------------------------- research clusters (kokolis2025)

KOKOLIS2025_MONTHS = _declare(
    "KOKOLIS2025_MONTHS", 11, "",
    "Months of operational data analysed from two multi-tenant ML research clusters", "kokolis2025")
KOKOLIS2025_GPU_HOURS_MIN = _declare(
    "KOKOLIS2025_GPU_HOURS_MIN", 150_000_000, "",
    "A100 GPU-hours covered by that data (a lower bound: over 150 million)", "kokolis2025")
KOKOLIS2025_JOBS = _declare(
    "KOKOLIS2025_JOBS", 4_000_000, "", "Jobs covered by that data (about 4 million)", "kokolis2025")


__all__ = [
    "ureg", "Q_", "byte", "GB", "TB", "second", "minute", "hour", "day", "FIT", "gpu", "node",
    "Constant", "CITATION_KEYS", "SOURCE_MARKERS", "constant_info", "list_constants",
    *_REGISTRY,
]

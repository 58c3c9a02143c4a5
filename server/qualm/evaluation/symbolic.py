"""Symbolic Clustering (Sharma et al., the variant with a uniform distribution over the samples), one
of the paper's multi-sample baselines: cluster the samples by behavioural equivalence checked with
CrossHair (``crosshair diffbehavior``); uncertainty = Shannon entropy (nats) of the cluster sizes,
``-sum_c (|c|/N) ln(|c|/N)``. See ``symbolic_clustering`` for the procedure and the sandbox.

Like the other baselines it takes code strings (the harness caches the model's outputs) and
returns a frozen result whose ``uncertainty`` is None when it cannot be computed.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from qualm_sandbox import SandboxConfig, SandboxUnavailable, choose_isolation, run_program

SampleStatus = Literal["ok", "unparsable", "no entry point", "import failed", "unchecked"]
Verdict = Literal["equivalent", "different", "inconclusive"]

# Runs inside the sandbox as ``python -I -c _CHECKER JOB``, started by ``qualm_sandbox.run_program``
# after the resource limits and (as root) the drop to ``nobody``: CrossHair, whose audit wall also
# blocks file writes, subprocesses and sockets from the candidates while it loads and explores them.
# Standard library until CrossHair: it must not import qualm (not mounted in the sandbox).
_CHECKER = r'''
import json, os, sys

job = json.loads(sys.argv[1])
sys.dont_write_bytecode = True
sys.path.insert(0, os.getcwd())  # the candidates' modules (-I leaves the working folder out)
if job["action"] == "import":
    import importlib
    from crosshair.auditwall import engage_auditwall
    engage_auditwall([])
    module = importlib.import_module(job["module"])
    ok = callable(getattr(module, job["entry_point"], None))
    print(job["marker"] if ok else "entry point not callable after import", flush=True)
    os._exit(0 if ok else 3)
from crosshair.main import main
main(job["argv"])
'''

_IMPORT_OK = "qualm-import-ok"
_MIN_CALL_S = 1.0  # less budget than this left: no new process is started
_OUTPUT_CAP = 2000  # characters of each stream kept for the verdict
_OPEN_FILES = 256


@dataclass(frozen=True)
class SymbolicConfig:
    per_condition_timeout: float = 5.0  # CrossHair's budget per comparison (CPU seconds), as in the notes
    pair_timeout_s: float = 30.0  # wall-clock limit of one crosshair process (start-up included)
    total_budget_s: float = 300.0  # wall-clock limit of the whole clustering
    import_timeout_s: float = 10.0  # wall-clock limit of each sample's import check
    memory_mb: int = 2048  # address space of each sandboxed process (z3 needs a few hundred MB)
    max_processes: int = 64
    max_file_mb: int = 16  # also caps what a process can print (its output goes to a file)
    exception_equivalence: str = "TYPE_AND_MESSAGE"  # CrossHair's default
    sandbox_mode: str = "auto"  # qualm_sandbox's modes: "auto" | "bubblewrap" | "limits"


@dataclass(frozen=True)
class PairCheck:
    sample: int  # the sample being placed
    representative: int  # the first member of the cluster it was compared with
    verdict: Verdict
    seconds: float
    detail: str  # the counterexample, the error's last lines or why it was cut off


@dataclass(frozen=True)
class SymbolicClusteringResult:
    uncertainty: float | None  # entropy (nats) of the cluster sizes; None: see note
    clusters: tuple[tuple[int, ...], ...]  # sample indices; the first of each is its representative
    sample_status: tuple[SampleStatus, ...]
    checks: tuple[PairCheck, ...]  # every diffbehavior comparison, in order
    crosshair_calls: int  # diffbehavior processes started
    import_checks: int  # import-check processes started
    seconds: float
    budget_exhausted: bool  # some samples were placed as singletons without being compared
    isolation: str  # the sandbox that was active, or why there was none
    note: str

    @property
    def cluster_sizes(self) -> tuple[int, ...]:
        return tuple(len(c) for c in self.clusters)


def cluster_entropy(sizes: Sequence[int]) -> float:
    """Shannon entropy (nats) of the distribution |c| / N over clusters."""
    total = sum(sizes)
    return -sum((n / total) * math.log(n / total) for n in sizes if n > 0)


def symbolic_clustering(
    samples: Sequence[str], entry_point: str, config: SymbolicConfig | None = None
) -> SymbolicClusteringResult:
    """Cluster the samples by behaviour with CrossHair; uncertainty = entropy of the cluster sizes.

    Each sample is a module's source defining the top-level function ``entry_point``. Procedure:

    1. Static check in this process (``ast.parse`` only, nothing executed): a sample that does
       not parse, or has no top-level ``def entry_point`` (an ``async def`` does not count:
       CrossHair would compare coroutine objects), is a singleton.
    2. Import check in the sandbox: a sample whose import raises, hangs past
       ``import_timeout_s`` or leaves no callable entry point is a singleton, so a broken sample
       never becomes a representative that every later sample would burn its budget on.
    3. Greedy clustering in sample order: each sample is compared with the representative (first
       member) of each cluster in turn by ``crosshair diffbehavior cand_i.f cand_r.f
       --per_condition_timeout T`` and joins the first one where CrossHair exits 0 with "No
       differences found" ("no difference within the budget" counts as equivalent); otherwise it
       starts a new cluster. A counterexample means different; a crash, a load error, a
       nondeterminism report or the wall-clock limit is inconclusive and never merges.
    4. When ``total_budget_s`` runs out, the samples not yet placed become singletons and
       ``budget_exhausted`` is set (the entropy is then an upper estimate).

    Cost: CrossHair explores both argument orders until ``per_condition_timeout`` CPU seconds are
    spent unless it exhausts every path first, also after finding a difference, so a comparison
    takes about that long plus about half a second of start-up; the greedy scheme needs between
    N - 1 and N (N - 1) / 2 comparisons, plus N import checks (about half a second each).

    Each candidate is written to its own module ``cand_<i>.py``, so two candidates can be
    compared under the same entry-point name without renaming. Untrusted code never runs in this
    process: every import check and comparison is a fresh process in a fresh temporary folder
    holding copies of only the modules it needs, inside qualm's sandbox (``qualm_sandbox.run_program``:
    bubblewrap with its own PID, network and IPC namespaces, read-only system and Python, only that
    folder writable; without bubblewrap, as a normal user, resource limits only), with resource
    limits (CPU, address space, file size, open files, processes), as ``nobody`` when started as
    root, stdout/stderr going to a size-capped file, and its whole process group killed at the
    time limit. CrossHair's audit wall additionally blocks the candidates' writes, subprocesses and
    sockets. A candidate aimed at the harness can still forge its own verdict (it runs inside the
    crosshair process), which would only change this score.

    Returns None as uncertainty with fewer than two samples, without a working sandbox (root
    without bubblewrap) or without CrossHair installed.
    """
    config = config or SymbolicConfig()
    started = time.monotonic()
    status: list[SampleStatus] = [_static_status(code, entry_point) for code in samples]
    if len(samples) < 2:
        return _unavailable(status, started, "", "fewer than two samples")
    problem = _crosshair_missing()
    if problem:
        return _unavailable(status, started, "", problem)
    try:
        isolation = choose_isolation(config.sandbox_mode)
    except SandboxUnavailable as exc:
        return _unavailable(status, started, str(exc), f"no sandbox: {exc}")
    runner = _SandboxedCrossHair(samples, entry_point, config, started + config.total_budget_s)
    try:
        clusters, status, checks, exhausted = _cluster(runner, status)
    finally:
        runner.close()
    sizes = [len(c) for c in clusters]
    note = f"{len(clusters)} clusters of sizes {sizes} from {len(samples)} samples"
    if exhausted:
        note += f"; total budget of {config.total_budget_s:g} s exhausted, unplaced samples are singletons"
    return SymbolicClusteringResult(
        uncertainty=cluster_entropy(sizes),
        clusters=tuple(tuple(c) for c in clusters),
        sample_status=tuple(status),
        checks=tuple(checks),
        crosshair_calls=runner.crosshair_calls,
        import_checks=runner.import_checks,
        seconds=time.monotonic() - started,
        budget_exhausted=exhausted,
        isolation=isolation.note,
        note=note,
    )


def _cluster(
    runner: _SandboxedCrossHair, status: list[SampleStatus]
) -> tuple[list[list[int]], list[SampleStatus], list[PairCheck], bool]:
    """Steps 2-4 of ``symbolic_clustering``: (clusters, statuses, checks, budget exhausted)."""
    clusters: list[list[int]] = []
    checks: list[PairCheck] = []
    exhausted = False
    for i in range(len(status)):
        if status[i] == "ok":
            exhausted = exhausted or runner.left() < _MIN_CALL_S
            status[i] = "unchecked" if exhausted else runner.imports(i)
            exhausted = exhausted or status[i] == "unchecked"
        if status[i] != "ok":
            clusters.append([i])
            continue
        home = None
        for cluster in clusters:
            if status[cluster[0]] != "ok":
                continue  # singletons of broken samples are never representatives
            if runner.left() < _MIN_CALL_S:
                exhausted = True
                break
            check = runner.compare(i, cluster[0])
            checks.append(check)
            if check.verdict == "equivalent":
                home = cluster
                break
        if home is not None:
            home.append(i)
            continue
        exhausted = exhausted or runner.left() <= 0  # the last comparison may have been cut by the budget
        if exhausted:
            status[i] = "unchecked"  # not compared with every representative
        clusters.append([i])
    return clusters, status, checks, exhausted


def _static_status(code: str, entry_point: str) -> SampleStatus:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return "unparsable"
    defined = any(isinstance(node, ast.FunctionDef) and node.name == entry_point for node in tree.body)
    return "ok" if defined else "no entry point"


def _crosshair_missing() -> str | None:
    if importlib.util.find_spec("crosshair") is None:
        return "crosshair-tool is not installed (pip install crosshair-tool==0.0.113)"
    return None


def _unavailable(status: list[SampleStatus], started: float, isolation: str, why: str) -> SymbolicClusteringResult:
    return SymbolicClusteringResult(
        None, (), tuple(status), (), 0, 0, time.monotonic() - started, False, isolation, f"unavailable: {why}"
    )


class _SandboxedCrossHair:
    """Starts the checker in qualm's sandbox, one fresh working folder per process."""

    def __init__(self, samples: Sequence[str], entry_point: str, config: SymbolicConfig, deadline: float) -> None:
        self.samples = samples
        self.entry_point = entry_point
        self.config = config
        self.deadline = deadline
        self.crosshair_calls = 0
        self.import_checks = 0
        self.root = Path(tempfile.mkdtemp(prefix="qualm-symbolic-"))
        self._runs = 0

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def imports(self, i: int) -> SampleStatus:
        """Whether sample i imports in the sandbox and defines a callable entry point ("ok"), or
        not ("import failed"), or the total budget cut the check short ("unchecked")."""
        self.import_checks += 1
        job = {"action": "import", "module": f"cand_{i}", "entry_point": self.entry_point, "marker": _IMPORT_OK}
        timeout = min(self.config.import_timeout_s, self.left())
        code, output, _ = self._run(job, [i], timeout)
        if code == 0 and _IMPORT_OK in output:
            return "ok"
        return "unchecked" if code is None and timeout < self.config.import_timeout_s else "import failed"

    def compare(self, i: int, rep: int) -> PairCheck:
        self.crosshair_calls += 1
        argv = [
            "diffbehavior",
            f"cand_{i}.{self.entry_point}",
            f"cand_{rep}.{self.entry_point}",
            "--per_condition_timeout",
            str(self.config.per_condition_timeout),
            "--exception_equivalence",
            self.config.exception_equivalence,
        ]
        timeout = min(self.config.pair_timeout_s, self.left())
        code, output, seconds = self._run({"action": "diffbehavior", "argv": argv}, [i, rep], timeout)
        verdict, detail = _verdict(code, output, timeout)
        return PairCheck(i, rep, verdict, seconds, detail)

    def _run(self, job: dict[str, object], modules: list[int], timeout: float) -> tuple[int | None, str, float]:
        """(exit code or None on timeout, output, seconds) of one sandboxed checker run."""
        self._runs += 1
        work = self.root / f"run-{self._runs}"  # only these candidates: one run cannot alter another's
        work.mkdir()
        for m in modules:
            (work / f"cand_{m}.py").write_text(self.samples[m])
        limits = SandboxConfig(
            timeout=timeout,
            memory_mb=self.config.memory_mb,
            max_processes=self.config.max_processes,
            max_file_mb=self.config.max_file_mb,
            max_open_files=_OPEN_FILES,
            output_cap=_OUTPUT_CAP,
            mode=self.config.sandbox_mode,
        )
        try:
            result = run_program([sys.executable, "-I", "-c", _CHECKER, json.dumps(job)], work, limits)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return (None if result.timed_out else result.returncode), result.stdout + result.stderr, result.seconds


def _verdict(code: int | None, output: str, timeout: float) -> tuple[Verdict, str]:
    # Exit 0 alone is not enough: a candidate could exit 0 at import; CrossHair also prints its
    # verdict. Exit 1 is both "counterexample" and "crashed", told apart by "Given:".
    lines = [line for line in output.strip().splitlines() if line.strip()]
    if code is None:
        return "inconclusive", f"killed after {timeout:.1f} s"
    if code == 0 and "No differences found" in output:
        return "equivalent", " ".join(lines[-2:])
    if code == 1 and "Given: (" in output:
        start = max(i for i, line in enumerate(lines) if line.startswith("Given: ("))
        return "different", " ".join(x.strip() for x in lines[start : start + 3])
    return "inconclusive", f"exit {code}: " + " | ".join(lines[-3:])

"""The paper's multi-sample baselines, and one multi-candidate functional signal, over plain strings.

The harness caches the model's outputs; every function here takes code strings (or a pass/fail
matrix) and returns a frozen result whose ``uncertainty`` is a float (higher = less trustworthy)
or None when it cannot be computed. Nothing here loads a model.

Definitions (the paper's Baselines paragraph: "Consistency (Basic) and Consistency (VR) [Huang et
al. 2025], both using pairwise CodeBLEU; and Symbolic Clustering [Sharma et al. 2025]"):

* ``codebleu_similarity(a, b)``: CodeBLEU from the ``codebleu`` package (lang "python", default
  weights 0.25 each), symmetrised as the mean of both directions because CodeBLEU's syntax and
  data-flow terms are computed against the reference side only. Two strings equal after stripping
  (what ``calc_codebleu`` compares) score 1.0: for snippets under four tokens BLEU-4's smoothing
  gives identical text less than 1. An exception inside ``codebleu`` scores 0.0 (the pair counts as
  maximal disagreement, never silently dropped); tree-sitter is error tolerant, so unparsable code
  still gets an ordinary score and this is only a last guard. Package quirk, kept as is: the
  combined score uses ``dataflow_match or 1``, so a pair with no data flow in the reference, or
  with none of it matched, gets the full data-flow quarter while a partial match gets part of it
  (k4black/codebleu issue #59); unrelated snippets can therefore score above partly related ones.
* Consistency (VR), Huang et al.'s variation ratio over the N samples s_1..s_N:
  ``VR = 1 - sum_{i != j} sim(s_i, s_j) / (N (N - 1))``; with a symmetric ``sim`` this is
  1 - the mean over the N(N-1)/2 unordered pairs (``pairwise_mean``).
* Consistency (VRO), Huang et al.'s variation ratio against the original (greedy) output g:
  ``VRO = 1 - (1/N) sum_i sim(g, s_i)``.
* Consistency (BLEU), the paper's "Consistency (Basic)" (its tables say "Consistency (BLEU)"):
  ``1 - mean pairwise BLEU`` among the N samples, BLEU being CodeBLEU's n-gram term (BLEU-4,
  symmetrised) alone: agreement of the surface text only, where VR adds CodeBLEU's weighted n-gram,
  syntax and data-flow terms. This reading is qualm's: the paper names the row without a formula and
  Huang et al.'s text could not be read here; it keeps Basic distinct from both VR and VRO.
* Symbolic Clustering (Sharma et al., the variant with a uniform distribution over the samples):
  cluster the samples by behavioural equivalence checked with CrossHair
  (``crosshair diffbehavior``); uncertainty = Shannon entropy (nats) of the cluster sizes,
  ``-sum_c (|c|/N) ln(|c|/N)``. See ``symbolic_clustering`` for the procedure and the sandbox.
* Pass-pattern disagreement (beyond the paper; its Consistency Score paragraph leaves
  "aggregations exploiting multiple candidates' joint pass/fail patterns (pairwise Hamming
  agreement, per-test Bernoulli entropy)" to future work): 1 - the mean pairwise Hamming agreement
  of the samples' pass/fail patterns. See ``pass_pattern_disagreement``.
"""

from __future__ import annotations

import ast
import json
import logging
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal, TypeVar

from qualm_sandbox import NOBODY, SandboxUnavailable, choose_isolation, kill_process_group
from qualm_sandbox.isolation import Isolation

T = TypeVar("T")
GREEDY = -1  # index that stands for the greedy output in ConsistencyResult.pairs

_log = logging.getLogger(__name__)


# --------------------------------------------------------------------------------------------
# CodeBLEU and the consistency baselines
# --------------------------------------------------------------------------------------------


class _DegenerateDataflowWarning(logging.Filter):
    """codebleu logs a root-logger warning for every pair whose reference has no data flow (a
    one-line return): expected here, and thousands of them buried a run's progress lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "data-flow match score degenerates" not in record.getMessage()


_QUIET_DATAFLOW = _DegenerateDataflowWarning()


def _codebleu(reference: str, prediction: str, term: str = "codebleu") -> float:
    from codebleu import calc_codebleu  # imported late: tree-sitter loads on first use

    root = logging.getLogger()
    root.addFilter(_QUIET_DATAFLOW)
    try:
        return float(calc_codebleu([reference], [prediction], lang="python")[term])
    finally:
        root.removeFilter(_QUIET_DATAFLOW)


def bleu_similarity(a: str, b: str) -> float:
    """Symmetrised BLEU-4 (CodeBLEU's n-gram term) in [0, 1]; equal strings 1.0, failures 0.0."""
    if a.strip() == b.strip():
        return 1.0
    try:
        return 0.5 * (_codebleu(a, b, "ngram_match_score") + _codebleu(b, a, "ngram_match_score"))
    except Exception as exc:  # noqa: BLE001 - any failure inside codebleu means "not comparable"
        _log.warning("BLEU failed (%s: %s); similarity 0.0", type(exc).__name__, exc)
        return 0.0


def codebleu_similarity(a: str, b: str) -> float:
    """Symmetrised CodeBLEU in [0, 1] (the module docstring says why and what the guards do)."""
    if a.strip() == b.strip():
        return 1.0
    try:
        return 0.5 * (_codebleu(a, b) + _codebleu(b, a))
    except Exception as exc:  # noqa: BLE001 - any failure inside codebleu means "not comparable"
        _log.warning("CodeBLEU failed (%s: %s); similarity 0.0", type(exc).__name__, exc)
        return 0.0


def _pairwise(items: Sequence[T], sim: Callable[[T, T], float]) -> list[tuple[int, int, float]]:
    return [(i, j, sim(items[i], items[j])) for i, j in combinations(range(len(items)), 2)]


def pairwise_mean(items: Sequence[T], sim: Callable[[T, T], float]) -> float | None:
    """Mean of ``sim`` over the unordered pairs i < j; None with fewer than two items."""
    pairs = _pairwise(items, sim)
    return sum(s for _, _, s in pairs) / len(pairs) if pairs else None


@dataclass(frozen=True)
class ConsistencyResult:
    method: str  # "Consistency (VR)" | "Consistency (VRO)" | "Consistency (BLEU)"
    uncertainty: float | None  # 1 - mean_similarity; None: not enough outputs
    mean_similarity: float | None
    pairs: tuple[tuple[int, int, float], ...]  # (i, j, similarity); i == GREEDY for the greedy output
    samples: int  # number of samples given


def consistency_vr(samples: Sequence[str], sim: Callable[[str, str], float] = codebleu_similarity) -> ConsistencyResult:
    """Huang et al.'s VR: 1 - mean pairwise similarity among the samples (None with fewer than 2)."""
    pairs = _pairwise(samples, sim)
    return _consistency("Consistency (VR)", pairs, len(samples))


def consistency_vro(
    greedy: str, samples: Sequence[str], sim: Callable[[str, str], float] = codebleu_similarity
) -> ConsistencyResult:
    """Huang et al.'s VRO: 1 - mean similarity between the greedy output and each sample (None
    without samples)."""
    pairs = [(GREEDY, j, sim(greedy, s)) for j, s in enumerate(samples)]
    return _consistency("Consistency (VRO)", pairs, len(samples))


def consistency_bleu(samples: Sequence[str], sim: Callable[[str, str], float] = bleu_similarity) -> ConsistencyResult:
    """The paper's Consistency (Basic) / (BLEU): 1 - mean pairwise BLEU among the samples."""
    return _consistency("Consistency (BLEU)", _pairwise(samples, sim), len(samples))


def _consistency(method: str, pairs: list[tuple[int, int, float]], samples: int) -> ConsistencyResult:
    if not pairs:
        return ConsistencyResult(method, None, None, (), samples)
    mean = sum(s for _, _, s in pairs) / len(pairs)
    return ConsistencyResult(method, 1.0 - mean, mean, tuple(pairs), samples)


# --------------------------------------------------------------------------------------------
# Symbolic clustering (CrossHair in the sandbox)
# --------------------------------------------------------------------------------------------

SampleStatus = Literal["ok", "unparsable", "no entry point", "import failed", "unchecked"]
Verdict = Literal["equivalent", "different", "inconclusive"]

# Runs inside the sandbox as ``python -I launcher.py JOB``, before any candidate code: resource
# limits and (as root) a drop to ``nobody`` first, then CrossHair, whose audit wall also blocks
# file writes, subprocesses and sockets from the candidates while it loads and explores them.
# Standard library until CrossHair: it must not import qualm (not mounted in the sandbox).
_LAUNCHER = r'''
import json, os, resource, sys

def limit(which, value):
    try:
        resource.setrlimit(which, (value, value))
    except (ValueError, OSError):
        pass

job = json.loads(sys.argv[1])
lim = job["limits"]
limit(resource.RLIMIT_CPU, lim["cpu_seconds"])
limit(resource.RLIMIT_AS, lim["memory_bytes"])
limit(resource.RLIMIT_FSIZE, lim["file_bytes"])
limit(resource.RLIMIT_NOFILE, lim["open_files"])
limit(resource.RLIMIT_NPROC, lim["processes"])
limit(resource.RLIMIT_CORE, 0)
if job["drop_to_uid"] is not None and os.getuid() == 0:
    # The importer lists the working folder by its absolute path: nobody must be able to
    # traverse its parent, which bubblewrap created (in the sandbox's own mounts) as root-only.
    os.chmod(os.path.dirname(os.getcwd()), 0o755)
    os.setgroups([])
    os.setgid(job["drop_to_uid"])
    os.setuid(job["drop_to_uid"])
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
    holding copies of only the modules it needs, inside qualm's sandbox (``qualm_sandbox``:
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
    runner = _SandboxedCrossHair(samples, entry_point, config, isolation, started + config.total_budget_s)
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
    import importlib.util

    if importlib.util.find_spec("crosshair") is None:
        return "crosshair-tool is not installed (pip install crosshair-tool==0.0.113)"
    return None


def _unavailable(status: list[SampleStatus], started: float, isolation: str, why: str) -> SymbolicClusteringResult:
    return SymbolicClusteringResult(
        None, (), tuple(status), (), 0, 0, time.monotonic() - started, False, isolation, f"unavailable: {why}"
    )


class _SandboxedCrossHair:
    """Starts the launcher in qualm's sandbox, one fresh working folder per process."""

    def __init__(
        self, samples: Sequence[str], entry_point: str, config: SymbolicConfig, isolation: Isolation, deadline: float
    ) -> None:
        self.samples = samples
        self.entry_point = entry_point
        self.config = config
        self.isolation = isolation
        self.deadline = deadline
        self.crosshair_calls = 0
        self.import_checks = 0
        self.root = Path(tempfile.mkdtemp(prefix="qualm-symbolic-"))
        self.launcher = self.root / "launcher.py"  # outside every working folder: read-only inside
        self.launcher.write_text(_LAUNCHER)
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
        """(exit code or None on timeout, output tail, seconds) of one sandboxed launcher run."""
        self._runs += 1
        work = self._work_folder(modules)
        job = {**job, "drop_to_uid": NOBODY if self.isolation.drop_privileges else None, "limits": self._limits(timeout)}
        cmd, cwd, env = self.isolation.command(sys.executable, self.launcher, work)
        out_path = self.root / f"out-{self._runs}.txt"  # outside the working folder, capped by RLIMIT_FSIZE
        t0 = time.monotonic()
        with open(out_path, "wb") as out:
            proc = subprocess.Popen(
                cmd + [json.dumps(job)], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                start_new_session=True,
            )
            try:
                code: int | None = proc.wait(timeout=max(timeout, 0.1))
            except subprocess.TimeoutExpired:
                code = None
            finally:
                kill_process_group(proc)
        seconds = time.monotonic() - t0
        output = _tail(out_path)
        out_path.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)
        return code, output, seconds

    def _work_folder(self, modules: list[int]) -> Path:
        """A fresh folder with copies of only these candidates: one run cannot alter another's."""
        work = self.root / f"run-{self._runs}"
        (work / "home").mkdir(parents=True)
        for m in modules:
            (work / f"cand_{m}.py").write_text(self.samples[m])
        os.chmod(work, 0o777)  # the process may run as nobody
        os.chmod(work / "home", 0o777)
        return work

    def _limits(self, timeout: float) -> dict[str, int]:
        return {
            "cpu_seconds": int(max(timeout, 1.0)) + 1,
            "memory_bytes": self.config.memory_mb * 2**20,
            "file_bytes": self.config.max_file_mb * 2**20,
            "open_files": 256,
            "processes": self.config.max_processes,
        }


def _tail(path: Path, chars: int = 2000) -> str:
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - chars))
        return f.read().decode(errors="replace")


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


# --------------------------------------------------------------------------------------------
# Multi-candidate functional signal
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PassPatternResult:
    uncertainty: float | None  # 1 - mean_agreement; None: no two samples share a run test
    mean_agreement: float | None
    pairs: tuple[tuple[int, int, float, int], ...]  # (i, j, agreement, tests both ran)
    samples: int
    tests: int


def pass_pattern_disagreement(matrix: Sequence[Sequence[bool | None]]) -> PassPatternResult:
    """1 - mean pairwise Hamming agreement of the samples' pass/fail patterns.

    ``matrix[i][t]`` is True when sample i passed self-test t, False when it failed, None when it
    was not run. For each pair of samples i < j, over the tests T_ij that both ran,
    ``agreement_ij = |{t in T_ij : matrix[i][t] == matrix[j][t]}| / |T_ij|`` (pairs with T_ij
    empty are skipped); the uncertainty is 1 - the mean of agreement_ij over the pairs kept, i.e.
    the mean normalised Hamming distance, in [0, 1]. None with fewer than two samples or no pair
    sharing a run test.

    Why this rather than the entropy of the distinct patterns: it is on the same [0, 1] scale as
    the other consistency scores, handles tests that were not run pair by pair, and grades partial
    agreement: with M = 10 tests, two samples differing on one test are nearly alike here, while
    distinct-pattern entropy counts them as fully different. It measures disagreement only:
    samples that all fail the same tests agree perfectly (uncertainty 0), so it complements, not
    replaces, the paper's U_func = 1 - pass rate.
    """
    widths = {len(row) for row in matrix}
    if len(widths) > 1:
        raise ValueError(f"every row needs one entry per test; row lengths {sorted(widths)}")
    tests = widths.pop() if widths else 0
    pairs = []
    for i, j in combinations(range(len(matrix)), 2):
        both = [(a, b) for a, b in zip(matrix[i], matrix[j]) if a is not None and b is not None]
        if both:
            pairs.append((i, j, sum(a == b for a, b in both) / len(both), len(both)))
    if not pairs:
        return PassPatternResult(None, None, (), len(matrix), tests)
    mean = sum(p[2] for p in pairs) / len(pairs)
    return PassPatternResult(1.0 - mean, mean, tuple(pairs), len(matrix), tests)

"""The functions of `import npusim`: each builds an npusim command line, runs the npusim
executable in a child process (one simulation per process, as SystemC requires) and reads
the files it wrote back into result objects (_results.py). Hardware is checked here first,
in this process, by the CLI's own parser (the compiled _npusim module)."""

import json
import os
import shutil
import subprocess
import tempfile

from . import _npusim, _paths
from ._results import EstimateResult, Program, RunResult, SweepResult


class Error(Exception):
    """npusim failed. `message` is what the CLI printed after "error: ", `exit_code` its
    exit status, `log` everything it wrote to stderr."""

    def __init__(self, message, exit_code=None, log=""):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.log = log


class InputError(Error, ValueError):
    """Bad input (exit code 2): a hardware key, a workload, an option; the message names
    the file, the JSON pointer, what was expected and what was found."""


class SimulationError(Error):
    """The simulation ran and failed (exit code 1): an output mismatch, a deadlock."""


def executable():
    """The npusim executable the simulations run in: $NPUSIM_EXECUTABLE, else the one built
    beside this module."""
    return os.environ.get("NPUSIM_EXECUTABLE") or _paths.EXECUTABLE


def parameter_reference():
    """Every hardware key with its default and meaning, as docs/config.md lists them."""
    return _npusim.parameter_reference()


def _sets(set):
    """{"compute.array_rows": 16} (or ["k=v", ...]) as --set assignments."""
    if set is None:
        return []
    if isinstance(set, dict):
        return [f"{k}={v if isinstance(v, str) else json.dumps(v)}" for k, v in set.items()]
    if isinstance(set, (list, tuple)):
        return [str(s) for s in set]
    raise TypeError(f"set: expected a dict of key: value or a list of 'key=value', found {type(set).__name__}")


def hardware(hw=None, set=None):
    """The effective hardware, every field written out, as `npusim run --hw HW --set ...`
    would simulate it. `hw`: None (the built-in defaults), a path or a dict."""
    try:
        if hw is None:
            text = _npusim.resolve_hardware_text("", "<default hardware>", _sets(set))
        elif isinstance(hw, dict):
            text = _npusim.resolve_hardware_text(json.dumps(hw), "hw (a dict)", _sets(set))
        elif isinstance(hw, (str, os.PathLike)):
            text = _npusim.resolve_hardware_file(os.fspath(hw), _sets(set))
        else:
            raise TypeError(f"hw: expected None, a path or a dict, found {type(hw).__name__}")
    except _npusim.ConfigError as e:
        raise InputError(str(e), 2) from None
    return json.loads(text)


class _Scratch:
    """A temporary folder for the files a call hands the CLI; removed afterwards."""

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="npusim-py-")
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)

    def file(self, name, obj):
        path = os.path.join(self.path, name)
        with open(path, "w") as f:
            json.dump(obj, f, indent=1)
        return path


def _hw_args(scratch, hw, set):
    """--hw/--set arguments, after checking them here (a bad key raises before any process)."""
    hardware(hw, set)
    args = []
    if isinstance(hw, dict):
        args += ["--hw", scratch.file("hardware.json", hw)]
    elif hw is not None:
        args += ["--hw", os.fspath(hw)]
    for s in _sets(set):
        args += ["--set", s]
    return args


def _workload_args(scratch, workload):
    if workload is None:
        return []  # the embedded ResNet-18
    if isinstance(workload, dict):
        return [scratch.file("workload.json", workload)]
    if isinstance(workload, (str, os.PathLike)):
        return [os.fspath(workload)]
    raise TypeError(f"workload: expected None, a path or a dict, found {type(workload).__name__}")


def _call(args, verbose=False):
    """Runs `npusim ARGS`; returns its stdout, raises Error on a non-zero exit. With
    `verbose`, its log lines (progress, warnings) go straight to this process's stderr."""
    exe = executable()
    if not os.path.exists(exe):
        raise Error(f"the npusim executable {exe} does not exist: build it (make python)")
    proc = subprocess.run(
        [exe] + args,
        stdout=subprocess.PIPE,
        stderr=None if verbose else subprocess.PIPE,
        text=True,
    )
    log = proc.stderr or ""
    if proc.returncode != 0:
        errors = [l[len("error: "):] for l in log.splitlines() if l.startswith("error: ")]
        message = "\n".join(errors) or log.strip() or f"npusim exited with code {proc.returncode}"
        kind = InputError if proc.returncode == 2 else SimulationError if proc.returncode == 1 else Error
        raise kind(message, proc.returncode, log)
    return proc.stdout, log


def _output_folder(out, scratch, name):
    """`out` as given (the CLI writes into it), else a folder inside the scratch folder."""
    return os.fspath(out) if out is not None else os.path.join(scratch.path, name)


def _decoder_args(prefill, decode, batch):
    args = []
    for flag, value in (("--prefill", prefill), ("--decode", decode), ("--batch", batch)):
        if value is not None:
            args += [flag, str(int(value))]
    return args


def run(workload=None, hw=None, set=None, timing_only=False, policy=None, buffering=None,
        out=None, outputs=None, prefill=None, decode=None, batch=None, verbose=False):
    """Simulates `workload` (None: the embedded ResNet-18; a JSON, CSV or ONNX path; or a
    workload dict) on `hw` with `set` overrides, as `npusim run`. Returns a RunResult.

    timing_only: skip the arithmetic and the reference check (same cycles, faster).
    policy: "strict" or "early"; buffering: "pingpong" or "single" (override the config).
    out: keep the run's files in this folder (as --out); None: a temporary one, removed.
    outputs: read each layer's output tensor as a numpy array (default: on for a
        functional run when numpy is installed).
    prefill, decode, batch: a decoder workload's tokens, steps and sequences."""
    if outputs is None:
        outputs = not timing_only and _have_numpy()
    with _Scratch() as scratch:
        folder = _output_folder(out, scratch, "run")
        args = ["run"] + _workload_args(scratch, workload) + _hw_args(scratch, hw, set)
        args += _decoder_args(prefill, decode, batch) + ["--out", folder]
        if timing_only:
            args.append("--timing-only")
        if policy is not None:
            args += ["--policy", policy]
        if buffering is not None:
            args += ["--buffering", buffering]
        if outputs:
            args.append("--save-outputs")
        stdout, log = _call(args, verbose)
        return RunResult(folder, stdout, log, load_outputs=outputs, kept=out is not None)


def estimate(workload=None, hw=None, set=None, out=None, prefill=None, decode=None, batch=None):
    """The compiler's estimate without a simulation, as `npusim estimate`."""
    with _Scratch() as scratch:
        folder = _output_folder(out, scratch, "estimate")
        args = ["estimate"] + _workload_args(scratch, workload) + _hw_args(scratch, hw, set)
        args += _decoder_args(prefill, decode, batch) + ["--out", folder]
        stdout, log = _call(args)
        return EstimateResult(folder, stdout, log)


def compile(workload=None, hw=None, set=None, output=None, prefill=None, decode=None, batch=None):
    """The compiled program, as `npusim compile`: its header, layers and instructions.
    `output`: also keep the program file there (`npusim run --program FILE` replays it)."""
    with _Scratch() as scratch:
        path = os.fspath(output) if output is not None else os.path.join(scratch.path, "program.jsonl")
        args = ["compile"] + _workload_args(scratch, workload) + _hw_args(scratch, hw, set)
        args += _decoder_args(prefill, decode, batch) + ["-o", path]
        _, log = _call(args)
        return Program(path, log, kept=output is not None)


# Keys of a sweep specification that hold paths, relative to the specification's folder.
_SPEC_PATH_KEYS = ("base_hw", "workload")


def sweep(spec, out=None, jobs=None, timeout_s=None, base_dir=None, verbose=False):
    """Runs a design-space sweep, as `npusim sweep`: `spec` is a sweep JSON path or a dict
    (docs/sweeps.md; a dict's relative paths start from `base_dir`, default the current
    folder). out: the sweep folder (reuse it to resume); None: a temporary one, removed.
    Returns a SweepResult: every point's results.csv row and the Pareto front."""
    with _Scratch() as scratch:
        if isinstance(spec, dict):
            spec = dict(spec)
            base = os.path.abspath(base_dir or os.getcwd())
            for key in _SPEC_PATH_KEYS:
                if isinstance(spec.get(key), str) and not os.path.isabs(spec[key]):
                    spec[key] = os.path.join(base, spec[key])
            spec_path = scratch.file("sweep.json", spec)
        elif isinstance(spec, (str, os.PathLike)):
            spec_path = os.fspath(spec)
        else:
            raise TypeError(f"spec: expected a path or a dict, found {type(spec).__name__}")
        folder = _output_folder(out, scratch, "sweep")
        args = ["sweep", spec_path, "--out", folder]
        if jobs is not None:
            args += ["-j", str(int(jobs))]
        if timeout_s is not None:
            args += ["--timeout-s", str(float(timeout_s))]
        if not verbose:
            args.append("-q")
        stdout, log = _call(args, verbose)
        return SweepResult(folder, stdout, log, kept=out is not None)


def diff(a, b, labels=None):
    """Two runs side by side, as `npusim diff`: `a` and `b` are RunResults kept with `out=`
    or their folders. Returns (the table as the CLI prints it, its rows as dicts)."""
    folders = []
    for run_ in (a, b):
        folder = run_.out if isinstance(run_, RunResult) else os.fspath(run_)
        if folder is None or not os.path.isdir(folder):
            raise InputError(f"diff: {folder}: expected a run's folder (run(..., out=FOLDER)), found none", 2)
        folders.append(folder)
    with _Scratch() as scratch:
        csv_path = os.path.join(scratch.path, "diff.csv")
        args = ["diff"] + folders + ["--csv", csv_path]
        if labels is not None:
            args += ["--labels", ",".join(labels)]
        stdout, _ = _call(args)
        from ._results import read_csv_rows

        return stdout, read_csv_rows(csv_path)


def report(folder, output=None):
    """The interactive HTML page of a run or a sweep, as `npusim report` writes it
    (docs/html-report.md): `folder` is a RunResult or SweepResult kept with `out=`, or its
    folder. Returns the path of the page (default FOLDER/report.html)."""
    if isinstance(folder, (RunResult, SweepResult)):
        folder = folder.out
    if folder is None or not os.path.isdir(folder):
        raise InputError(f"report: {folder}: expected a run's or a sweep's folder (out=FOLDER), found none", 2)
    folder = os.fspath(folder)
    path = os.fspath(output) if output is not None else os.path.join(folder, "report.html")
    _call(["report", folder, "-o", path])
    return path


def _have_numpy():
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True

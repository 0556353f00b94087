"""What npusim's calls return: the files a run, an estimate, a compile or a sweep wrote
(docs/reports.md, docs/sweeps.md), read whole when the call returns, so a result outlives
its temporary folder. Rows are dicts with numbers as int or float; `.df` gives the same
rows as a pandas DataFrame when pandas is installed."""

import csv
import glob
import json
import os


def _number(text):
    """A CSV cell as int, float or the text itself (an empty cell stays "")."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


# Columns that stay text though they may look like numbers (a sweep point's hex id).
_TEXT_COLUMNS = ("id", "name", "status", "reason")


def read_csv_rows(path):
    with open(path, newline="") as f:
        return [{k: v if k in _TEXT_COLUMNS else _number(v) for k, v in row.items()}
                for row in csv.DictReader(f)]


def _read_json(path):
    with open(path) as f:
        return json.load(f)


def _frame(rows):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("this needs pandas (apt-get install python3-pandas); "
                          "the rows are in .layers / .rows as dicts") from e
    return pandas.DataFrame(rows)


class RunResult:
    """A simulation's results: `cycles`, `totals` (report.json's totals), `layers` (one
    dict per operator, the layers.csv columns), `counters` (stats.json), `report` (the
    whole report.json), `hardware` (the effective hardware), `outputs` (layer name ->
    numpy array, functional runs), `summary` (the table the CLI prints), `log` (its stderr
    lines), `out` (the kept folder, or None)."""

    def __init__(self, folder, summary, log, load_outputs=False, kept=False):
        self.report = _read_json(os.path.join(folder, "report.json"))
        self.totals = self.report["totals"]
        self.cycles = self.totals["cycles"]
        self.layers = read_csv_rows(os.path.join(folder, "layers.csv"))
        self.counters = _read_json(os.path.join(folder, "stats.json"))
        self.hardware = _read_json(os.path.join(folder, "hw.resolved.json"))
        self.summary = summary
        self.log = log
        self.out = folder if kept else None
        self.outputs = {}
        if load_outputs:
            import numpy

            for path in sorted(glob.glob(os.path.join(folder, "*.output.npy"))):
                name = os.path.basename(path)[: -len(".output.npy")]
                self.outputs[name] = numpy.load(path)

    @property
    def all_match(self):
        """Every checked output equalled the independent reference (True for timing-only)."""
        return bool(self.totals.get("all_layers_match", True))

    @property
    def df(self):
        """The per-operator rows as a pandas DataFrame."""
        return _frame(self.layers)

    def __repr__(self):
        w = self.report.get("workload", {})
        return f"<npusim.RunResult {w.get('name', '?')}: {self.cycles} cycles, {len(self.layers)} layers>"


class EstimateResult:
    """The compiler's estimate: `cycles`, `totals`, `layers` (report.json's rows),
    `report`, `summary`, `log`."""

    def __init__(self, folder, summary, log):
        self.report = _read_json(os.path.join(folder, "report.json"))
        self.totals = self.report["totals"]
        self.cycles = self.totals["cycles"]
        self.layers = self.report["layers"]
        self.summary = summary
        self.log = log

    @property
    def df(self):
        return _frame(self.layers)

    def __repr__(self):
        return f"<npusim.EstimateResult {self.cycles} cycles, {len(self.layers)} layers>"


class Program:
    """A compiled program (docs/traces.md): `header` (its first line: format, workload,
    hardware), `layers` (each layer's tiling and addresses), `instructions` (one dict per
    instruction, with its dependencies), `path` when kept, `log`."""

    def __init__(self, path, log, kept=False):
        with open(path) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        self.header = lines[0]
        self.layers = [r for r in lines[1:] if "id" not in r]
        self.instructions = [r for r in lines[1:] if "id" in r]
        self.log = log
        self.path = path if kept else None

    def __len__(self):
        return len(self.instructions)

    def __repr__(self):
        return f"<npusim.Program {len(self.instructions)} instructions>"


class SweepResult:
    """A sweep's tables: `rows` (results.csv, one dict per point, pruned ones included),
    `front` (pareto.csv), `spec` (sweep.json), `summary`, `log`, `out` (the kept folder, or None)."""

    def __init__(self, folder, summary, log, kept=False):
        self.rows = read_csv_rows(os.path.join(folder, "results.csv"))
        pareto = os.path.join(folder, "pareto.csv")
        self.front = read_csv_rows(pareto) if os.path.exists(pareto) else []
        self.spec = _read_json(os.path.join(folder, "sweep.json"))
        self.summary = summary
        self.log = log
        self.out = folder if kept else None

    @property
    def ok(self):
        """The finished points."""
        return [r for r in self.rows if r.get("status") == "ok"]

    @property
    def df(self):
        return _frame(self.rows)

    @property
    def front_df(self):
        return _frame(self.front)

    def __repr__(self):
        return f"<npusim.SweepResult {len(self.ok)} of {len(self.rows)} points ok, front {len(self.front)}>"

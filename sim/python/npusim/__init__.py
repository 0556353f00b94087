"""npusim from Python: runs, estimates, compiles, sweeps and diffs, as the CLI does them.

    import npusim
    r = npusim.run("configs/networks/resnet18.json", timing_only=True)
    print(r.cycles, r.layers[0]["cycles"])

Hardware is a path or a dict with the keys of docs/config.md, checked in this process by
the CLI's own parser (a bad key raises npusim.InputError with the CLI's message). Each
simulation runs in its own npusim process (SystemC elaborates once per process). The
reference: docs/python.md.
"""

from ._api import (
    Error,
    InputError,
    SimulationError,
    compile,
    diff,
    estimate,
    executable,
    hardware,
    parameter_reference,
    report,
    run,
    sweep,
)
from ._results import EstimateResult, Program, RunResult, SweepResult
from ._npusim import version as __version__

__all__ = [
    "Error",
    "InputError",
    "SimulationError",
    "EstimateResult",
    "Program",
    "RunResult",
    "SweepResult",
    "compile",
    "diff",
    "estimate",
    "executable",
    "hardware",
    "parameter_reference",
    "report",
    "run",
    "sweep",
]

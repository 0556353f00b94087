"""The Python module (docs/python.md) against the CLI: every call must give what the same
`npusim` command line gives. Run by ctest with PYTHONPATH at the built module and
NPUSIM_BINARY at the executable; the CLI runs here are plain subprocesses, sharing no code
with the module's own process handling."""

import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

import npusim

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NPUSIM = os.environ.get("NPUSIM_BINARY", os.path.join(SOURCE, "build", "npusim"))

# A non-square layer with a rectangular kernel: rows and columns cannot be swapped unseen.
TALL_LAYER = {
    "name": "tall",
    "layers": [{"name": "tall_conv", "type": "conv2d", "N": 1, "C": 24, "H": 37, "W": 11,
                "K": 40, "R": 3, "S": 2, "stride": 1, "padding": 1, "seed": 7,
                "requant": {"scale": 1, "shift": 8}}],
}


def cli(*args, check=True):
    proc = subprocess.run([NPUSIM, *args], capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"npusim {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def cli_error(*args):
    """The message the CLI prints after "error: " (and checks it exits 2)."""
    proc = cli(*args, check=False)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    return [l for l in proc.stderr.splitlines() if l.startswith("error: ")][0][len("error: "):]


def read_json(path):
    with open(path) as f:
        return json.load(f)


def same_cell(value, text):
    """A Python row's value against the CLI's CSV cell: the same number, or the same text."""
    try:
        return float(value) == float(text)
    except ValueError:
        return str(value) == text


class Scratch(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="npusim-pytest-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write_json(self, name, obj):
        with open(self.path(name), "w") as f:
            json.dump(obj, f)
        return self.path(name)


class RunMatchesTheCli(Scratch):
    def test_resnet18_timing_only_cycles_and_layer_rows_equal_the_cli_run(self):
        r = npusim.run(os.path.join(SOURCE, "configs/networks/resnet18.json"), timing_only=True,
                       set={"compute.array_rows": 16})
        cli("run", os.path.join(SOURCE, "configs/networks/resnet18.json"), "--timing-only", "-q",
            "--set", "compute.array_rows=16", "--out", self.path("cli"))
        self.assertEqual(r.cycles, read_json(self.path("cli", "report.json"))["totals"]["cycles"])
        with open(self.path("cli", "layers.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([l["name"] for l in r.layers], [row["name"] for row in rows])
        self.assertEqual([l["cycles"] for l in r.layers], [int(row["cycles"]) for row in rows])
        self.assertEqual(r.hardware["compute"]["array_rows"], 16)
        self.assertIsNone(r.out)  # no out=: the files were temporary

    def test_a_workload_dict_runs_functionally_and_its_output_array_equals_the_cli_npy(self):
        import numpy

        r = npusim.run(TALL_LAYER, set={"compute.array_cols": 8}, out=self.path("py"))
        self.assertTrue(r.all_match)
        self.assertEqual(r.out, self.path("py"))
        self.assertEqual(list(r.outputs), ["tall_conv"])
        cli("run", self.write_json("tall.json", TALL_LAYER), "--set", "compute.array_cols=8", "-q",
            "--out", self.path("cli"), "--save-outputs")
        expected = numpy.load(self.path("cli", "tall_conv.output.npy"))
        self.assertEqual(r.outputs["tall_conv"].shape, expected.shape)
        # N,H,W,C: 37 rows by 12 columns (W 11 + 2 x padding 1 - S 2 + 1): rows stay rows
        self.assertEqual(r.outputs["tall_conv"].shape[1:3], (37, 12))
        self.assertTrue(numpy.array_equal(r.outputs["tall_conv"], expected))
        self.assertEqual(r.cycles, read_json(self.path("cli", "report.json"))["totals"]["cycles"])

    def test_estimate_and_compile_give_the_cli_figures(self):
        e = npusim.estimate(TALL_LAYER)
        cli("estimate", self.write_json("tall.json", TALL_LAYER), "-q", "--out", self.path("est"))
        self.assertEqual(e.cycles, read_json(self.path("est", "report.json"))["totals"]["cycles"])
        p = npusim.compile(TALL_LAYER)
        cli("compile", self.path("tall.json"), "-o", self.path("prog.jsonl"))
        with open(self.path("prog.jsonl")) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual(len(p.instructions), sum(1 for r in records[1:] if "id" in r))
        self.assertEqual(p.layers[0]["name"], "tall_conv")
        self.assertEqual(p.header["npusim_program"], records[0]["npusim_program"])


class HardwareErrorsAreTheClis(Scratch):
    def test_a_bad_key_in_a_hardware_dict_raises_the_message_the_cli_prints_for_that_file(self):
        bad = {"cache": {"size_kb": 512}}
        with self.assertRaises(npusim.InputError) as caught:
            npusim.run(hw=bad)
        expected = cli_error("run", "--hw", self.write_json("bad.json", bad))
        # The same message but for the origin: the CLI names the file, Python the dict.
        self.assertEqual(str(caught.exception).replace("hw (a dict)", self.path("bad.json")), expected)
        self.assertIn('did you mean "size_kib"', str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 2)

    def test_a_bad_set_value_raises_the_clis_message_and_an_unknown_preset_too(self):
        with self.assertRaises(npusim.InputError) as caught:
            npusim.hardware(set={"compute.array_rows": 0})
        self.assertEqual(str(caught.exception), cli_error("run", "--set", "compute.array_rows=0"))
        with self.assertRaises(ValueError) as caught:  # InputError is a ValueError
            npusim.hardware(set={"dram.preset": "hbm9"})
        self.assertEqual(str(caught.exception), cli_error("run", "--set", "dram.preset=hbm9"))

    def test_a_hardware_file_resolves_to_the_clis_resolved_config(self):
        hw = os.path.join(SOURCE, "configs/hw/edge_npu.json")
        cli("run", TALL_LAYER_PATH(self), "--hw", hw, "--set", "cache.size_kib=128", "--timing-only",
            "-q", "--out", self.path("cli"))
        with open(self.path("cli", "hw.resolved.json")) as f:
            self.assertEqual(npusim.hardware(hw, set={"cache.size_kib": 128}), json.load(f))

    def test_a_failing_workload_raises_input_error_with_the_clis_message(self):
        missing = self.path("no_such_workload.json")
        with self.assertRaises(npusim.InputError) as caught:
            npusim.run(missing)
        self.assertIn("no_such_workload.json", str(caught.exception))

    def test_a_missing_executable_is_named(self):
        os.environ["NPUSIM_EXECUTABLE"] = self.path("nowhere", "npusim")
        try:
            with self.assertRaises(npusim.Error) as caught:
                npusim.run(timing_only=True)
        finally:
            del os.environ["NPUSIM_EXECUTABLE"]
        self.assertIn(self.path("nowhere", "npusim"), str(caught.exception))


def TALL_LAYER_PATH(case):
    return case.write_json("tall.json", TALL_LAYER)


class SweepAndDiff(Scratch):
    def test_a_20_point_sweep_returns_the_clis_results_rows(self):
        spec = os.path.join(SOURCE, "configs/sweeps/resnet18_array_cache.json")
        s = npusim.sweep(spec, jobs=2)
        self.assertIsNone(s.out)
        cli("sweep", spec, "--out", self.path("cli"), "-j", "2", "-q")
        with open(self.path("cli", "results.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(s.ok), 20)
        self.assertEqual(len(s.rows), len(rows))
        for mine, theirs in zip(s.rows, rows):
            for column, text in theirs.items():
                if column == "wall_s":  # the simulator's own wall time differs run to run
                    continue
                self.assertEqual(same_cell(mine[column], text), True, (mine["id"], column, text))
        with open(self.path("cli", "pareto.csv"), newline="") as f:
            self.assertEqual([r["id"] for r in s.front], [r["id"] for r in csv.DictReader(f)])

    def test_dataframes_hold_the_same_rows_as_the_dicts(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            self.skipTest("no pandas (python3-pandas): .df is not available")
        r = npusim.run(TALL_LAYER, timing_only=True)
        self.assertEqual(list(r.df["name"]), [l["name"] for l in r.layers])
        self.assertEqual(int(r.df["cycles"].sum()), sum(l["cycles"] for l in r.layers))
        s = npusim.sweep({"name": "df", "base_hw": "configs/hw/default.json",
                          "workload": "configs/networks/tiny3.json", "timing_only": True,
                          "parameters": [{"pointer": "/cache/size_kib", "values": [64, 128, 256]}]},
                         base_dir=SOURCE, jobs=2)
        self.assertEqual(list(s.df["id"]), [row["id"] for row in s.rows])
        self.assertEqual(len(s.front_df), len(s.front))

    def test_a_sweep_dict_with_relative_paths_runs_from_base_dir(self):
        spec = {"name": "tiny", "base_hw": "configs/hw/default.json",
                "workload": "configs/networks/resnet18.json", "timing_only": True,
                "parameters": [{"pointer": "/cache/size_kib", "values": [256, 512]}]}
        s = npusim.sweep(spec, out=self.path("sweep"), base_dir=SOURCE, jobs=2)
        self.assertEqual(s.out, self.path("sweep"))
        self.assertEqual(sorted(r["cache.size_kib"] for r in s.ok), [256, 512])
        self.assertTrue(os.path.exists(self.path("sweep", "results.csv")))

    def test_report_writes_the_html_page_of_a_kept_run(self):
        r = npusim.run(TALL_LAYER, timing_only=True, out=self.path("run"))
        try:
            page = npusim.report(r)
        except npusim.InputError as e:
            if "Chart.js" in str(e):  # a build without tools/web (install-deps --web)
                self.skipTest(str(e))
            raise
        self.assertEqual(page, self.path("run", "report.html"))
        with open(page) as f:
            html = f.read()
        self.assertIn("tall_conv", html)
        self.assertIn("<html", html)
        with self.assertRaises(npusim.InputError):
            npusim.report(npusim.run(TALL_LAYER, timing_only=True))  # nothing kept

    def test_diff_of_two_runs_gives_b_over_a_cycle_ratios(self):
        a = npusim.run(TALL_LAYER, timing_only=True, out=self.path("a"))
        b = npusim.run(TALL_LAYER, timing_only=True, set={"compute.array_rows": 8}, out=self.path("b"))
        text, rows = npusim.diff(a, b, labels=("32x32", "8x32"))
        self.assertIn("8x32", text)
        self.assertEqual(rows[0]["cycles_a"], a.layers[0]["cycles"])
        self.assertEqual(rows[0]["cycles_b"], b.layers[0]["cycles"])
        self.assertAlmostEqual(rows[0]["cycles_ratio"], b.cycles / a.cycles, places=5)
        with self.assertRaises(npusim.InputError):
            npusim.diff(npusim.run(TALL_LAYER, timing_only=True), b)  # a run without out=


if __name__ == "__main__":
    unittest.main(verbosity=2)

#!/usr/bin/python3
"""Opens the HTML reports of `npusim report` in headless Chromium (docs/html-report.md).

  tests/browser/run_browser_tests.py NPUSIM [SCREENSHOT_DIR]

Makes a run folder (ResNet-18, timing only) and a sweep folder (the shipped area sweep's
grid on tiny3), writes both reports, and opens each in headless Chromium twice: once with
--dump-dom, to read the counts the page's script writes into #npusim-report-state after
drawing (window.npusimReport), and once with --screenshot. It checks that

  - the page logged nothing to the console (our pages never log: any message, an uncaught
    exception included, is a failure) and caught no error;
  - the run page's table has a row per layer and, sorted by a column (#sort=3, the cycles),
    its rows are in order; the roofline has a mark per layer with MACs and DRAM bytes and
    the cycles chart a bar per layer;
  - the sweep's Pareto scatter has one mark per finished point and one front mark per row of
    pareto.csv, and a sensitivity plot per varied parameter;
  - hovering a mark gives its point's tooltip, with its parameters, and selecting two puts
    both side by side in the comparison table: once from the page's address (#hover=2,
    #select=0,3, read with --dump-dom), and once as a user would, with the mouse: Chromium
    driven over the DevTools protocol (--remote-debugging-pipe) moves the mouse onto the
    marks and clicks them (Input.dispatchMouseEvent), and reads the page back.

Screenshots (run.png, sweep.png, sweep-mouse.png) go to SCREENSHOT_DIR (default: a folder it names). Exit 0 when every check
passes, 1 otherwise, 77 (skipped, for ctest) without Chromium (Debian's `chromium`) or when
npusim was built without Chart.js (tools/install-deps --web).
"""
import base64
import html.parser
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def find_browser():
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        if "built without Chart.js" in p.stderr:
            print("SKIP: npusim was built without Chart.js (run tools/install-deps --web, then "
                  "configure and build again)")
            sys.exit(SKIP)
        sys.exit(f"browser test: {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


class Browser:
    def __init__(self, binary, scratch):
        self.binary = binary
        self.profile = os.path.join(scratch, "profile")

    def open(self, url, *extra):
        """Returns (stdout, console lines) of one headless load of `url`."""
        cmd = [self.binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--user-data-dir=" + self.profile, "--enable-logging=stderr",
               "--v=0", "--virtual-time-budget=5000", *extra, url]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
        if p.returncode != 0:
            failures.append(f"chromium exited {p.returncode} on {url}")
            print(p.stderr[-2000:])
        return p.stdout, console

    def state(self, url):
        """The page's #npusim-report-state after drawing, the dumped DOM, the console lines."""
        dom, console = self.open(url, "--dump-dom")
        m = re.search(r'<pre id="npusim-report-state"[^>]*>(.*?)</pre>', dom, re.S)
        text = html.unescape(m.group(1)) if m else ""
        try:
            state = json.loads(text)
        except ValueError:
            state = {}
        return state, dom, console

    def screenshot(self, url, path, height):
        self.open(url, f"--screenshot={path}", f"--window-size=1300,{height}")
        ok = os.path.isfile(path) and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        check(ok, f"screenshot {path} written")


class DevTools:
    """Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: it reads
    commands on fd 3 and writes replies and events on fd 4, each JSON text ending in a NUL)."""

    def __init__(self, binary, scratch):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--remote-debugging-pipe",
               "--user-data-dir=" + os.path.join(scratch, "profile-devtools"), "about:blank"]
        # The shell puts the pipes on fds 3 and 4, where Chromium expects them.
        self.proc = subprocess.Popen(
            ["/bin/sh", "-c", f'exec "$@" 3<&{to_chrome_r} 4>&{from_chrome_w}', "sh", *cmd],
            pass_fds=(to_chrome_r, from_chrome_w), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer, self.next_id, self.events, self.session = b"", 0, [], None

    def call(self, method, params=None, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            while b"\0" in self.buffer:
                text, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(text)
                if reply.get("id") == self.next_id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
                self.events.append(reply)
            left = deadline - time.time()
            if left <= 0 or not select.select([self.from_chrome], [], [], left)[0]:
                raise RuntimeError(f"{method}: no reply from Chromium in {timeout} s")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError(f"{method}: Chromium closed the pipe")
            self.buffer += chunk

    def open(self, url, width=1300, height=1000):
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True})["sessionId"]
        self.call("Runtime.enable")
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                         "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.navigate", {"url": url})
        deadline = time.time() + 30
        while not self.evaluate("!!(window.npusimReport && window.npusimReport.ready)"):
            if time.time() > deadline:
                raise RuntimeError(f"{url}: the page never finished drawing")
            time.sleep(0.05)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def mouse(self, kind, x, y):
        params = {"type": kind, "x": x, "y": y, "button": "left" if kind != "mouseMoved" else
                  "none", "clickCount": 1 if kind != "mouseMoved" else 0}
        self.call("Input.dispatchMouseEvent", params)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y)
        self.mouse("mouseReleased", x, y)
        time.sleep(0.2)  # Chart.js handles mouse events at the next animation frame

    def console(self):
        """What the page logged or threw, from the events so far."""
        out = []
        for e in self.events:
            if e.get("method") == "Runtime.consoleAPICalled":
                out.append(" ".join(str(a.get("value", a.get("description", "")))
                                    for a in e["params"].get("args", [])))
            elif e.get("method") == "Runtime.exceptionThrown":
                out.append(e["params"]["exceptionDetails"].get("text", "exception"))
        return out

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
        check(open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"screenshot {path} written")

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except RuntimeError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)


def mouse_on_sweep_page(browser, scratch, url, data, shots):
    """Hovers and clicks the Pareto marks with the mouse, as a user would."""
    d = DevTools(browser, scratch)
    try:
        d.open(url)
        for n in (0, 3):
            at = d.evaluate(f"npusimReport.markPosition({n})")
            d.click(at["x"], at["y"])
        state = d.evaluate("JSON.parse(JSON.stringify(npusimReport))")
        check(state.get("selected") == [0, 3],
              f"sweep page, mouse: clicks on the marks of points 0 and 3 select them "
              f"({state.get('selected')})")
        rows = d.evaluate("document.querySelectorAll('#comparison tbody tr').length")
        expected = len(data["parameters"]) + len(data["metrics"]) + 1 + 2
        check(rows == expected, f"sweep page, mouse: the comparison table has {expected} rows "
                                f"({rows})")
        at = d.evaluate("npusimReport.markPosition(2)")
        d.mouse("mouseMoved", at["x"], at["y"])
        time.sleep(0.3)
        tip = d.evaluate("npusimReport.tooltipNow()") or {}
        hovered = data["points"][2]["id"]
        check(tip.get("title") == [f"point 2 ({hovered})"] and
              any(line.startswith("compute.array_rows = ") for line in tip.get("lines", [])),
              f"sweep page, mouse: the mouse over point 2 shows its tooltip ({tip})")
        d.screenshot(os.path.join(shots, "sweep-mouse.png"))
        at = d.evaluate("npusimReport.markPosition(3)")
        d.click(at["x"], at["y"])  # a selected mark: clicked again, it is dropped
        check(d.evaluate("npusimReport.selected") == [0],
              "sweep page, mouse: a click on a selected mark drops it")
        check(d.console() == [], f"sweep page, mouse: nothing on the console ({d.console()[:3]})")
    except (RuntimeError, KeyError, TypeError, StopIteration) as e:
        check(False, f"sweep page, mouse: {e}")
    finally:
        d.close()


class TableRows(html.parser.HTMLParser):
    """The cell texts of the rows of <table id=...>'s body."""

    def __init__(self, table_id):
        super().__init__()
        self.table_id, self.inside, self.body, self.rows, self.cell = table_id, False, False, [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == self.table_id:
            self.inside = True
        elif self.inside and tag == "tbody":
            self.body = True
        elif self.body and tag == "tr":
            self.rows.append([])
        elif self.body and tag == "td":
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "table" and self.inside:
            self.inside = self.body = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def table_rows(dom, table_id):
    parser = TableRows(table_id)
    parser.feed(dom)
    return parser.rows


def data_block(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="npusim-data">(.*?)</script>', text, re.S)
    return json.loads(m.group(1))


def no_errors(name, state, console):
    check(state.get("ready") is True, f"{name}: the script ran to the end")
    check(state.get("errors") == [], f"{name}: no error caught by the page ({state.get('errors')})")
    check(console == [], f"{name}: nothing on the console ({console[:3]})")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    npusim = os.path.abspath(sys.argv[1])
    browser = find_browser()
    if browser is None:
        print("SKIP: no Chromium found (install Debian's chromium: sudo apt-get install -y "
              "chromium, or set CHROMIUM)")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="npusim-browser-") as scratch:
        shots = sys.argv[2] if len(sys.argv) == 3 else os.path.join(scratch, "screenshots")
        os.makedirs(shots, exist_ok=True)
        b = Browser(browser, scratch)

        # ------------------------------------------------------------------ a run
        run_dir = os.path.join(scratch, "run")
        run([npusim, "run", "--timing-only", "-q", "--out", run_dir])
        run_page = os.path.join(scratch, "run.html")
        run([npusim, "report", run_dir, "-o", run_page])
        report = json.load(open(os.path.join(run_dir, "report.json")))
        n_layers = len(report["layers"])
        url = "file://" + run_page
        state, dom, console = b.state(url)
        no_errors("run page", state, console)
        check(state.get("kind") == "run", "run page: kind run")
        check(state.get("tableRows") == n_layers == state.get("layers"),
              f"run page: {n_layers} operator table rows ({state.get('tableRows')})")
        placed = sum(1 for l in report["layers"]
                     if l["counters"].get("compute.macs_performed", 0) > 0 and
                     l["counters"].get("dram.read_bytes", 0) +
                     l["counters"].get("dram.write_bytes", 0) > 0)
        check(state.get("rooflineMarks") == placed,
              f"run page: {placed} roofline marks ({state.get('rooflineMarks')})")
        check(state.get("cycleBars") == n_layers,
              f"run page: {n_layers} bars of cycles ({state.get('cycleBars')})")
        state, dom, console = b.state(url + "#sort=3")
        no_errors("run page sorted", state, console)
        cycles = [int(r[3]) for r in table_rows(dom, "layers")]
        check(len(cycles) == n_layers and cycles == sorted(cycles) and cycles != [
                  l["cycles"] for l in report["layers"]],
              "run page: a click on the cycles header sorts the rows by cycles")
        b.screenshot(url, os.path.join(shots, "run.png"), 2600)

        # ---------------------------------------------------------------- a sweep
        spec = json.load(open(os.path.join(ROOT, "configs/sweeps/resnet18_area.json")))
        spec["base_hw"] = os.path.join(ROOT, "configs/hw/default.json")
        spec["workload"] = os.path.join(ROOT, "configs/networks/tiny3.json")
        spec_file = os.path.join(scratch, "area.json")
        json.dump(spec, open(spec_file, "w"))
        sweep_dir = os.path.join(scratch, "sweep")
        run([npusim, "sweep", spec_file, "--out", sweep_dir, "-j", "2", "-q"])
        sweep_page = os.path.join(scratch, "sweep.html")
        run([npusim, "report", sweep_dir, "-o", sweep_page])
        data = data_block(sweep_page)
        finished = [p for p in data["points"] if p["status"] == "ok"]
        with open(os.path.join(sweep_dir, "pareto.csv")) as f:
            front = len(f.read().strip().splitlines()) - 1
        url = "file://" + sweep_page
        state, dom, console = b.state(url)
        no_errors("sweep page", state, console)
        check(state.get("marks") == len(finished) == state.get("finished"),
              f"sweep page: one mark per finished point, {len(finished)} ({state.get('marks')})")
        check(state.get("frontMarks") == front == state.get("front"),
              f"sweep page: {front} front marks ({state.get('frontMarks')})")
        check(state.get("sensitivityPlots") == 3,
              f"sweep page: a sensitivity plot per varied parameter, 3 "
              f"({state.get('sensitivityPlots')})")
        check(state.get("selected") == [] and 'id="comparison"' not in dom,
              "sweep page: nothing selected at first")

        state, dom, console = b.state(url + "#select=0,3&hover=2")
        no_errors("sweep page with a selection", state, console)
        a, b_id, hovered = data["points"][0]["id"], data["points"][3]["id"], data["points"][2]["id"]
        check(state.get("selected") == [0, 3], f"sweep page: #select=0,3 selects points 0 and 3 "
                                               f"({state.get('selected')})")
        rows = table_rows(dom, "comparison")
        expected = len(data["parameters"]) + len(data["metrics"]) + 1 + 2  # status, two groups
        check(len(rows) == expected and f"A: point 0 ({a})" in dom and f"B: point 3 ({b_id})" in dom,
              f"sweep page: the comparison table holds A and B, {expected} rows ({len(rows)})")
        cycles_row = [r for r in rows if r and r[0] == "cycles"]
        check(len(cycles_row) == 1 and len(cycles_row[0]) == 4,
              "sweep page: the cycles row has A, B and B/A")
        tip = state.get("tooltip") or {}
        check(tip.get("title") == [f"point 2 ({hovered})"] and
              any(line.startswith("compute.array_rows = ") for line in tip.get("lines", [])),
              f"sweep page: hovering point 2 shows its parameters ({tip})")
        b.screenshot(url + "#select=0,3&hover=2", os.path.join(shots, "sweep.png"), 2600)
        mouse_on_sweep_page(browser, scratch, url, data, shots)
        print(f"screenshots in {shots}")
        if len(sys.argv) == 2:
            print("(removed with the scratch folder: pass SCREENSHOT_DIR to keep them)")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

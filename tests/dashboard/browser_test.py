#!/usr/bin/python3
"""The web dashboard in a real headless Chromium, against a real hptune serve.

    /usr/bin/python3 tests/dashboard/browser_test.py --hptune BUILD/hptune --out OUTDIR

Starts `hptune serve` (its token file in a temporary HPTUNE_CONFIG_DIR),
submits a real tuning job (12 trials, 3 at a time, early stopping, a log-scale
and a categorical parameter) whose trainer is a small stdlib Python program
written here, and drives Debian's chromium through chromedriver (Debian's
python3-selenium) at 1280x800. It checks, against what the HTTP API answers:

  - logging in through the form; every page and tab loads with no SEVERE
    entry in the browser console;
  - the history plot has one point per finished trial with a value;
  - parallel coordinates: one line per such trial, top-k% keeps the best k%,
    and a brush on an axis filters the trials table to the trials in range;
  - the trials table: a column per metric (the trainer's extra metrics;
    another objective and a constraint with its threshold), sorted and
    filtered by the server and in the CSV; a hidden column stays hidden
    through the URL, as do two filters (chips) and a sort chosen by keyboard;
    a running trial shows its latest step and value;
  - the study header's "Saved by stopping": the API's early_stopping_savings
    (share of steps, steps, trials stopped; its summary on hover);
  - learning curves: each trial stopped early ends at its stop_step; all,
    stopped, running and the table's trials, as the API picks them;
  - history: stopped-early trials drawn apart, the summary counting every
    finished trial; the timeline's legend has the infeasible colour; a
    categorical slice is jittered; contour dots shrink at 5,000 points;
  - the history plot zooms (its x range narrows) and saves itself as a PNG
    (its signature, twice the plot's width) and an SVG named from the study;
  - a two-objective study: rows that break the constraint are marked, the
    CSV has feasible and optimal columns, the objective selector changes
    the history's data to the API's for that objective, and the studies
    list shows "N optimal";
  - importance: a whisker per bar with the API's bootstrap interval, and a
    note that the job's 12 trials are too few to rank (with both counts);
  - in the system's dark mode the page and the plots are dark;
  - a wrong token on the login form keeps the deep link;
  - the timeline has maxParallelTrials lanes;
  - a page open while the job runs shows new trials without a reload;
  - a trial page follows its replica's log while it runs;
  - cancelling a job from its page (button, then the in-page confirmation);
  - without the token the API answers 401; on a second server listening off
    loopback with TLS, a cancel without token is 401, with the session cookie
    but no X-Hptune-Csrf 403, and with "Authorization: Bearer" it succeeds.

Screenshots of every page and tab go to OUTDIR/*.png. Exit 0 when every check
passes; otherwise the failures, each saying what was expected and what was
seen. Synchronisation is by polling conditions with deadlines, never by
sleeping a fixed time.
"""

import argparse
import csv
import http.client
import io
import json
import math
import os
import queue
import re
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1280, 800
# A loaded 2-core machine: generous deadlines, short polling intervals.
DEADLINE = 120.0
POLL = 0.1

TRAINER = r'''#!/usr/bin/python3
"""A tiny trainer for the dashboard test: reports a decaying loss through the
hypertune metric file (cloudml-hypertune's format) and prints a log line per
step. Standard library only. SIGTERM exits at once (143)."""
import argparse, json, math, os, signal, sys, time

signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
p = argparse.ArgumentParser(allow_abbrev=False)
p.add_argument("--lr", type=float, required=True)
p.add_argument("--layers", type=int, required=True)
p.add_argument("--optimizer", required=True)
p.add_argument("--steps", type=int, default=12)
p.add_argument("--step_seconds", type=float, default=0.1)
args, _ = p.parse_known_args()
path = os.environ.get("CLOUD_ML_HP_METRIC_FILE")
trial = os.environ.get("CLOUD_ML_TRIAL_ID", "0")
penalty = {"adam": 0.0, "rmsprop": 0.3, "sgd": 1.0}[args.optimizer]
final = 0.05 + 0.2 * (math.log10(args.lr) + 2.0) ** 2 + penalty + 0.02 * args.layers
reports = []
print("trial %s: lr=%r layers=%d optimizer=%s" % (trial, args.lr, args.layers, args.optimizer), flush=True)
for step in range(1, args.steps + 1):
    time.sleep(args.step_seconds)
    loss = final + 2.0 * math.exp(-step / 3.0)
    reports.append({"global_step": str(step), "loss": repr(loss), "timestamp": time.time(), "trial": trial,
                    "latency_ms": repr(5.0 + 4.0 * args.layers + 20.0 * args.lr),
                    "memory_mb": repr(50.0 * args.layers)})
    reports = reports[-100:]
    if path:
        tmp = "%s.tmp-%d" % (path, os.getpid())
        with open(tmp, "w") as f:
            f.writelines(json.dumps(r, sort_keys=True) + "\n" for r in reports)
        os.replace(tmp, path)
    print("step %d: loss %.6f" % (step, loss), flush=True)
print("done", flush=True)
'''

JOB_CONFIG = """trainingInput:
  command: [/usr/bin/python3, {trainer}]
  args: [{args}]
  hyperparameters:
    goal: MINIMIZE
    hyperparameterMetricTag: loss
    maxTrials: {max_trials}
    maxParallelTrials: {parallel}
    enableTrialEarlyStopping: true
    algorithm: RANDOM_SEARCH
    seed: 7
    params:
    - {{parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: 1.0, scaleType: UNIT_LOG_SCALE}}
    - {{parameterName: layers, type: INTEGER, minValue: 1, maxValue: 8, scaleType: UNIT_LINEAR_SCALE}}
    - {{parameterName: optimizer, type: CATEGORICAL, categoricalValues: [adam, rmsprop, sgd]}}
"""

# Two objectives and a constraint (the trainer reports all three): loss falls
# and latency rises with layers; more than 6 layers are over the memory limit.
PARETO_CONFIG = """trainingInput:
  command: [/usr/bin/python3, {trainer}]
  args: [--steps=3, --step_seconds=0.01]
  hyperparameters:
    maxTrials: 12
    maxParallelTrials: 4
    algorithm: RANDOM_SEARCH
    seed: 5
    metrics:
    - {{metricId: loss, goal: MINIMIZE}}
    - {{metricId: latency_ms, goal: MINIMIZE}}
    - {{metricId: memory_mb, goal: MINIMIZE, safetyThreshold: 300}}
    params:
    - {{parameterName: lr, type: DOUBLE, minValue: 0.0001, maxValue: 1.0, scaleType: UNIT_LOG_SCALE}}
    - {{parameterName: layers, type: INTEGER, minValue: 1, maxValue: 8, scaleType: UNIT_LINEAR_SCALE}}
    - {{parameterName: optimizer, type: CATEGORICAL, categoricalValues: [adam, rmsprop, sgd]}}
"""

FINISHED = ("SUCCEEDED", "INFEASIBLE", "FAILED", "CANCELLED")
RUNNING = ("ACTIVE", "STOPPING", "REQUESTED")


# The progress bar's states, in its order (views.js), and the green of
# succeeded trials.
PROGRESS_STATES = ("SUCCEEDED", "STOPPED_EARLY", "INFEASIBLE", "FAILED", "CANCELLED", "RUNNING", "PENDING")
GREEN = "rgb(46, 157, 87)"


def expected_progress(rows):
    """Each trial of `rows` (TrialRows) in the progress bar's state, counted:
    only the states that occur."""
    counts = {}
    for t in rows:
        key = {"REQUESTED": "PENDING", "ACTIVE": "RUNNING", "STOPPING": "RUNNING"}.get(t["state"], t["state"])
        if key == "SUCCEEDED" and t["stopped_early"]:
            key = "STOPPED_EARLY"
        counts[key] = counts.get(key, 0) + 1
    return counts


def close_pairs(got, expected):
    """Two lists of [x, y] pairs equal to 1e-9 (relative)."""
    return (isinstance(got, list) and len(got) == len(expected) and
            all(len(g) >= 2 and all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(g[:2], e))
                for g, e in zip(got, expected)))


class CheckFailed(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def wait_for(what, probe, timeout=DEADLINE, interval=POLL):
    """Polls probe() until it returns a true value; fails naming `what` and
    the last value seen."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = probe()
        except CheckFailed:
            raise
        except Exception as e:  # a transient error while polling
            last = "%s: %s" % (type(e).__name__, e)
            value = None
        else:
            value = last
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed("timed out after %.0f s waiting for %s; last seen: %r"
                              % (timeout, what, last))
        time.sleep(interval)


# ---------------------------------------------------------------- servers

class Server:
    """One `hptune serve`, its stdout read by a thread."""

    def __init__(self, name, hptune, args, env, log_path):
        self.name = name
        self.lines = []
        self.log = open(log_path, "w")
        # The suite runs as root in CI; its jobs may too.
        self.proc = subprocess.Popen([hptune, "serve", "--allow-root-trials"] + args, env=env,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.queue = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.url = None
        self.grpc_port = None

    def _read(self):
        for line in self.proc.stdout:
            self.log.write(line)
            self.log.flush()
            self.lines.append(line)
            self.queue.put(line)
        self.queue.put(None)

    def wait_ready(self, timeout=DEADLINE):
        deadline = time.monotonic() + timeout
        while self.url is None or self.grpc_port is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CheckFailed("%s: no 'dashboard: URL' and 'listening on port N' lines within %.0f s; "
                                  "it printed:\n%s" % (self.name, timeout, "".join(self.lines)))
            try:
                line = self.queue.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise CheckFailed("%s exited with %s before it was ready; it printed:\n%s"
                                  % (self.name, self.proc.wait(), "".join(self.lines)))
            m = re.search(r"dashboard: (https?://\S+?)/?(?:\s|$)", line)
            if m and self.url is None:
                self.url = m.group(1)
            m = re.search(r"listening on port (\d+)", line)
            if m and self.grpc_port is None:
                self.grpc_port = int(m.group(1))

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(timeout=10)
        self.log.close()


class Api:
    """The dashboard's HTTP API with urllib."""

    def __init__(self, base, token=None, cafile=None):
        self.base = base.rstrip("/")
        self.token = token
        self.context = ssl.create_default_context(cafile=cafile) if cafile else None

    def request(self, method, path, headers=None, body=None, token=True):
        h = dict(headers or {})
        if token and self.token:
            h["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=h)
        opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=self.context))
        try:
            with opener.open(req, timeout=30) as res:
                return res.status, dict(res.headers), res.read()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read()

    def get(self, path, **query):
        q = urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        status, _, body = self.request("GET", path + ("?" + q if q else ""))
        check(status == 200, "GET %s: expected 200, got %d: %s" % (path, status, body[:300]))
        return json.loads(body)

    def study(self, name):
        return self.get("/api/studies/" + urllib.parse.quote(name, safe=""))

    def trials(self, name, **query):
        return self.get("/api/studies/%s/trials" % urllib.parse.quote(name, safe=""), limit=1000, **query)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def submit(hptune, env, server_addr, job, config, extra=()):
    cmd = [hptune, "jobs", "submit", job, "--config", config, "--server", server_addr] + list(extra)
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, "%s: exit %d\nstdout: %s\nstderr: %s"
          % (" ".join(cmd), run.returncode, run.stdout, run.stderr))


def make_certificate(directory):
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    run = subprocess.run(["/usr/bin/openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                          "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                          "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                         capture_output=True, text=True, timeout=120)
    check(run.returncode == 0, "openssl req: %s" % run.stderr)
    return cert, key


# ---------------------------------------------------------------- browser

class Browser:
    def __init__(self, out):
        self.out = out
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--window-size=%d,%d" % (WIDTH, HEIGHT), "--lang=en-US", "--no-first-run",
                    "--disable-extensions", "--password-store=basic"):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_page_load_timeout(DEADLINE)
        # The viewport itself is 1280x800, whatever the window decorations.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        self.console = []

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def debug(self, key=None):
        d = self.js("return window.hptuneDebug || null")
        return d if key is None or d is None else d.get(key)

    def drawn(self, chart, series):
        """(symbols ECharts drew for series `series` of chart `chart`, data
        items it holds): what is on the canvas, not what was handed over."""
        return self.js("""
            const chart = (window.hptuneCharts || {})[arguments[0]];
            const s = chart && chart.getModel().getSeriesByIndex(arguments[1]);
            if (!s) return null;
            const data = s.getData();
            let drawn = 0;
            for (let i = 0; i < data.count(); i++) {
              const el = data.getItemGraphicEl(i);
              if (el && !el.invisible) drawn++;
            }
            return [drawn, data.count()];""", chart, series)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def finds(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def visible(self, css):
        """The first element matching css when it is displayed, else None.
        Live updates re-render parts of a page, so an element found may be
        gone by the time it is asked about: that counts as not visible."""
        try:
            els = self.finds(css)
            return els[0] if els and els[0].is_displayed() else None
        except StaleElementReferenceException:
            return None

    def row_numbers(self):
        """The trial numbers of the trials table's rows, in order."""
        return self.js("return Array.from(document.querySelectorAll("
                       "'#trials-table tr[data-testid=trial-row]'))"
                       ".map((r) => Number(r.dataset.trial));")

    def text(self, css):
        """The text of the first element matching css, read in one step in
        the page (no stale references), or None when there is none."""
        return self.js("const e = document.querySelector(arguments[0]);"
                       " return e ? e.innerText : null;", css)

    def click(self, css):
        """Clicks the first element matching css once it is displayed; a
        live update may replace the element between finding and clicking
        it, and then the new one is clicked."""
        def attempt():
            el = self.visible(css)
            if el is None:
                return None
            try:
                el.click()
            except StaleElementReferenceException:
                return None
            return True
        wait_for("%s to be clicked" % css, attempt)

    def console_errors(self, where):
        """Fails when the console got a SEVERE entry since the last call."""
        entries = self.driver.get_log("browser")
        self.console.extend((where, e) for e in entries)
        severe = [e for e in entries if e.get("level") == "SEVERE"]
        check(not severe, "%s: the browser console has errors:\n  %s"
              % (where, "\n  ".join(e.get("message", "") for e in severe)))

    def shot(self, name):
        path = os.path.join(self.out, name)
        self.driver.save_screenshot(path)
        return path


# ---------------------------------------------------------------- the test

class DashboardTest:
    def __init__(self, hptune, out, keep):
        self.hptune = os.path.abspath(hptune)
        self.out = os.path.abspath(out)
        self.keep = keep
        self.tmp = tempfile.mkdtemp(prefix="hptune-dashboard-test-")
        self.servers = []
        self.browser = None
        self.passed = []
        self.failed = []
        self.env = dict(os.environ)
        self.env["HPTUNE_CONFIG_DIR"] = os.path.join(self.tmp, "config")
        for name in ("HPTUNE_TOKEN", "HPTUNE_SERVER", "HPTUNE_TLS_CA", "HPTUNE_DB"):
            self.env.pop(name, None)
        os.makedirs(self.env["HPTUNE_CONFIG_DIR"], mode=0o700)
        self.trainer = os.path.join(self.tmp, "trainer.py")
        with open(self.trainer, "w") as f:
            f.write(TRAINER)
        os.chmod(self.trainer, 0o755)

    def config(self, name, args, max_trials, parallel):
        path = os.path.join(self.tmp, name + ".yaml")
        with open(path, "w") as f:
            f.write(JOB_CONFIG.format(trainer=self.trainer, args=", ".join(args),
                                      max_trials=max_trials, parallel=parallel))
        return path

    def start_server(self, name, args):
        server = Server(name, self.hptune, args, self.env, os.path.join(self.out, name + ".log"))
        self.servers.append(server)
        server.wait_ready()
        return server

    def step(self, name, fn):
        """Runs one check; a failure is recorded with a screenshot and the
        test goes on where the later checks do not depend on it."""
        started = time.monotonic()
        try:
            if self.browser:  # what an earlier failed step left in the console is its own
                self.browser.console.extend(("before " + name, e) for e in self.browser.driver.get_log("browser"))
            fn()
        except Exception as e:
            detail = str(e) if isinstance(e, CheckFailed) else traceback.format_exc()
            if self.browser:
                try:
                    self.browser.shot("fail-%s.png" % re.sub(r"\W+", "-", name))
                except Exception:
                    pass
            self.failed.append((name, detail))
            print("FAIL %s (%.1f s)\n  %s" % (name, time.monotonic() - started, detail.replace("\n", "\n  ")),
                  flush=True)
            return False
        self.passed.append(name)
        print("ok   %s (%.1f s)" % (name, time.monotonic() - started), flush=True)
        return True

    # ------------------------------------------------------------ setup

    def run(self):
        os.makedirs(self.out, exist_ok=True)
        for old in os.listdir(self.out):
            if old.endswith(".png"):
                os.remove(os.path.join(self.out, old))
        try:
            self.a = self.start_server("server-a", [
                "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                "--db", os.path.join(self.tmp, "a.db"), "--state-dir", os.path.join(self.tmp, "runs-a")])
            with open(os.path.join(self.env["HPTUNE_CONFIG_DIR"], "token")) as f:
                self.token = f.read().strip()
            check(self.token, "the token file is empty")
            self.api = Api(self.a.url, self.token)
            self.grpc = "127.0.0.1:%d" % self.a.grpc_port
            self.browser = Browser(self.out)
            self.job = "dash_tune"
            self.long_job = "dash_long"

            self.step("unauthenticated API requests are refused (loopback)", self.check_loopback_auth)
            if not self.step("log in through the form", self.check_login):
                return
            self.step("the studies list loads", self.check_empty_list)
            if not self.step("submit a tuning job", self.submit_job):
                return
            self.step("the open pages show the new study and its new trials without a reload", self.check_live)
            self.step("the job finishes", self.wait_job_done)
            self.step("the studies list shows the study", self.check_list)
            self.step("progress bars split by trial state, with a legend", self.check_progress)
            self.step("the study header shows what early stopping saved", self.check_savings)
            self.step("trials tab: table, paging info, sorting", self.check_trials_tab)
            self.step("trials tab: every metric a column, sorted and filtered by the server, hidden in the URL",
                      self.check_metric_columns)
            self.step("trials tab: two filters and the sort in the URL, kept through a reload; keyboard sort",
                      self.check_table_view)
            self.step("history: one point per finished trial with a value", self.check_history)
            self.step("plots zoom, and save as PNG and SVG", self.check_zoom_and_save)
            self.step("EDF: the fraction of trials reaching each value", self.check_edf)
            self.step("parallel coordinates: one line per trial, top k%", self.check_parcoords)
            self.step("parallel coordinates: a brush filters the trials table", self.check_brush)
            self.step("parallel coordinates: a mouse drag on an axis filters the table", self.check_brush_by_mouse)
            self.step("slice plots", self.check_slice)
            self.step("rank plot: each parameter against the objective, coloured by rank", self.check_rank)
            self.step("contour", self.check_contour)
            self.step("learning curves: stopped trials end at their stop step", self.check_curves)
            self.step("learning curves: all, stopped, running, selected in the table", self.check_curve_choice)
            self.step("importance", self.check_importance)
            self.step("timeline: maxParallelTrials lanes", self.check_timeline)
            self.step("config", self.check_config)
            self.step("pareto front: a two-objective job's optimal trials", self.check_pareto)
            self.step("compare studies: picked on the list, history and EDF in one plot, kept in the URL",
                      self.check_compare)
            self.step("trial page", self.check_trial_page)
            if self.step("submit a long job", self.submit_long_job):
                self.step("a running trial's log is followed live", self.check_live_log)
                self.step("a running trial shows its latest step and value in the table", self.check_running_row)
                if self.step("cancel a job from its page", self.check_cancel):
                    self.step("a cancelled job's progress bar: cancelled trials apart, not green",
                              self.check_progress_cancelled)
            self.step("dark mode follows the system's setting", self.check_dark_mode)
            self.step("the login page", self.check_login_page)
            self.step("a wrong token keeps the deep link", self.check_login_deep_link)
            self.step("TLS server off loopback: token, cookie and CSRF rules", self.check_tls_server)
        except Exception as e:
            detail = str(e) if isinstance(e, CheckFailed) else traceback.format_exc()
            self.failed.append(("setup", detail))
            print("FAIL setup\n  %s" % detail.replace("\n", "\n  "), flush=True)
        finally:
            self.cleanup()
        return not self.failed

    def cleanup(self):
        if self.browser:
            try:
                self.browser.console.extend(("end", e) for e in self.browser.driver.get_log("browser"))
            except Exception:
                pass
            with open(os.path.join(self.out, "console.log"), "w") as f:
                for where, e in self.browser.console:
                    f.write("%s\t%s\t%s\n" % (where, e.get("level"), e.get("message")))
            self.browser.quit()
        for server in self.servers:
            try:
                server.stop()
            except Exception:
                traceback.print_exc()
        if self.keep or self.failed:
            print("kept the temporary directory %s" % self.tmp)
        else:
            shutil.rmtree(self.tmp, ignore_errors=True)

    # ------------------------------------------------------------ helpers

    def open(self, hash_path, where):
        """Loads the page fresh (a full navigation) and checks the console."""
        b = self.browser
        b.driver.get("about:blank")  # a new document even when only the hash differs
        b.driver.get(self.a.url + "/" + hash_path)
        wait_for("%s to load" % where, lambda: b.js(
            "return document.readyState === 'complete' && !!window.hptuneDebug && window.hptune && true"))
        return b

    def tab(self, name):
        b = self.browser
        b.click("#tab-" + name)
        wait_for("the %s tab to be shown" % name,
                 lambda: b.js("var p = document.getElementById('panel-%s'); return p && !p.hidden" % name))

    def finished_with_value(self, rows):
        return [t for t in rows if t["value"] is not None and t["state"] not in RUNNING]

    # ------------------------------------------------------------ checks

    def check_loopback_auth(self):
        status, _, body = self.api.request("GET", "/api/studies", token=False)
        check(status == 401, "GET /api/studies without a token: expected 401, got %d %s" % (status, body[:200]))
        status, _, body = self.api.request("POST", "/api/jobs/none/cancel", token=False, body=b"{}")
        check(status == 401, "POST /api/jobs/none/cancel without a token: expected 401, got %d" % status)
        status, _, _ = self.api.request("GET", "/api/studies", headers={"Authorization": "Bearer wrong"}, token=False)
        check(status == 401, "GET /api/studies with a wrong token: expected 401, got %d" % status)
        status, _, _ = self.api.request("GET", "/api/studies")
        check(status == 200, "GET /api/studies with the token: expected 200, got %d" % status)

    def check_login(self):
        b = self.browser
        b.driver.get(self.a.url + "/")
        wait_for("the redirect to the login page", lambda: "/login" in b.driver.current_url and b.visible("#token"))
        b.console_errors("the login page")
        b.find("#token").send_keys(self.token)
        b.find("#login-submit").click()
        wait_for("the studies list after logging in",
                 lambda: "/login" not in b.driver.current_url and b.visible("#studies-table"))
        b.console_errors("the studies list after logging in")

    def check_empty_list(self):
        b = self.browser
        wait_for("the studies list to render", lambda: b.debug("studies") is not None)
        check(b.visible("#live .dot") is not None, "no live indicator in the top bar")
        wait_for("the live indicator to turn on (event stream open)",
                 lambda: b.js("return document.getElementById('live').classList.contains('on')"))
        b.js("window.__hptuneTestMarker = 'still here'")  # a reload would lose it
        b.console_errors("the studies list")

    def submit_job(self):
        config = self.config("tune", ["--steps=12", "--step_seconds=0.15"], 12, 3)
        submit(self.hptune, self.env, self.grpc, self.job, config)
        wait_for("the study to appear in the API",
                 lambda: any(s["name"] == self.job for s in self.api.get("/api/studies")["studies"]))

    def check_live(self):
        """The studies list, open since before the job was submitted, shows
        the new study; a click opens its page in the same document, which
        then shows trials appearing."""
        b = self.browser
        wait_for("the new study to appear in the open studies list",
                 lambda: (lambda d: d and self.job in d["names"])(b.debug("studies")))
        b.click("#studies-table tr[data-study=%s] a[data-testid=study-link]" % self.job)
        wait_for("the trials table", lambda: b.debug("trials") is not None)
        first = b.debug("trials")
        seen0 = set(first["numbers"])
        total = self.api.study(self.job)["max_trials"]
        check(len(seen0) < total, "the job ran all %d trials before the page opened; cannot see one appear" % total)
        b.shot("17-study-running.png")
        grown = wait_for("a new trial row to appear without a reload (had %s)" % sorted(seen0),
                         lambda: (lambda d: d if d and len(set(d["numbers"]) - seen0) > 0 else None)(b.debug("trials")))
        check(b.js("return window.__hptuneTestMarker") == "still here",
              "the page was reloaded (the window marker is gone)")
        navigations = b.js("return performance.getEntriesByType('navigation').length")
        check(navigations == 1, "expected 1 navigation entry, got %r" % navigations)
        rows = b.row_numbers()
        check(set(rows) >= set(grown["numbers"]) or set(rows) == set(b.debug("trials")["numbers"]),
              "table rows %s differ from the last render %s" % (rows, grown["numbers"]))
        b.console_errors("the study page while the job runs")

    def wait_job_done(self):
        def done():
            s = self.api.study(self.job)
            return s if s["job"] and s["job"]["state"] in ("SUCCEEDED", "FAILED", "CANCELLED") else None
        s = wait_for("job %s to end" % self.job, done, timeout=240, interval=0.5)
        check(s["job"]["state"] == "SUCCEEDED", "job %s ended %s: %s" % (self.job, s["job"]["state"], s["job"].get("error")))
        self.detail = s
        self.rows = self.api.trials(self.job)["trials"]
        check(len(self.rows) == 12, "expected 12 trials, the API lists %d" % len(self.rows))

    def check_list(self):
        b = self.open("#/", "the studies list")
        d = wait_for("the study in the list", lambda: (lambda d: d if d and self.job in d["names"] else None)(b.debug("studies")))
        row = b.find("#studies-table tr[data-study=%s]" % self.job)
        text = row.text
        check("12/12" in text, "the row shows no progress 12/12: %r" % text)
        check("SUCCEEDED" in text, "the row shows no job state SUCCEEDED: %r" % text)
        best = self.detail["best"]
        cell = row.find_element(By.CSS_SELECTOR, "td .num")
        check(cell.get_attribute("title") == repr_js(best["value"]),
              "best value title %r, expected the full value %r" % (cell.get_attribute("title"), repr_js(best["value"])))
        b.shot("01-studies.png")
        b.find("#studies-filter").send_keys("no-such-study")
        wait_for("the filter to hide the row", lambda: b.debug("studies")["rows"] == 0)
        b.find("#studies-filter").clear()
        b.find("#studies-filter").send_keys(self.job[:6])
        wait_for("the filter to show the row", lambda: b.debug("studies")["rows"] == 1)
        b.click("th[data-col=name]")
        wait_for("the sort by name", lambda: b.find("th[data-col=name]").get_attribute("class").find("sorted") >= 0)
        b.console_errors("the studies list")

    def check_trials_tab(self):
        b = self.open("#/study/%s" % self.job, "the study page")
        d = wait_for("the trials table", lambda: b.debug("trials"))
        check(d["total"] == 12, "the table says %d trials, expected 12" % d["total"])
        rows = b.finds("#trials-table tr[data-testid=trial-row]")
        check(len(rows) == 12, "the table has %d rows, expected 12" % len(rows))
        # 6 significant digits shown, the full value on hover
        by_number = {t["number"]: t for t in self.rows}
        for row in rows:
            n = int(row.get_attribute("data-trial"))
            if by_number[n]["value"] is None:
                continue
            num = row.find_element(By.CSS_SELECTOR, "td .num")
            check(num.get_attribute("title") == repr_js(by_number[n]["value"]),
                  "trial %d: title %r, expected %r" % (n, num.get_attribute("title"), repr_js(by_number[n]["value"])))
            digits = re.sub(r"[^0-9]", "", num.text.split("e")[0]).lstrip("0")
            check(len(digits) <= 6, "trial %d: %r has more than 6 significant digits" % (n, num.text))
        check("Cancel job" not in b.text("#study-header"), "a finished job offers 'Cancel job'")
        b.shot("02-study-trials.png")
        # sort by value, descending on the second click: the server's order
        b.click("#trials-table th[data-sort=value]")
        wait_for("the sort by value", lambda: b.debug("trials")["sort"] == "value")
        b.click("#trials-table th[data-sort=value]")
        d = wait_for("the descending sort", lambda: (lambda d: d if d["order"] == "desc" else None)(b.debug("trials")))
        expected = [t["number"] for t in self.api.trials(self.job, sort="value", order="desc")["trials"]]
        check(d["numbers"] == expected, "sorted by value desc: %s, the API says %s" % (d["numbers"], expected))
        # filter by state
        b.click("input[data-testid=state-SUCCEEDED]")
        d = wait_for("the state filter", lambda: (lambda d: d if d["states"] == ["SUCCEEDED"] else None)(b.debug("trials")))
        n = sum(1 for t in self.rows if t["state"] == "SUCCEEDED")
        check(d["total"] == n, "SUCCEEDED filter: %d trials, expected %d" % (d["total"], n))
        href = b.find("#export-csv").get_attribute("href")
        check("states=SUCCEEDED" in href and "trials.csv" in href, "the CSV link ignores the filter: %s" % href)
        b.click("input[data-testid=state-SUCCEEDED]")
        wait_for("the filter cleared", lambda: b.debug("trials")["states"] == [])
        status, headers, body = self.api.request("GET", urllib.parse.urlparse(href).path + "?" + urllib.parse.urlparse(href).query)
        check(status == 200, "the CSV export: HTTP %d" % status)
        # Every SUCCEEDED trial once, with its state and value, and nothing else.
        exported = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
        succeeded = {t["number"]: t for t in self.rows if t["state"] == "SUCCEEDED"}
        numbers = sorted(int(r["trialId"]) for r in exported)
        check(list(exported[0])[:3] == ["trialId", "state", "lr"] and "objective" in exported[0],
              "the CSV's columns are not the CLI's: %s" % list(exported[0]))
        check(headers.get("Content-Disposition") == 'attachment; filename="%s-trials.csv"' % self.job,
              "the CSV's file name: %r" % headers.get("Content-Disposition"))
        check(numbers == sorted(succeeded), "the CSV export has trials %s, expected %s" % (numbers, sorted(succeeded)))
        check(all(r["state"] == "SUCCEEDED" for r in exported), "the CSV export has a trial of another state")
        b.console_errors("the trials tab")

    def check_metric_columns(self):
        """The one-objective job's trainer also reports latency_ms and
        memory_mb: each is a column, with the final measurement's value,
        sortable and filterable on the server, in the CSV, and hidden from
        the URL's `hide`."""
        b = self.open("#/study/%s" % self.job, "the study page")
        d = wait_for("the trials table", lambda: b.debug("trials"))
        detail = self.api.study(self.job)
        check(detail["algorithm"] == "RANDOM_SEARCH", "the algorithm is %r" % detail["algorithm"])
        check(detail["extra_metrics"] == ["latency_ms", "memory_mb"], "extra metrics: %r" % detail["extra_metrics"])
        for col in ("metric:latency_ms", "metric:memory_mb"):
            check(col in d["columns"], "no column %s in %s" % (col, d["columns"]))
        finals = {}
        for row in self.api.trials(self.job)["trials"]:
            finals[row["number"]] = row["metrics"].get("latency_ms")
        for row in b.finds("#trials-table tr[data-testid=trial-row]"):
            n = int(row.get_attribute("data-trial"))
            cell = row.find_element(By.CSS_SELECTOR, "td[data-metric=latency_ms]")
            want = finals[n]
            shown = cell.find_element(By.CSS_SELECTOR, ".num").get_attribute("title") if want is not None else cell.text
            check(shown == (repr_js(want) if want is not None else "—"),
                  "trial %d: latency_ms cell %r, the API %r" % (n, shown, want))
        b.click("#trials-table th[data-sort='metric:latency_ms']")
        d = wait_for("the sort by latency_ms", lambda: (lambda d: d if d["sort"] == "metric:latency_ms" else None)(b.debug("trials")))
        expected = [t["number"] for t in self.api.trials(self.job, sort="metric:latency_ms")["trials"]]
        by_latency = sorted((v, n) for n, v in finals.items() if v is not None)
        check(expected[:len(by_latency)] == [n for _, n in by_latency], "the API's latency_ms order %s" % expected)
        check(d["numbers"] == expected, "sorted by latency_ms: %s, the API says %s" % (d["numbers"], expected))
        # a filter on memory_mb, applied by the server
        Select(b.find("#metric-filter-name")).select_by_value("metric:memory_mb")
        b.find("#metric-filter-hi").send_keys("200")
        b.click("#metric-filter-apply")
        d = wait_for("the memory_mb filter", lambda: (lambda d: d if d["metric_where"] else None)(b.debug("trials")))
        kept = sorted(n for n, t in ((r["number"], r) for r in self.rows) if t["metrics"].get("memory_mb", 1e9) <= 200)
        check(sorted(d["numbers"]) == kept, "memory_mb <= 200 keeps %s, expected %s" % (sorted(d["numbers"]), kept))
        href = b.find("#export-csv").get_attribute("href")
        status, _, body = self.api.request("GET", urllib.parse.urlparse(href).path + "?" + urllib.parse.urlparse(href).query)
        exported = list(csv.DictReader(io.StringIO(body.decode("utf-8"))))
        check(sorted(int(r["trialId"]) for r in exported) == kept, "the CSV export ignores the metric filter")
        for r in exported:
            want = finals[int(r["trialId"])]
            check(r["latency_ms"] == ("" if want is None else json.dumps(want)),
                  "CSV: trial %s latency_ms %r, the API %r" % (r["trialId"], r["latency_ms"], want))
        b.click("#metric-filter-clear")
        wait_for("the filter cleared", lambda: not b.debug("trials")["metric_where"])
        b.shot("02b-study-metric-columns.png")
        # hide a column: gone, in the URL, and still hidden after a reload
        b.click("#col-picker summary")
        b.click("input[data-testid='col-metric:memory_mb']")
        wait_for("memory_mb hidden", lambda: "metric:memory_mb" not in b.debug("trials")["columns"])
        url = b.driver.current_url
        check("hide=metric%3Amemory_mb" in url or "hide=metric:memory_mb" in url, "the URL does not keep the choice: %s" % url)
        b.shot("02c-study-columns-picker.png")
        b.driver.get("about:blank")
        b.driver.get(url)
        d = wait_for("the table after a reload", lambda: b.debug("trials"))
        check("metric:memory_mb" not in d["columns"] and "metric:latency_ms" in d["columns"],
              "after a reload the columns are %s" % d["columns"])
        b.console_errors("the metric columns")

    def add_filter(self, b, target, lo="", hi=""):
        Select(b.find("#metric-filter-name")).select_by_value(target)
        for css, text in (("#metric-filter-lo", lo), ("#metric-filter-hi", hi)):
            b.find(css).clear()
            b.find(css).send_keys(text)
        b.click("#metric-filter-apply")

    def check_table_view(self):
        """Two filters at once (a metric and a parameter) as chips and a
        sort chosen by keyboard: in the URL, and the same table after a
        reload; a chip's x removes its filter only."""
        b = self.open("#/study/%s" % self.job, "the study page")
        wait_for("the trials table", lambda: b.debug("trials"))
        self.add_filter(b, "metric:memory_mb", hi="300")
        self.add_filter(b, "param:lr", lo="0.001")
        want = {"metrics": {"memory_mb": [-sys.float_info.max, 300]}, "params": {"lr": [0.001, sys.float_info.max]}}
        wait_for("both filters", lambda: b.debug("trials")["filters"] == want)
        th = "#trials-table th[data-sort='metric:latency_ms']"
        check(b.js("return document.querySelector(arguments[0]).tabIndex", th) == 0, "a sortable header is not focusable")
        b.js("document.querySelector(arguments[0]).focus()", th)
        ActionChains(b.driver).send_keys(Keys.ENTER).perform()
        wait_for("Enter to sort by latency_ms", lambda: b.debug("trials")["sort"] == "metric:latency_ms")
        ActionChains(b.driver).send_keys(Keys.SPACE).perform()
        wait_for("Space to reverse the sort", lambda: b.debug("trials")["order"] == "desc")
        check(b.js("return document.querySelector(arguments[0]).getAttribute('aria-sort')", th) == "descending",
              "aria-sort of the sorted header")
        check(b.js("return document.activeElement.dataset.sort") == "metric:latency_ms",
              "the focus left the sorted header")
        where = json.dumps(want)
        expected = [t["number"] for t in self.api.trials(self.job, sort="metric:latency_ms", order="desc",
                                                         where=where)["trials"]]
        check(b.debug("trials")["numbers"] == expected,
              "filtered and sorted: %s, the API says %s" % (b.debug("trials")["numbers"], expected))
        b.shot("02d-study-filter-chips.png")
        url = b.driver.current_url
        b.driver.get("about:blank")
        b.driver.get(url)
        d = wait_for("the table after a reload", lambda: b.debug("trials"))
        check(d["filters"] == want and d["sort"] == "metric:latency_ms" and d["order"] == "desc",
              "after a reload: filters %s, sort %s %s" % (d["filters"], d["sort"], d["order"]))
        check(d["numbers"] == expected, "after a reload: %s, expected %s" % (d["numbers"], expected))
        check(len(b.finds("[data-testid=filter-chip]")) == 2, "after a reload there are not two chips")
        b.click("[data-testid=filter-chip][data-kind=metrics] button")
        wait_for("the memory_mb filter removed", lambda: b.debug("trials")["filters"] == {"params": want["params"]})
        check("memory_mb" not in urllib.parse.unquote(b.driver.current_url), "the URL keeps a removed filter")
        b.click("#metric-filter-clear")
        wait_for("the filters cleared", lambda: b.debug("trials")["filters"] == {})
        b.console_errors("the table's view")

    def check_history(self):
        b = self.browser
        self.tab("history")
        h = self.api.get("/api/studies/%s/history" % self.job)
        expected = len(self.finished_with_value(self.rows))
        check(len(h["points"]) == expected,
              "the API's history has %d points, but %d finished trials have a value" % (len(h["points"]), expected))
        d = wait_for("the history plot", lambda: b.debug("history"))
        check(d["points"] == expected, "the history plot has %d points, expected %d" % (d["points"], expected))
        # series 0: completed trials; 1: those stopped early, drawn apart
        drawn = wait_for("the history's symbols", lambda: b.drawn("history", 0))
        stopped_drawn = wait_for("the stopped-early symbols", lambda: b.drawn("history", 1))
        check(drawn[0] + stopped_drawn[0] == expected,
              "the history plot drew %d + %d of %d points" % (drawn[0], stopped_drawn[0], expected))
        check(d["failed"] == len(h["failed"]), "failed markers: %d, the API lists %d" % (d["failed"], len(h["failed"])))
        stopped = sorted(t["number"] for t in self.finished_with_value(self.rows) if t["stopped_early"])
        check(stopped, "no finished trial was stopped early")
        check(sorted(d["stopped"]) == stopped, "stopped-early points drawn apart: %s, expected %s" % (d["stopped"], stopped))
        check(not d["running_labels"], "running trials are labelled one by one (they overlap)")
        summary = b.text("#history-summary")
        check(summary.startswith("%d finished trials with a value" % h["total"]) and "%d stopped early" % len(stopped) in summary,
              "the history's summary says %r; %d finished, %d stopped early" % (summary, h["total"], len(stopped)))
        if not b.find("#history-log").get_attribute("disabled"):
            b.click("#history-log")
            wait_for("the log scale", lambda: b.debug("history")["log"])
            check(b.debug("history")["points"] == expected, "the log scale lost points")
        b.shot("03-study-history.png")
        b.console_errors("the history tab")

    def check_zoom_and_save(self):
        """The history plot zooms (its x axis's range narrows) and saves
        itself as a PNG and an SVG named from the study, through the
        functions its toolbox's buttons call."""
        b = self.browser
        self.tab("history")
        wait_for("the history plot", lambda: b.debug("history"))
        extent = "return window.hptuneCharts.history.getModel().getComponent('xAxis', 0).axis.scale.getExtent()"
        before = b.js(extent)
        b.js("window.hptuneCharts.history.dispatchAction({type: 'dataZoom', dataZoomIndex: 0, start: 25, end: 75})")
        after = b.js(extent)
        check(before[0] < after[0] < after[1] < before[1], "the zoom left the x axis %s (was %s)" % (after, before))
        features = b.js("return Object.keys(window.hptuneCharts.history.getOption().toolbox[0].feature)")
        check({"myPng", "mySvg"} <= set(features), "the toolbox offers %s" % features)
        downloads = os.path.join(self.tmp, "downloads")
        os.makedirs(downloads, exist_ok=True)
        b.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
        width = b.js("return window.hptuneCharts.history.getWidth()")
        for kind in ("png", "svg"):
            name = b.js("return window.hptune.plots.save('history', arguments[0])", kind)
            check(name == "%s-history.%s" % (self.job, kind), "the saved file is named %r" % name)
            path = os.path.join(downloads, name)
            wait_for("the saved %s" % name, lambda: os.path.exists(path) and os.path.getsize(path) > 0)
            with open(path, "rb") as f:
                data = f.read()
            if kind == "png":
                png_width = int.from_bytes(data[16:20], "big")
                check(data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000 and png_width == 2 * width,
                      "the PNG: %d bytes, %d wide (the plot: %d), starts %r" % (len(data), png_width, width, data[:8]))
            else:
                check(data.lstrip().startswith(b"<svg") and b"</svg>" in data and len(data) > 5000,
                      "the SVG: %d bytes, starts %r" % (len(data), data[:40]))
        b.console_errors("zoom and save")

    def check_parcoords(self):
        b = self.browser
        self.tab("parcoords")
        pts = self.api.get("/api/studies/%s/points" % self.job)
        self.points = pts
        expected = len(self.finished_with_value(self.rows))
        check(len(pts["trials"]) == expected, "the API's points list %d trials, expected %d" % (len(pts["trials"]), expected))
        d = wait_for("the parallel coordinates", lambda: b.debug("parcoords"))
        check(d["lines"] == expected, "parallel coordinates: %d lines, expected %d" % (d["lines"], expected))
        check(d["axes"] == len(pts["params"]) + 1, "%d axes, expected %d" % (d["axes"], len(pts["params"]) + 1))
        axis_types = b.js("return window.hptuneCharts.parcoords.getOption().parallelAxis.map(a => [a.name, a.type, a.data || null])")
        types = {a[0]: (a[1], a[2]) for a in axis_types}
        check(types.get("lr", (None,))[0] == "log", "the lr axis (UNIT_LOG_SCALE) is %r, expected log" % (types.get("lr"),))
        check(types.get("optimizer") == ("category", ["adam", "rmsprop", "sgd"]),
              "the optimizer axis is %r, expected category [adam, rmsprop, sgd] in the spec's order" % (types.get("optimizer"),))
        Select(b.find("#parcoords-top")).select_by_value("50")
        k = -(-expected * 50 // 100)
        wait_for("top 50%% to keep %d lines" % k, lambda: b.debug("parcoords")["lines"] == k)
        Select(b.find("#parcoords-top")).select_by_value("100")
        wait_for("all lines back", lambda: b.debug("parcoords")["lines"] == expected)
        b.shot("04-study-parcoords.png")
        b.console_errors("the parallel coordinates tab")

    def check_brush(self):
        b = self.browser
        pts = self.points
        index = pts["params"].index("lr")
        values = sorted(t["x"][index] for t in pts["trials"])
        check(len(values) >= 4, "too few trials with a value (%d) to brush" % len(values))
        n = len(values)
        lo = (values[n // 4 - 1] + values[n // 4]) / 2
        hi = (values[3 * n // 4 - 1] + values[3 * n // 4]) / 2
        b.js("window.hptuneCharts.parcoords.dispatchAction({type: 'axisAreaSelect', parallelAxisId: 'p%d', "
             "intervals: [[arguments[0], arguments[1]]]})" % index, lo, hi)
        in_points = [t["trial"] for t in pts["trials"] if lo <= t["x"][index] <= hi]
        d = wait_for("the brush to select lines", lambda: (lambda d: d if d.get("where") else None)(b.debug("parcoords")))
        check(d["selected"] == len(in_points), "the plot says %d selected, %d lines are in [%r, %r]"
              % (d["selected"], len(in_points), lo, hi))
        b.shot("05-study-parcoords-brushed.png")
        expected = sorted(t["number"] for t in self.rows if lo <= t["params"]["lr"] <= hi)
        self.tab("trials")
        d = wait_for("the table to be filtered by the brush", lambda: (lambda d: d if d.get("where") else None)(b.debug("trials")))
        check(d["where"] == {"params": {"lr": [lo, hi]}}, "the table's where is %r" % (d["where"],))
        d = wait_for("the filtered rows", lambda: (lambda d: d if sorted(d["numbers"]) == expected else None)(b.debug("trials")),
                     timeout=30)
        rows = sorted(b.row_numbers())
        check(rows == expected, "the table shows trials %s; with lr in [%r, %r] the API's params give %s" % (rows, lo, hi, expected))
        check(b.visible("#brush-note") is not None, "no note says the table is filtered by the brush")
        b.shot("06-study-trials-brushed.png")
        b.click("#clear-brush")
        wait_for("the whole table back", lambda: (lambda d: d if d["total"] == 12 and not d["where"] else None)(b.debug("trials")))
        b.console_errors("brushing")

    def check_brush_by_mouse(self):
        """A user's drag along the layers axis, with the mouse."""
        b = self.browser
        self.tab("parcoords")
        wait_for("the parallel coordinates", lambda: b.debug("parcoords"))
        dim = self.points["params"].index("layers")
        geo = b.js("""
            var c = window.hptuneCharts.parcoords;
            var cs = c.getModel().getComponent('parallel').coordinateSystem;
            var layout = cs.getAxisLayout('dim' + arguments[0]);
            var extent = cs.getAxis('dim' + arguments[0]).getExtent();
            var r = c.getDom().getBoundingClientRect();
            return {x: layout.position[0], y: layout.position[1], length: Math.abs(extent[1] - extent[0]),
                    width: r.width, height: r.height};""", dim)
        chart = b.find("#chart-parcoords")
        x = geo["x"] - geo["width"] / 2
        y_from = geo["y"] - geo["length"] * 0.15 - geo["height"] / 2
        y_to = geo["y"] - geo["length"] * 0.7 - geo["height"] / 2
        ActionChains(b.driver).move_to_element_with_offset(chart, x, y_from).click_and_hold() \
            .move_by_offset(0, (y_to - y_from) / 2).move_by_offset(0, (y_to - y_from) / 2).release().perform()
        d = wait_for("the mouse brush to set a range on layers",
                     lambda: (lambda d: d if d.get("where") and "layers" in d["where"].get("params", {}) else None)(b.debug("parcoords")))
        lo, hi = d["where"]["params"]["layers"]
        check(0 < lo < hi < 9, "the dragged range on layers is [%r, %r]" % (lo, hi))
        expected = sorted(t["number"] for t in self.rows if lo <= t["params"]["layers"] <= hi)
        self.tab("trials")
        wait_for("the table filtered to layers in [%r, %r] (%s)" % (lo, hi, expected),
                 lambda: sorted(b.row_numbers()) == expected
                 and b.debug("trials")["where"] == d["where"], timeout=30)
        b.click("#clear-brush")
        wait_for("the whole table back", lambda: (lambda d: d if d["total"] == 12 and not d["where"] else None)(b.debug("trials")))
        b.console_errors("brushing with the mouse")

    def check_slice(self):
        b = self.browser
        self.tab("slice")
        d = wait_for("the slice plots", lambda: b.debug("slice"))
        check(d["plots"] == 3, "%d slice plots, expected 3 (one per parameter)" % d["plots"])
        check(d["points"] == len(self.points["trials"]), "slice: %d points, expected %d" % (d["points"], len(self.points["trials"])))
        for series in range(d["plots"]):
            drawn = wait_for("the slice's symbols", lambda: b.drawn("slice", series))
            check(drawn[0] == drawn[1] > 0, "slice plot %d drew %d of its %d points" % (series, drawn[0], drawn[1]))
        # the categorical parameter's points are jittered, not on one line
        check([j["name"] for j in d["jitter"]] == ["optimizer"], "jittered plots: %s" % d["jitter"])
        check(d["jitter"][0]["positions"] == d["jitter"][0]["points"],
              "optimizer: %d points on %d positions" % (d["jitter"][0]["points"], d["jitter"][0]["positions"]))
        b.shot("07-study-slice.png")
        # thousands of points: one colour band a series, in large mode, every
        # point kept, each band the trials of its stretch of the colour scale
        bands = b.js("""
            const P = window.hptune.plots;
            const spec = [{name: 'a', type: 'DOUBLE', min: 0, max: 1}];
            const trials = [];
            for (let i = 1; i <= 5000; i++) trials.push({trial: i, value: i % 97, x: [(i * 0.618) % 1]});
            const r = P.slice({params: ['a'], trials}, spec, {metric: 'm', goal: 'MINIMIZE'}, 1200);
            const o = P.largeScatter(r.option, 'max');
            const chart = window.hptuneCharts.slice;
            chart.setOption(o, {notMerge: true});
            return o.series.map((x) => [x.large, x.itemStyle.color, x.data.length,
                                        Math.min(...x.data.map((d) => d[2])), Math.max(...x.data.map((d) => d[2]))]);""")
        check(len(bands) == 16 and all(band[0] for band in bands), "5000 points in %d large series: %s" % (len(bands), bands))
        check(sum(band[2] for band in bands) == 5000, "the bands hold %d of 5000 points" % sum(band[2] for band in bands))
        check(all(bands[k][4] < bands[k + 1][3] for k in range(15)), "bands out of order: %s" % bands)
        check(len({band[1] for band in bands}) == 16, "the bands' colours repeat: %s" % bands)
        b.console_errors("the slice tab")

    def check_contour(self):
        b = self.browser
        self.tab("contour")
        d = wait_for("the contour", lambda: b.debug("contour"))
        check(d["cells"] > 0 and d["points"] == len(self.points["trials"]), "contour: %r" % d)
        Select(b.find("#contour-x")).select_by_value("lr")
        Select(b.find("#contour-y")).select_by_value("layers")
        wait_for("the lr x layers contour", lambda: (lambda d: d["x"] == "lr" and d["y"] == "layers")(b.debug("contour")))
        check(b.debug("contour")["cells"] == 900, "a 30x30 grid has 900 cells, got %r" % b.debug("contour")["cells"])
        b.shot("08-study-contour.png")
        # thousands of trials: the dots shrink and fade so the map shows
        dots = b.js("""
            const P = window.hptune.plots, spec = [{name: 'a', type: 'DOUBLE', min: 0, max: 1},
                                                   {name: 'b', type: 'DOUBLE', min: 0, max: 1}];
            const trials = [];
            for (let i = 1; i <= 5000; i++) trials.push({trial: i, value: i % 97, x: [(i * 0.618) % 1, (i * 0.414) % 1]});
            const few = P.contour({params: ['a', 'b'], trials: trials.slice(0, 12)}, spec, {x: 'a', y: 'b', metric: 'm', goal: 'MINIMIZE'});
            const many = P.contour({params: ['a', 'b'], trials}, spec, {x: 'a', y: 'b', metric: 'm', goal: 'MINIMIZE'});
            const dot = (r) => ({size: r.option.series[1].symbolSize, opacity: r.option.series[1].itemStyle.opacity});
            return [dot(few), dot(many)];""")
        check(dots[1]["size"] < dots[0]["size"] and dots[1]["opacity"] < 1,
              "5000 contour dots are drawn as 12 are: %s" % dots)
        b.console_errors("the contour tab")

    def check_curves(self):
        b = self.browser
        self.tab("curves")
        curves = self.api.get("/api/studies/%s/curves" % self.job)["curves"]
        stopped = [c for c in curves if c["stopped_early"]]
        check(stopped, "no trial was stopped early, so there is no stop step to check (states: %s)"
              % [(t["number"], t["state"], t["stopped_early"]) for t in self.rows])
        for c in stopped:
            check(c["points"] and c["points"][-1][0] == c["stop_step"],
                  "API: trial %d stopped at step %r but its curve ends at %r"
                  % (c["trial"], c["stop_step"], c["points"][-1][0] if c["points"] else None))
        d = wait_for("the learning curves", lambda: b.debug("curves"))
        check(d["lines"] == len(curves), "%d curves drawn, the API gives %d" % (d["lines"], len(curves)))
        drawn = {s["trial"]: s for s in d["stopped"]}
        for c in stopped:
            s = drawn.get(c["trial"])
            check(s is not None, "trial %d, stopped early, is not drawn as stopped" % c["trial"])
            check(s["last_step"] == c["stop_step"] == s["stop_step"],
                  "trial %d: its drawn curve ends at step %r, it stopped at %r" % (c["trial"], s["last_step"], c["stop_step"]))
        b.shot("09-study-curves.png")
        b.console_errors("the learning curves tab")

    def check_curve_choice(self):
        b = self.browser
        rows = self.api.trials(self.job)["trials"]
        ran = sorted(t["number"] for t in rows if t["start_time"])
        stopped = sorted(t["number"] for t in rows if t["stopped_early"] and t["start_time"])
        for select, expected in (("all", ran), ("stopped", stopped)):
            Select(b.find("#curves-select")).select_by_value(select)
            d = wait_for("the %s curves" % select,
                         lambda: (lambda d: d if d and d.get("select") == select else None)(b.debug("curves")))
            check(d["trials"] == expected and d["matching"] == len(expected),
                  "%s: curves of %s (matching %d), expected %s" % (select, d["trials"], d["matching"], expected))
            check(b.text("#curves-summary").startswith("%d curve" % len(expected)), "summary %r" % b.text("#curves-summary"))
            if select == "stopped":
                check(sorted(s["trial"] for s in d["stopped"]) == expected, "not all drawn as stopped: %s" % d["stopped"])
                b.shot("09b-study-curves-stopped.png")
        # at most N: an even spread, said so
        small = self.api.get("/api/studies/%s/curves" % self.job, select="all", max_trials="3")
        check(len(small["curves"]) == 3 and small["downsampled"] and small["matching"] == len(ran),
              "select=all&max_trials=3: %d curves, downsampled %r" % (len(small["curves"]), small["downsampled"]))
        status, _, body = self.api.request("GET", "/api/studies/%s/curves?select=bogus" % self.job)
        check(status == 400 and b"select" in body, "select=bogus: %d %s" % (status, body[:200]))
        # selected: the trials the table shows (here, a state filter)
        self.tab("trials")
        b.click("input[data-testid=state-SUCCEEDED]")
        d = wait_for("the state filter", lambda: (lambda d: d if d["states"] == ["SUCCEEDED"] else None)(b.debug("trials")))
        shown = sorted(d["numbers"])
        self.tab("curves")
        Select(b.find("#curves-select")).select_by_value("selected")
        d = wait_for("the selected curves",
                     lambda: (lambda d: d if d and d.get("select") == "selected" else None)(b.debug("curves")))
        check(d["trials"] == shown, "selected: curves of %s, the table shows %s" % (d["trials"], shown))
        self.tab("trials")
        b.click("input[data-testid=state-SUCCEEDED]")
        wait_for("the filter cleared", lambda: b.debug("trials")["states"] == [])
        b.console_errors("choosing learning curves")

    def check_importance(self):
        b = self.browser
        self.tab("importance")
        imp = self.api.get("/api/studies/%s/importance" % self.job)
        d = wait_for("the importance chart", lambda: b.debug("importance"))
        check(d["bars"] == len(imp["importances"]) == 3, "importance: %d bars, the API gives %d" % (d["bars"], len(imp["importances"])))
        check(d["order"] == [x["param"] for x in sorted(imp["importances"], key=lambda x: -x["importance"])],
              "bars in the order %s" % d["order"])
        check(imp["method"] in b.text("#importance-note"), "the method is not named")
        # Each bar has its bootstrap interval drawn as a whisker around it.
        drawn = wait_for("the importance whiskers", lambda: b.drawn("importance", 1))
        check(drawn == [3, 3], "importance whiskers drawn, held: %s; 3 bars" % (drawn,))
        for x in imp["importances"]:
            check(x["lower"] <= x["importance"] <= x["upper"], "interval of %s: %s" % (x["param"], x))
        check(d["intervals"] == [[x["lower"], x["upper"]] for x in sorted(imp["importances"], key=lambda x: -x["importance"])],
              "whiskers %s, the API gives other intervals" % d["intervals"])
        # 12 trials are too few to rank: a note says how many there are and
        # how many are needed.
        check(imp["trials"] < imp["trials_needed"] == 30, "the study has %d trials of %d needed" % (imp["trials"], imp["trials_needed"]))
        note = b.visible("#importance-too-few")
        check(note is not None, "no note that there are too few trials to rank")
        text = note.text
        check("Too few trials to rank" in text and (" %d finished" % imp["trials"]) in text and "at least 30 needed" in text,
              "the note says %r" % text)
        b.shot("10-study-importance.png")
        b.console_errors("the importance tab")

    def check_timeline(self):
        b = self.browser
        self.tab("timeline")
        legend = b.text("#panel-timeline .legend")
        check("infeasible" in legend, "the timeline's legend has no infeasible colour: %r" % legend)
        tl = self.api.get("/api/studies/%s/timeline" % self.job)
        check(tl["lanes"] == 3, "the API's timeline has %r lanes, expected 3 (maxParallelTrials)" % tl["lanes"])
        d = wait_for("the timeline", lambda: b.debug("timeline"))
        check(d["lanes"] == 3, "the timeline shows %d lanes (%s), expected 3" % (d["lanes"], d["lane_names"]))
        check(d["slots_used"] == 3, "bars use %d slots, expected 3" % d["slots_used"])
        check(d["bars"] == len(tl["trials"]), "%d bars, the API lists %d trials" % (d["bars"], len(tl["trials"])))
        b.shot("11-study-timeline.png")
        b.console_errors("the timeline tab")

    def check_pareto(self):
        """A job of two objectives and a constraint: the plot marks exactly
        the non-dominated feasible trials, computed here from the trials'
        reported values; a study of one objective has no such tab."""
        b = self.open("#/study/%s" % self.job, "the one-objective study")
        wait_for("the study header", lambda: b.visible("#study-header .fact"))
        check(b.js("return document.getElementById('tab-pareto').hidden"),
              "a one-objective study shows the Pareto front tab")
        job = "dash_pareto"
        path = os.path.join(self.tmp, job + ".yaml")
        with open(path, "w") as f:
            f.write(PARETO_CONFIG.format(trainer=self.trainer))
        submit(self.hptune, self.env, self.grpc, job, path)
        def done():
            s = self.api.study(job)
            return s if s["job"] and s["job"]["state"] in ("SUCCEEDED", "FAILED", "CANCELLED") else None
        s = wait_for("job %s to end" % job, done, timeout=240, interval=0.5)
        check(s["job"]["state"] == "SUCCEEDED", "job %s ended %s" % (job, s["job"]["state"]))
        # The front from the trial pages' final measurements.
        results = {}
        for row in self.api.trials(job)["trials"]:
            trial = self.api.get("/api/studies/%s/trials/%d" % (job, row["number"]))
            final = trial.get("final_measurement")
            if row["state"] == "SUCCEEDED" and final:
                m = final["metrics"]
                results[row["number"]] = ((m["loss"], m["latency_ms"]), m["memory_mb"] <= 300)
        feasible = {n: v for n, (v, ok) in results.items() if ok}
        dominated = lambda a, b: all(x <= y for x, y in zip(a, b)) and a != b
        front = sorted(n for n, v in feasible.items() if not any(dominated(w, v) for w in feasible.values()))
        infeasible = sorted(n for n, (_, ok) in results.items() if not ok)
        check(front and infeasible and len(front) < len(feasible),
              "the job should have a front (%s), dominated and infeasible trials (%s)" % (front, infeasible))
        b = self.open("#/study/%s?tab=pareto" % job, "the Pareto front tab")
        d = wait_for("the Pareto front plot", lambda: b.debug("pareto"))
        check(d["optimal"] == front, "optimal trials shown: %s, the front of the results: %s" % (d["optimal"], front))
        check(d["infeasible"] == infeasible, "infeasible shown: %s, expected %s" % (d["infeasible"], infeasible))
        check(d["points"] == len(results), "%d points, %d trials have every metric" % (d["points"], len(results)))
        check((d["x"], d["y"]) == ("loss", "latency_ms"), "axes %s, %s" % (d["x"], d["y"]))
        check(not b.js("return document.getElementById('tab-pareto').hidden"), "the Pareto front tab is hidden")
        check("memory_mb ≤ 300" in b.text("#pareto-note"), "the note does not state the constraint")
        b.shot("12-study-pareto.png")
        b.console_errors("the Pareto front tab")
        # its table: the other objective and the constraint, with its threshold
        b = self.open("#/study/%s" % job, "the two-objective study's trials")
        d = wait_for("the trials table", lambda: b.debug("trials"))
        heads = [th.text for th in b.finds("#trials-table th")]
        check("latency_ms ↓" in heads and "memory_mb ≤ 300" in heads,
              "the table's columns %s lack the objective or the constraint's threshold" % heads)
        marked = sorted(int(td.find_element(By.XPATH, "..").get_attribute("data-trial"))
                        for td in b.finds("#trials-table td[data-optimal=true]"))
        check(marked == front, "the table marks %s optimal, the front is %s" % (marked, front))
        b.shot("12b-study-pareto-trials.png")
        bad = sorted(int(td.find_element(By.XPATH, "..").get_attribute("data-trial"))
                     for td in b.finds("#trials-table td[data-feasible=false]"))
        check(bad == infeasible, "the table marks %s as breaking the constraint, expected %s" % (bad, infeasible))
        href = b.find("#export-csv").get_attribute("href")
        status, _, body = self.api.request("GET", urllib.parse.urlparse(href).path + "?" + urllib.parse.urlparse(href).query)
        exported = {int(r["trialId"]): r for r in csv.DictReader(io.StringIO(body.decode("utf-8")))}
        check(sorted(n for n, r in exported.items() if r["feasible"] == "false") == infeasible
              and sorted(n for n, r in exported.items() if r["optimal"] == "true") == front,
              "the CSV's feasible and optimal columns: %s" % list(exported.values())[:3])
        self.check_objective_select(b, job)
        b = self.open("#/", "the studies list")
        cell = wait_for("the two-objective study's row",
                        lambda: b.text("#studies-table tr[data-study=%s] [data-testid=study-best]" % job))
        check(cell == "%d optimal" % len(front), "the list shows %r for a two-objective study" % cell)

    def check_objective_select(self, b, job):
        """The objective selector changes the history plot's data to the
        other objective's, as the API answers it."""
        self.tab("history")
        d = wait_for("the history plot", lambda: b.debug("history"))
        check(d["metric"] == "loss", "the history shows %r first" % d["metric"])
        Select(b.find("#objective-select")).select_by_value("latency_ms")
        d = wait_for("the history of latency_ms",
                     lambda: (lambda d: d if d and d["metric"] == "latency_ms" else None)(b.debug("history")))
        want = self.api.get("/api/studies/%s/history" % job, objective="latency_ms")["points"][:20]
        check(d["first_values"] == [[p["trial"], p["value"]] for p in want],
              "the history of latency_ms: %s, the API: %s" % (d["first_values"], want))
        b.shot("12c-study-objective-history.png")
        b.console_errors("the objective selector")

    def check_config(self):
        b = self.browser
        self.tab("config")
        pre = wait_for("the config", lambda: b.visible("#config-json"))
        config = json.loads(pre.text)
        check("hyperparameters" in json.dumps(config), "the config has no hyperparameters: %s" % pre.text[:200])
        rows = b.finds("#space-table tbody tr")
        check(len(rows) == 3, "the search space table has %d rows, expected 3" % len(rows))
        b.shot("12-study-config.png")
        b.console_errors("the config tab")

    def check_trial_page(self):
        best = self.detail["best"]["trial"]
        b = self.open("#/study/%s/trial/%d" % (self.job, best), "the trial page")
        d = wait_for("the trial page", lambda: b.debug("trial"))
        detail = self.api.get("/api/studies/%s/trials/%d" % (self.job, best))
        check(d["measurements"] == len(detail["measurements"]), "measurements %d vs %d" % (d["measurements"], len(detail["measurements"])))
        check(len(b.finds("#trial-params tr")) == 3, "the params table has no 3 rows")
        check(len(b.finds("#trial-measurements tbody tr")) == len(detail["measurements"]), "the measurements table")
        check(detail["logs"], "the API lists no replica logs for trial %d" % best)
        log = wait_for("the log text", lambda: (lambda t: t if "step 1: loss" in t else None)(b.find("#trial-log").text),
                       timeout=60)
        check("done" in log, "the log of a finished trial lacks its end: %r" % log[-200:])
        b.shot("13-trial.png")
        b.console_errors("the trial page")

    def submit_long_job(self):
        config = self.config("long", ["--steps=100000", "--step_seconds=0.3"], 20, 2)
        submit(self.hptune, self.env, self.grpc, self.long_job, config)

        def running():
            s = self.api.study(self.long_job)
            return s if s["job"] and s["job"]["state"] == "RUNNING" and s["counts"].get("ACTIVE", 0) >= 1 else None
        wait_for("the long job to run a trial", running, interval=0.25)

    def check_live_log(self):
        b = self.open("#/study/%s/trial/1" % self.long_job, "the running trial's page")
        first = wait_for("the log to show output", lambda: (lambda d: d if d and d.get("chars", 0) > 0 else None)(b.debug("log")))
        wait_for("the log to grow while the trial runs (had %d characters)" % first["chars"],
                 lambda: b.debug("log")["chars"] > first["chars"] + 20)
        check(b.js("return performance.getEntriesByType('navigation').length") == 1, "the page was reloaded")
        b.js("document.getElementById('trial-log').scrollIntoView({block: 'end'})")
        b.shot("14-trial-running.png")
        b.console_errors("the running trial's page")

    def check_running_row(self):
        b = self.open("#/study/%s" % self.long_job, "the long job's page")
        def shown():
            d = b.debug("trials")
            if not d or "last_step" not in d["columns"]:
                return None
            for row in b.finds("#trials-table tr[data-testid=trial-row]"):
                cells = row.find_elements(By.CSS_SELECTOR, "td")
                if "ACTIVE" in cells[d["columns"].index("state")].text:
                    step = cells[d["columns"].index("last_step")].text
                    value = cells[d["columns"].index("last_value")].text
                    if step.isdigit() and int(step) > 0 and value not in ("", "—"):
                        return int(row.get_attribute("data-trial")), int(step), value
            return None
        trial, step, value = wait_for("an ACTIVE row with its latest step and value", shown)
        api = self.api.get("/api/studies/%s/trials/%d" % (self.long_job, trial))
        steps = [m["step"] for m in api["measurements"]]
        check(step in steps, "trial %d shows step %d; it reported %s" % (trial, step, steps[-5:]))
        b.shot("17b-study-running-latest-step.png")
        b.console_errors("the running trial's row")

    def check_cancel(self):
        b = self.open("#/study/%s" % self.long_job, "the long job's page")
        b.click("#cancel-job")
        wait_for("the confirmation dialog", lambda: b.visible("#cancel-dialog"))
        focused = b.js("return document.activeElement && document.activeElement.id")
        check(focused == "cancel-dismiss", "the cancel dialog opens with the focus on %r, not Keep running" % focused)
        b.shot("15-cancel-dialog.png")
        state = self.api.study(self.long_job)["job"]["state"]
        check(state == "RUNNING", "the dialog alone changed the job: %s" % state)
        b.click("#cancel-confirm")
        wait_for("the job to be CANCELLING or CANCELLED",
                 lambda: self.api.study(self.long_job)["job"]["state"] in ("CANCELLING", "CANCELLED"), interval=0.25)
        wait_for("the page to show the cancelled job",
                 lambda: b.find("#job-state").text in ("CANCELLING", "CANCELLED"))
        check(not b.finds("#cancel-job"), "the Cancel job button is still there")
        check(not b.visible("#cancel-error"), "an error is shown: %s" % b.text("#cancel-error"))
        wait_for("the job to end CANCELLED",
                 lambda: self.api.study(self.long_job)["job"]["state"] == "CANCELLED", interval=0.25)
        wait_for("the page to show CANCELLED", lambda: b.find("#job-state").text == "CANCELLED")
        b.shot("16-study-cancelled.png")
        b.console_errors("cancelling")

    def check_dark_mode(self):
        """With the system in dark mode the page and the plots are dark;
        back in light mode they are light again."""
        b = self.browser
        background = "return getComputedStyle(document.body).backgroundColor"
        try:
            b.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                     {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
            b = self.open("#/study/%s?tab=history" % self.job, "the study page in dark mode")
            wait_for("the history plot", lambda: b.debug("history"))
            check(b.js(background) == "rgb(18, 22, 28)", "the dark page's background is %s" % b.js(background))
            check(b.js("return window.hptune.plots.dark"), "the plots do not take the dark theme")
            b.shot("19-study-history-dark.png")
        finally:
            b.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
        b = self.open("#/study/%s" % self.job, "the study page in light mode")
        check(b.js(background) == "rgb(244, 246, 249)", "the light page's background is %s" % b.js(background))
        b.console_errors("dark mode")

    def check_login_page(self):
        b = self.browser
        b.driver.delete_all_cookies()
        b.driver.get(self.a.url + "/login")
        wait_for("the login form", lambda: b.visible("#token"))
        b.shot("00-login.png")
        b.console_errors("the login page")
        b.find("#token").send_keys("not-the-token")
        b.find("#login-submit").click()
        wait_for("the login page again after a wrong token, saying so",
                 lambda: "/login" in b.driver.current_url and b.visible("#token") and b.visible("#login-error"))
        status, _, _ = Api(self.a.url).request("GET", "/api/studies", token=False)
        check(status == 401, "after logging out the API answered %d" % status)
        b.console_errors("a wrong token")

    def check_login_deep_link(self):
        b = self.browser
        b.driver.delete_all_cookies()
        deep = "#/study/%s?tab=history" % self.job
        b.driver.get(self.a.url + "/" + deep)
        wait_for("the login form", lambda: "/login" in b.driver.current_url and b.visible("#token"))
        b.find("#token").send_keys("not-the-token")
        b.find("#login-submit").click()
        wait_for("the login page again, saying so",
                 lambda: "failed" in b.driver.current_url and b.visible("#token") and b.visible("#login-error"))
        b.find("#token").send_keys(self.token)
        b.find("#login-submit").click()
        wait_for("the deep link after logging in", lambda: "/login" not in b.driver.current_url and
                 b.js("var p = document.getElementById('panel-history'); return !!p && !p.hidden"))
        check(b.driver.current_url.endswith(deep), "landed on %s, expected %s" % (b.driver.current_url, deep))
        b.console_errors("logging in again after a wrong token")

    def check_tls_server(self):
        cert, key = make_certificate(self.tmp)
        server = self.start_server("server-b-tls", [
            "--listen", "127.0.0.1:0", "--http", "0.0.0.0:0", "--tls-cert", cert, "--tls-key", key,
            "--db", os.path.join(self.tmp, "b.db"), "--state-dir", os.path.join(self.tmp, "runs-b")])
        check(server.url.startswith("https://"), "the TLS dashboard's URL is %s" % server.url)
        api = Api(server.url, self.token, cafile=cert)
        anonymous = Api(server.url, None, cafile=cert)
        job = "dash_tls"
        config = self.config("tls", ["--steps=100000", "--step_seconds=0.3"], 4, 1)
        submit(self.hptune, self.env, "127.0.0.1:%d" % server.grpc_port, job, config, ["--tls-ca", cert])
        wait_for("the job on the TLS server",
                 lambda: any(s["name"] == job for s in api.get("/api/studies")["studies"]))
        cancel = "/api/jobs/%s/cancel" % job
        status, _, body = anonymous.request("GET", "/api/studies")
        check(status == 401, "TLS server, GET /api/studies without a token: expected 401, got %d" % status)
        status, _, body = anonymous.request("POST", cancel, body=b"{}", headers={"Content-Type": "application/json"})
        check(status == 401, "TLS server, cancel without a token: expected 401, got %d %s" % (status, body[:200]))
        # log in as a browser does: the form, then the session cookie
        status, headers, _ = anonymous.request("POST", "/login", body=urllib.parse.urlencode({"token": self.token}).encode(),
                                               headers={"Content-Type": "application/x-www-form-urlencoded"})
        cookie_header = headers.get("Set-Cookie") or ""
        check(status in (302, 303) and cookie_header, "POST /login: %d, Set-Cookie %r" % (status, cookie_header))
        check("Secure" in cookie_header and "HttpOnly" in cookie_header, "the session cookie lacks Secure/HttpOnly: %s" % cookie_header)
        cookie = cookie_header.split(";")[0]
        status, _, body = anonymous.request("GET", "/api/session", headers={"Cookie": cookie})
        check(status == 200 and json.loads(body)["csrf"], "GET /api/session with the cookie: %d" % status)
        status, _, body = anonymous.request("POST", cancel, body=b"{}", headers={"Cookie": cookie, "Content-Type": "application/json"})
        check(status == 403, "TLS server, cancel with the cookie but no X-Hptune-Csrf: expected 403, got %d %s" % (status, body[:200]))
        check(api.study(job)["job"]["state"] not in ("CANCELLING", "CANCELLED"), "the refused cancel cancelled the job")
        status, _, body = api.request("POST", cancel, body=b"{}", headers={"Content-Type": "application/json"})
        check(status == 200, "TLS server, cancel with Authorization: Bearer: expected 200, got %d %s" % (status, body[:200]))
        check(json.loads(body).get("state") in ("CANCELLING", "CANCELLED"), "cancel answered %s" % body[:200])
        wait_for("the TLS job to end CANCELLED", lambda: api.study(job)["job"]["state"] == "CANCELLED", interval=0.25)
        # a plaintext request to the TLS port gets nothing useful
        host, port = urllib.parse.urlparse(server.url).hostname, urllib.parse.urlparse(server.url).port
        conn = http.client.HTTPConnection(host, port, timeout=10)
        try:
            conn.request("GET", "/api/studies")
            plain = conn.getresponse().status
        except (OSError, http.client.HTTPException):
            plain = None
        finally:
            conn.close()
        check(plain != 200, "the TLS server answered a plaintext request with 200")

    # ------------------------------------------------------------ comparison views

    def progress_segments(self, css):
        """[state, count, background colour, width in px] of each segment
        of the progress bar at css."""
        return self.browser.js(
            "return Array.from(document.querySelectorAll(arguments[0] + ' .progress-seg')).map((e) =>"
            " [e.dataset.state, Number(e.dataset.count), getComputedStyle(e).backgroundColor,"
            "  e.getBoundingClientRect().width]);", css)

    def check_bar(self, css, rows, where):
        """The bar at css has one segment per state the trials `rows` are
        in, each with its count and width, in distinct colours; failed and
        cancelled trials are never green."""
        expected = expected_progress(rows)
        segments = wait_for("%s's progress bar to show %s" % (where, expected),
                            lambda: (lambda s: s if {x[0]: x[1] for x in s} == expected else None)(
                                self.progress_segments(css)))
        colours = [x[2] for x in segments]
        check(len(set(colours)) == len(colours), "%s: two states share a colour: %s" % (where, segments))
        check(all(x[3] > 0 for x in segments), "%s: a segment has no width: %s" % (where, segments))
        for state, _, colour, _ in segments:
            if state in ("FAILED", "CANCELLED", "RUNNING", "PENDING"):
                check(colour != GREEN, "%s: %s trials are drawn green" % (where, state))
        return segments

    def check_legend(self, css, segments, where):
        """The legend at css gives each segment's colour."""
        legend = self.browser.js(
            "return Array.from(document.querySelectorAll(arguments[0] + ' .legend-item')).map((e) =>"
            " [e.dataset.state, getComputedStyle(e.querySelector('.swatch')).backgroundColor, e.innerText]);", css)
        by_state = {x[0]: x for x in legend}
        for state, count, colour, _ in segments:
            check(state in by_state and by_state[state][1] == colour,
                  "%s: the legend %s does not give %s's colour %s" % (where, legend, state, colour))
        return legend

    def check_progress(self):
        b = self.open("#/", "the studies list")
        wait_for("the study in the list", lambda: (lambda d: d and self.job in d["names"])(b.debug("studies")))
        api = self.api.study(self.job)["progress"]
        expected = expected_progress(self.rows)
        check({k: v for k, v in api.items() if v and k != "finished"} == expected,
              "the API's progress %s; the trials say %s" % (api, expected))
        check("STOPPED_EARLY" in expected, "no trial was stopped early: %s" % expected)
        row = "#studies-table tr[data-study=%s]" % self.job
        segments = self.check_bar(row + " [data-testid=progress]", self.rows, "the studies list")
        legend = self.check_legend("#studies-progress-legend", segments, "the studies list")
        check([x[0] for x in legend] == list(PROGRESS_STATES), "the list's legend: %s" % legend)
        b = self.open("#/study/%s" % self.job, "the study page")
        segments = self.check_bar("#study-progress", self.rows, "the study header")
        legend = self.check_legend("#study-progress-legend", segments, "the study header")
        check(any(x[2] == "%d stopped early" % expected["STOPPED_EARLY"] for x in legend),
              "the header's legend does not count the stopped trials: %s" % legend)
        b.console_errors("the progress bars")

    def check_savings(self):
        saved = self.api.study(self.job)["early_stopping_savings"]
        check(saved and saved["trials_stopped"] >= 1, "the API's early_stopping_savings: %r" % (saved,))
        b = self.open("#/study/%s" % self.job, "the study page")
        text = wait_for("the header's Saved by stopping", lambda: b.text("#stopping-savings"))
        if saved["steps_saved"] is None:
            expected = ["unknown", "no trial ran to its end"]
        else:
            # As the page rounds (Math.round), not Python's round-half-even.
            expected = ["%d%% of steps" % math.floor(saved["share_saved"] * 100 + 0.5),
                        "%d steps" % math.floor(saved["steps_saved"] + 0.5), "replica time"]
        expected.append("%d stopped" % saved["trials_stopped"])
        check(all(e in text for e in expected), "the header says %r; expected %r in it" % (text, expected))
        title = b.js("return document.getElementById('stopping-savings').title")
        check(title == saved["summary"], "the fact's title %r is not the API's summary %r" % (title, saved["summary"]))
        b.console_errors("the savings in the study header")

    def check_progress_cancelled(self):
        rows = wait_for("every trial of the cancelled job to end",
                        lambda: (lambda r: r if all(t["state"] not in RUNNING for t in r) else None)(
                            self.api.trials(self.long_job)["trials"]))
        check(any(t["state"] in ("CANCELLED", "FAILED") for t in rows),
              "the cancelled job has no cancelled or failed trial: %s" % [t["state"] for t in rows])
        b = self.open("#/", "the studies list")
        wait_for("the cancelled study in the list", lambda: (lambda d: d and self.long_job in d["names"])(b.debug("studies")))
        self.check_bar("#studies-table tr[data-study=%s] [data-testid=progress]" % self.long_job, rows,
                       "the cancelled job's row")
        b.shot("20-studies-progress.png")
        b.console_errors("the cancelled job's progress bar")

    def check_edf(self):
        b = self.browser
        values = sorted(t["value"] for t in self.finished_with_value(self.rows))
        n = len(values)
        expected = [[v, sum(1 for x in values if x <= v) / n] for v in sorted(set(values))]
        api = self.api.get("/api/studies/%s/edf" % self.job)
        check(api["total"] == n and api["distinct"] == len(expected) and not api["downsampled"],
              "the API's EDF: total %d, distinct %d; expected %d, %d" % (api["total"], api["distinct"], n, len(expected)))
        check(close_pairs(api["points"], expected), "the API's EDF %s, expected %s" % (api["points"], expected))
        self.tab("edf")
        d = wait_for("the EDF plot", lambda: b.debug("edf"))
        check(d["series"][0]["points"] == len(expected), "the EDF plot has %r, expected %d points" % (d, len(expected)))
        data = b.js("return window.hptuneCharts.edf.getOption().series[0].data")
        check(close_pairs(data, expected), "the EDF drawn: %s, expected %s" % (data, expected))
        drawn = wait_for("the EDF's symbols", lambda: b.drawn("edf", 0))
        check(drawn[0] == drawn[1] == len(expected), "the EDF drew %s of %d points" % (drawn, len(expected)))
        summary = b.text("#edf-summary")
        check("%d finished trials" % n in summary and "all %d distinct values drawn" % len(expected) in summary,
              "the EDF's summary: %r" % summary)
        thin = self.api.get("/api/studies/%s/edf" % self.job, max_points=2)
        check(thin["downsampled"] and close_pairs(thin["points"], [expected[0], expected[-1]]),
              "max_points=2: %s, expected the first and last of %s" % (thin, expected))
        status, _, body = self.api.request("GET", "/api/studies/%s/edf?max_points=0" % self.job)
        check(status == 400 and 'max_points \\"0\\"' in body.decode(), "max_points=0: %d %s" % (status, body[:200]))
        b.shot("03b-study-edf.png")
        b.console_errors("the EDF tab")

    def check_rank(self):
        b = self.browser
        values = [t["value"] for t in self.finished_with_value(self.rows)]
        expected = {t["number"]: 1 + sum(1 for v in values if v < t["value"]) for t in self.finished_with_value(self.rows)}
        api = self.api.get("/api/studies/%s/rank" % self.job)
        got = {t["trial"]: t["rank"] for t in api["trials"]}
        check(got == expected, "the API's ranks %s, expected %s" % (got, expected))
        self.tab("rank")
        d = wait_for("the rank plot", lambda: b.debug("rank"))
        check(d["plots"] == 3, "%d rank plots, expected 3 (one per parameter)" % d["plots"])
        option = b.js("var o = window.hptuneCharts.rank.getOption();"
                      " return [o.visualMap[0].dimension, o.series.map((s) => s.data.map((x) => [x[2], x[4]]))]")
        check(option[0] == 4, "the rank plot is coloured by dimension %r, not the rank" % option[0])
        for series in option[1]:
            drawn_ranks = {int(t): r for t, r in series}
            check(all(expected.get(t) == r for t, r in drawn_ranks.items()),
                  "a rank plot colours %s, the ranks are %s" % (drawn_ranks, expected))
        for series in range(d["plots"]):
            drawn = wait_for("the rank plot's symbols", lambda: b.drawn("rank", series))
            check(drawn[0] == drawn[1] > 0, "rank plot %d drew %d of its %d points" % (series, drawn[0], drawn[1]))
        summary = b.text("#rank-summary")
        check("ranked among %d" % len(values) in summary and "all %d trials drawn" % len(values) in summary,
              "the rank plot's summary: %r" % summary)
        b.shot("07b-study-rank.png")
        b.console_errors("the rank tab")

    def check_compare(self):
        b = self.open("#/", "the studies list")
        pair = [self.job, "dash_pareto"]
        wait_for("both studies in the list", lambda: (lambda d: d and all(n in d["names"] for n in pair))(b.debug("studies")))
        for name in pair:
            b.click("#studies-table tr[data-study=%s] input[data-testid=compare-pick]" % name)
        wait_for("the Compare link", lambda: (b.find("#compare-studies").get_attribute("href") or "").endswith(
            "#/compare?studies=%s" % ",".join(pair)))
        b.shot("18a-studies-picked.png")
        b.click("#compare-studies")
        d = wait_for("the comparison", lambda: (lambda d: d if d and d["studies"] == pair else None)(b.debug("compare")))
        url = b.driver.current_url
        check(url.endswith("#/compare?studies=%s" % ",".join(pair)), "the URL does not keep the choice: %s" % url)
        api = self.api.get("/api/compare", studies=",".join(pair))
        check([s["name"] for s in api["studies"]] == pair, "the API compared %s" % [s["name"] for s in api["studies"]])
        for i, s in enumerate(api["studies"]):
            rows = self.api.trials(s["name"])["trials"]
            check(s["history"]["total"] == len(self.finished_with_value(rows)), "%s: history total %d" % (s["name"], s["history"]["total"]))
            check(d["best"][i]["points"] == len(s["history"]["points"]) and d["edf"][i]["points"] == len(s["edf"]["points"]),
                  "%s: drawn %s / %s, the API has %d / %d points" % (s["name"], d["best"][i], d["edf"][i],
                                                                      len(s["history"]["points"]), len(s["edf"]["points"])))
        best = b.js("return window.hptuneCharts['compare-best'].getOption().series.map((s) => s.data)")
        for i, s in enumerate(api["studies"]):
            check(close_pairs(best[i], [[p["trial"], p["best"]] for p in s["history"]["points"]]),
                  "%s: best so far drawn %s" % (s["name"], best[i]))
        b.shot("18-compare.png")
        b.js("document.getElementById('chart-compare-edf').scrollIntoView()")
        b.shot("18b-compare-edf.png")
        b.driver.get("about:blank")
        b.driver.get(url)
        wait_for("the same comparison after a reload",
                 lambda: (lambda d: d and d["studies"] == pair)(b.debug("compare")))
        wait_for("the picker to show the choice", lambda: b.js(
            "return Array.from(document.querySelectorAll('#compare-picker input:checked')).map((e) => e.value)") == sorted(pair))
        b.click("input[data-testid='compare-dash_pareto']")
        wait_for("one study left", lambda: (lambda d: d and d["studies"] == [self.job])(b.debug("compare")))
        check(b.driver.current_url.endswith("#/compare?studies=%s" % self.job), "the URL: %s" % b.driver.current_url)
        b.console_errors("comparing studies")
        nine = ",".join("s%d" % i for i in range(9))
        for query, code, text in (("studies=" + nine, 400, 'studies \\"%s\\": at most 8 studies, got 9' % nine),
                                  ("studies=%s,%s" % (self.job, self.job), 400, "is named twice"),
                                  ("", 400, "studies: give 1 to 8"),
                                  ("studies=%s,no_such_study" % self.job, 404, "no_such_study"),
                                  ("studies=%s&max_points=0" % self.job, 400, 'max_points \\"0\\"')):
            status, _, body = self.api.request("GET", "/api/compare?" + query)
            check(status == code and text in body.decode(), "GET /api/compare?%s: %d %s" % (query, status, body[:200]))


def repr_js(value):
    """JavaScript's String(number): the shortest round trip, as Python's repr
    for floats except for whole numbers and exponents."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    m = re.match(r"^(-?[\d.]+)e([+-])0*(\d+)$", text)
    if m:
        return "%se%s%s" % (m.group(1), m.group(2), m.group(3))
    return text


def report(test, ok, started):
    """Prints what `test` found; the exit code for it."""
    print("\n%d checks passed, %d failed in %.0f s; screenshots in %s"
          % (len(test.passed), len(test.failed), time.monotonic() - started, test.out))
    for name, detail in test.failed:
        print("FAILED: %s\n  %s" % (name, detail.replace("\n", "\n  ")))
    return 0 if ok else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True, help="the hptune binary")
    parser.add_argument("--out", required=True, help="where screenshots and server logs go")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if not os.access(args.hptune, os.X_OK):
        print("FAIL: %s is not an executable" % args.hptune)
        return 2
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            print("FAIL: %s is missing (apt-get install chromium chromium-driver)" % path)
            return 2
    started = time.monotonic()
    test = DashboardTest(args.hptune, args.out, args.keep)
    return report(test, test.run(), started)


if __name__ == "__main__":
    sys.exit(main())

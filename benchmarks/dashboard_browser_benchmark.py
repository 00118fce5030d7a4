#!/usr/bin/env python3
"""The dashboard in a real browser on a large study: how long the study page
takes to show its trials table, and each plot tab to draw, in headless
Chromium at 1280x800, against `hptune dashboard` on a study database written
by `dashboard_benchmark --keep-db` (100,000 trials by default).

Times are from the navigation (or the tab's, or a column header's, click)
until the page reports the table or chart drawn (window.hptuneDebug, which the pages set after
ECharts' setOption returns), so they include the HTTP requests, JSON parsing
and drawing. "cold" is the first opening after the server started (it reads
the study from the file); "warm" a later one.

Usage (Debian's /usr/bin/python3 with python3-selenium, chromium and
chromium-driver, which `scripts/setup test` installs):
  build/benchmarks/dashboard_benchmark --keep-db=/tmp/large.db
  /usr/bin/python3 benchmarks/dashboard_browser_benchmark.py \\
      --hptune build/src/cli/hptune --db /tmp/large.db [--runs=5 --hog]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "dashboard"))
from browser_test import Browser, wait_for  # noqa: E402

# Columns of the trials table sorted in turn: the objective, a numeric
# and a categorical parameter, the state, the start time, the trial number
# again.
SORTS = ["value", "param:x0", "param:opt", "state", "start_time", "number"]
TABS = ["history", "edf", "rank", "parcoords", "slice", "contour", "curves",
        "importance", "timeline"]


def start_dashboard(hptune, db, workdir):
    token_file = os.path.join(workdir, "token")
    with open(token_file, "w") as f:
        f.write("dashboard-browser-benchmark\n")
    os.chmod(token_file, 0o600)
    server = subprocess.Popen(
        [hptune, "dashboard", "--db", db, "--http", "127.0.0.1:0",
         "--token-file", token_file, "--state-dir", workdir],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = server.stdout.readline()
    match = re.search(r"(https?://127\.0\.0\.1:\d+/)", line)
    if not match:
        server.kill()
        sys.exit("hptune dashboard did not start: %r" % line)
    return server, match.group(1), "dashboard-browser-benchmark"


# Each poll reads the few fields it needs, not the whole window.hptuneDebug:
# the rank plot's debug alone holds 5,000 pairs, and serialising it at every
# poll on the page's own thread slowed the views measured after it.
RENDERS = "return (window.hptuneDebug || {}).renders || 0"
DRAWN = """const d = window.hptuneDebug || {};
return [d[arguments[0]] !== undefined && d[arguments[0]] !== null,
        d.renders || 0];"""
TABLE = """const t = (window.hptuneDebug || {}).trials || {};
return [t.rows || 0, t.sort || null, (window.hptuneDebug || {}).renders || 0];"""


def open_study(browser, url, study):
    start = time.monotonic()
    browser.driver.get("about:blank")
    browser.driver.get(url + "#/study/" + study)
    wait_for("the trials table", lambda: browser.js(TABLE)[0] > 0,
             timeout=120, interval=0.01)
    return time.monotonic() - start


def open_tab(browser, name):
    before = browser.js(RENDERS)
    start = time.monotonic()
    browser.find("#tab-" + name).click()
    wait_for("the %s chart" % name, lambda: (lambda drawn, renders: drawn and
             renders > before)(*browser.js(DRAWN, name)),
             timeout=120, interval=0.01)
    return time.monotonic() - start


def sort_table(browser, key):
    """Clicks the trials table's column `key` and waits for the server's
    rows in that order (the table drawn again, sorted by `key`)."""
    browser.find("#tab-trials").click()
    before = browser.js(RENDERS)
    start = time.monotonic()
    browser.find('#trials-table th[data-sort="%s"]' % key).click()
    wait_for("the sort by %s" % key, lambda: (lambda rows, sort, renders:
             sort == key and renders > before)(*browser.js(TABLE)),
             timeout=120, interval=0.01)
    return time.monotonic() - start


def one_run(hptune, db, study):
    """The cold then the warm round: {round: [(view, seconds)]}."""
    rounds = {}
    with tempfile.TemporaryDirectory(prefix="hptune-dash-bench-") as workdir:
        server, url, token = start_dashboard(hptune, db, workdir)
        browser = Browser(workdir)
        try:
            browser.driver.get(url + "login?token=" + token)
            wait_for("the login", lambda: "/login" not in
                     browser.driver.current_url)
            for round_name in ("cold", "warm"):
                times = [("study page (trials table)",
                          open_study(browser, url, study))]
                for tab in TABS:
                    times.append((tab, open_tab(browser, tab)))
                for key in SORTS:
                    times.append(("sort by " + key, sort_table(browser, key)))
                print("%s: %s" % (round_name, "; ".join(
                    "%s %d ms" % (name, seconds * 1000)
                    for name, seconds in times)), flush=True)
                rounds[round_name] = times
            errors = [e for e in browser.driver.get_log("browser")
                      if e.get("level") == "SEVERE"]
            if errors:
                sys.exit("JavaScript errors: %s" % errors)
        finally:
            browser.quit()
            server.terminate()
            server.wait(timeout=30)
    return rounds


def print_medians(runs):
    print("median of %d runs (ms), cold / warm:" % len(runs))
    for i, (name, _) in enumerate(runs[0]["cold"]):
        cells = [statistics.median(run[r][i][1] for run in runs) * 1000
                 for r in ("cold", "warm")]
        print("  %-28s %5d / %5d" % (name, cells[0], cells[1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--study", default="large")
    parser.add_argument("--runs", type=int, default=1,
                        help="runs, each with a server of its own; more "
                        "than one prints the medians")
    parser.add_argument("--hog", action="store_true",
                        help="run `yes > /dev/null` beside it (a busy "
                        "machine: issue 90's targets are set under one)")
    args = parser.parse_args()
    hog = subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) if args.hog \
        else None
    try:
        runs = [one_run(args.hptune, args.db, args.study)
                for _ in range(args.runs)]
    finally:
        if hog:
            hog.kill()
            hog.wait()
    if len(runs) > 1:
        print_medians(runs)


if __name__ == "__main__":
    main()

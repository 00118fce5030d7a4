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
      --hptune build/src/cli/hptune --db /tmp/large.db
"""

import argparse
import os
import re
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


def renders(browser, key):
    value = browser.debug(key)
    return None if value is None else repr(value)


def open_study(browser, url, study):
    start = time.monotonic()
    browser.driver.get("about:blank")
    browser.driver.get(url + "#/study/" + study)
    wait_for("the trials table", lambda: (browser.debug("trials") or {}).get(
        "rows", 0) > 0, timeout=120, interval=0.01)
    return time.monotonic() - start


def open_tab(browser, name):
    before = browser.js("return (window.hptuneDebug || {}).renders || 0")
    start = time.monotonic()
    browser.find("#tab-" + name).click()
    wait_for("the %s chart" % name, lambda: browser.debug(name) is not None
             and browser.js("return window.hptuneDebug.renders") > before,
             timeout=120, interval=0.01)
    return time.monotonic() - start


def sort_table(browser, key):
    """Clicks the trials table's column `key` and waits for the server's
    rows in that order."""
    browser.find("#tab-trials").click()
    before = browser.debug("trials") or {}
    start = time.monotonic()
    browser.find('#trials-table th[data-sort="%s"]' % key).click()
    wait_for("the sort by %s" % key, lambda: (lambda d: d.get("sort") == key
             and d is not before and d != before)(browser.debug("trials") or {}),
             timeout=120, interval=0.01)
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--study", default="large")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hptune-dash-bench-") as workdir:
        server, url, token = start_dashboard(args.hptune, args.db, workdir)
        browser = Browser(workdir)
        try:
            browser.driver.get(url + "login?token=" + token)
            wait_for("the login", lambda: "/login" not in
                     browser.driver.current_url)
            for round_name in ("cold", "warm"):
                times = [("study page (trials table)",
                          open_study(browser, url, args.study))]
                for tab in TABS:
                    times.append((tab, open_tab(browser, tab)))
                for key in SORTS:
                    times.append(("sort by " + key, sort_table(browser, key)))
                print("%s: %s" % (round_name, "; ".join(
                    "%s %d ms" % (name, seconds * 1000)
                    for name, seconds in times)))
            errors = [e for e in browser.driver.get_log("browser")
                      if e.get("level") == "SEVERE"]
            if errors:
                sys.exit("JavaScript errors: %s" % errors)
        finally:
            browser.quit()
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()

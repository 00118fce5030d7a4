#!/usr/bin/python3
"""The dashboard in a real headless Chromium against two real `hptune serve`
sharing one PostgreSQL database (of the ctest fixture's server): the job
is submitted to the first, the browser watches the second.

    /usr/bin/python3 tests/dashboard/postgres_browser_test.py --hptune BUILD/hptune \
        --postgres-server BUILD/tests/testing/postgres_server --postgres-dir DIR --out OUTDIR

browser_test.py's servers, browser, job and checks, on the path a user
takes: log in, submit a tuning job, watch its trials appear live, then the
studies list, the trials table, the history plot and a trial page with its
log, each checked against the API. The two servers share a state
directory, as servers of one machine do, so the second reads the trials'
logs the first's replicas write; the live checks see the first server's
writes reach the second's pages through the database's event table. Exits 77 (skipped) where no PostgreSQL
server runs in DIR, unless HPTUNE_EXPECT names "postgresql".
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_test import Api, Browser, DashboardTest, check, report  # noqa: E402

SKIPPED = 77


class PostgresDashboardTest(DashboardTest):
    def __init__(self, hptune, out, keep, db):
        super().__init__(hptune, out, keep)
        self.db = db

    def run(self):
        os.makedirs(self.out, exist_ok=True)
        try:
            args = ["--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                    "--db", self.db, "--state-dir", os.path.join(self.tmp, "runs")]
            runner = self.start_server("server-pg-runner", args)
            self.a = self.start_server("server-pg-viewer", args)  # the browser's
            with open(os.path.join(self.env["HPTUNE_CONFIG_DIR"], "token")) as f:
                self.token = f.read().strip()
            check(self.token, "the token file is empty")
            self.api = Api(self.a.url, self.token)
            self.grpc = "127.0.0.1:%d" % runner.grpc_port  # jobs go to the runner
            self.browser = Browser(self.out)
            self.job = "dash_pg"
            if not self.step("log in through the form", self.check_login):
                return False
            self.step("the studies list loads", self.check_empty_list)
            if not self.step("submit a tuning job", self.submit_job):
                return False
            self.step("the open pages show the new study and its new trials without a reload", self.check_live)
            if not self.step("the job finishes", self.wait_job_done):
                return False
            self.step("the studies list shows the study", self.check_list)
            self.step("trials tab: table, paging info, sorting", self.check_trials_tab)
            self.step("history: one point per finished trial with a value", self.check_history)
            self.step("trial page", self.check_trial_page)
            self.step("the job ran on the server it was submitted to", lambda: self.check_ran_on(runner))
        except Exception as e:  # setup: recorded as browser_test.py does
            self.failed.append(("setup", str(e)))
            print("FAIL setup\n  %s" % e, flush=True)
        finally:
            self.cleanup()
        return not self.failed

    def check_ran_on(self, runner):
        """The viewer showed another server's job: the runner's log names
        it, the viewer's does not."""
        for server, expected in ((runner, True), (self.a, False)):
            named = self.job in "".join(server.lines)
            check(named == expected, "%s's log %s job %s" % (
                server.name, "does not name" if expected else "names", self.job))


def new_database(tool, directory):
    """A database of the fixture's server: its URL, or None (skip)."""
    made = subprocess.run([tool, "database", directory, "dash_%d" % os.getpid()],
                          capture_output=True, text=True, timeout=60)
    if made.returncode == 0:
        return made.stdout.strip()
    print("no PostgreSQL server: %s" % made.stderr.strip())
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True, help="the hptune binary")
    parser.add_argument("--postgres-server", required=True, help="tests/testing's postgres_server")
    parser.add_argument("--postgres-dir", required=True, help="where the fixture's server listens")
    parser.add_argument("--out", required=True, help="where screenshots and server logs go")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    db = new_database(args.postgres_server, args.postgres_dir)
    if db is None:
        expected = "postgresql" in os.environ.get("HPTUNE_EXPECT", "").split(",")
        return 1 if expected else SKIPPED
    started = time.monotonic()
    test = PostgresDashboardTest(args.hptune, args.out, args.keep, db)
    return report(test, test.run(), started)


if __name__ == "__main__":
    sys.exit(main())

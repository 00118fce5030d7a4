#!/usr/bin/python3
"""The dashboard's write actions in a real headless Chromium, against a real
`hptune serve` and a real `hptune dashboard` (read-only) on its SQLite file.

    /usr/bin/python3 tests/dashboard/actions_browser_test.py --hptune BUILD/hptune --out OUTDIR

Uses browser_test.py's servers, browser and job (its trainer). Checks:

  - deleting a study whose job runs: the page's Delete study button, the
    dialog naming the study, and the server's refusal shown on the page
    (409, naming the job and its state); `hptune studies delete --server`
    is refused the same way; the study stays in the API and the file;
  - once the job is cancelled: a delete without the token is 401, with the
    session cookie but without (or with a wrong) X-Hptune-Csrf 403, and the
    study stays;
  - the delete dialog opens with the focus on Keep it: Enter deletes
    nothing; Delete study stays disabled until the study's name is typed;
  - deleting it from the page: the browser lands on the studies list, which
    no longer has it; the API answers 404 and the SQLite file has neither
    the study nor its trials;
  - `hptune dashboard` on the same file is read-only: no Delete button, and
    the delete API answers 403;
  - a note on the study page and on a trial page: written, saved, there
    after a reload, in the SQLite file with an audit row (the peer address,
    the client); a note holding <script> and <img onerror> is shown as text,
    nothing of it runs;
  - a manual tell: two trials asked for over gRPC through the Python
    package; from its page one is completed with the study's metric, the
    other marked infeasible with a reason, as the API then shows them; a
    job's running trial offers no form, and the API refuses it (409); the
    two, which ran at once, are on two ask/tell lanes of the timeline;
  - importance at 30 trials told over gRPC whose loss is noise: the page's
    note stays while the top parameter's interval overlaps the next one's,
    and names the parameters it cannot tell apart.

Screenshots go to OUTDIR/*.png (docs/images/dashboard-delete-*.png are
copies). Synchronisation is by polling conditions with deadlines.
"""

import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

from browser_test import (CHROMEDRIVER, CHROMIUM, Api, Browser, CheckFailed,  # noqa: E402
                          DashboardTest, check, submit, wait_for, report)


# The elements a note's Markdown may make (src/dashboard/web/markdown.js).
MARKDOWN_TAGS = {"p", "br", "h4", "h5", "h6", "ul", "ol", "li", "pre", "code", "strong", "em", "a", "blockquote"}

class ActionsTest(DashboardTest):
    def run(self):
        os.makedirs(self.out, exist_ok=True)
        for old in os.listdir(self.out):
            if old.endswith(".png"):
                os.remove(os.path.join(self.out, old))
        try:
            self.db = os.path.join(self.tmp, "a.db")
            self.a = self.start_server("server-a", [
                "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0",
                "--db", self.db, "--state-dir", os.path.join(self.tmp, "runs-a")])
            with open(os.path.join(self.env["HPTUNE_CONFIG_DIR"], "token")) as f:
                self.token = f.read().strip()
            self.api = Api(self.a.url, self.token)
            self.grpc = "127.0.0.1:%d" % self.a.grpc_port
            self.browser = Browser(self.out)
            self.job = "dash_delete"
            if not self.step("log in through the form", self.check_login):
                return False
            if not self.step("submit a long job", self.submit_running_job):
                return False
            self.step("a note on the study: saved, kept through a reload, shown as text", self.check_study_note)
            self.step("a note's Markdown: headings, lists, code, safe links only", self.check_markdown_note)
            self.step("a note on a trial, with its audit row in the file", self.check_trial_note)
            self.step("a manual tell: an asked trial completed from its page, another marked infeasible",
                      self.check_manual_tell)
            self.step("a job's trial is not told by hand", self.check_job_trial_not_told)
            self.step("importance at 30 trials: the note follows the overlapping intervals",
                      self.check_importance_overlap)
            self.step("deleting a study whose job runs is refused, on the page and by the CLI",
                      self.check_delete_refused_while_running)
            if not self.step("cancel the job", self.cancel_job):
                return False
            self.step("a delete without the token or the CSRF value is refused", self.check_delete_needs_token_and_csrf)
            self.step("delete the study from its page", self.check_delete_from_page)
            self.step("hptune dashboard is read-only: no Delete button, 403", self.check_read_only)
        except Exception as e:  # setup failed
            self.failed.append(("setup", str(e)))
            print("FAIL setup\n  %s" % e, flush=True)
        finally:
            self.cleanup()
        return not self.failed

    # ------------------------------------------------------------ helpers

    def delete_path(self, study):
        return "/api/studies/%s/delete" % urllib.parse.quote(study, safe="")

    def in_file(self, study):
        """(studies rows, trials rows) named `study` in the SQLite file."""
        db = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=30)
        try:
            studies = db.execute("SELECT count(*) FROM studies WHERE name = ?", (study,)).fetchone()[0]
            trials = db.execute("SELECT count(*) FROM trials WHERE study = ?", (study,)).fetchone()[0]
        finally:
            db.close()
        return studies, trials

    def note_in_file(self, study, trial):
        """(the note's text or None, its audit rows [(peer, client, bytes)])."""
        db = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True, timeout=30)
        try:
            row = db.execute("SELECT text FROM notes WHERE study = ? AND trial = ?", (study, trial)).fetchone()
            edits = db.execute("SELECT peer, client, bytes FROM note_edits WHERE study = ? AND trial = ? ORDER BY id",
                               (study, trial)).fetchall()
        finally:
            db.close()
        return (row[0] if row else None), edits

    def write_note(self, page, text, shot):
        b = self.open(page, "the page with the note")
        b.click("#note-edit")
        box = wait_for("the note's text box", lambda: b.visible("#note-input"))
        box.clear()
        box.send_keys(text)
        b.click("#note-save")
        shown = lambda: b.js("var e = document.getElementById('note-text'); return e && e.innerText")  # noqa: E731
        wait_for("the saved note on the page", lambda: shown() == text and not b.visible("#note-input"))
        check(not b.visible("#note-error"), "the page shows an error: %s" % b.text("#note-error"))
        b.shot(shot)
        self.open(page, "the page again")
        wait_for("the note after a reload", lambda: shown() == text)
        # Markdown's elements only: the note's own markup stays text
        tags = b.js("return Array.from(document.querySelectorAll('#note-text *'), (e) => e.tagName.toLowerCase())")
        check(set(tags) <= MARKDOWN_TAGS,
              "the note was rendered as HTML: %s" % b.js("return document.getElementById('note-text').innerHTML"))
        check(b.js("return window.__noteXss === undefined"), "the note's markup ran")
        check(b.visible("#note-meta") and "127.0.0.1:" in b.text("#note-meta"),
              "the note's audit line is missing: %r" % b.text("#note-meta"))
        b.console_errors("a note")

    def check_study_note(self):
        text = ("Plan: widen lr to 1e-5\n<script>window.__noteXss = 1</script>"
                "<img src=x onerror=\"window.__noteXss = 2\">")
        self.write_note("#/study/%s" % self.job, text, "note-study.png")
        stored, edits = self.note_in_file(self.job, 0)
        check(stored == text, "the file holds the note %r" % stored)
        check(len(edits) == 1 and edits[0][0].startswith("127.0.0.1:") and edits[0][1].startswith("session cookie")
              and edits[0][2] == len(text.encode()), "the note's audit rows: %r" % edits)
        api = self.api.get("/api/studies/%s/note" % self.job)
        check(api["text"] == text and api["edit_count"] == 1, "the API's note: %r" % api)

    def check_markdown_note(self):
        text = ("# Plan\n"
                "- **widen** lr to `1e-5`\n"
                "- see [the runbook](https://example.com/runbook) and [this](javascript:alert(1))\n"
                "\n"
                "```\nhptune run config.yaml\n```")
        b = self.open("#/study/%s" % self.job, "the study page")
        b.click("#note-edit")
        box = wait_for("the note's text box", lambda: b.visible("#note-input"))
        box.clear()
        box.send_keys(text)
        b.click("#note-save")
        wait_for("the Markdown note", lambda: b.js("return document.querySelector('#note-text h4') !== null"))
        got = b.js("""const v = document.getElementById('note-text');
            const all = (css) => Array.from(v.querySelectorAll(css), (e) => e.textContent);
            return {h4: all('h4'), li: all('li'), strong: all('strong'), code: all('code'), pre: all('pre'),
                    links: Array.from(v.querySelectorAll('a'), (a) => [a.textContent, a.getAttribute('href'), a.rel])};""")
        check(got["h4"] == ["Plan"] and len(got["li"]) == 2 and got["strong"] == ["widen"]
              and got["code"] == ["1e-5", "hptune run config.yaml"] and got["pre"] == ["hptune run config.yaml"],
              "the Markdown note's elements: %r" % got)
        check(got["links"] == [["the runbook", "https://example.com/runbook", "noopener noreferrer"]],
              "only the http(s) link is a link: %r" % got["links"])
        check("[this](javascript:alert(1))" in got["li"][1], "the javascript: link is not text: %r" % got["li"])
        b.shot("note-markdown.png")
        # notes as large as a note may be, built to defeat a naive parser:
        # 30,000 nested quotes, 8,000 unclosed links, 16,000 stars
        worst = b.js("""
            const render = window.hptune.markdown.render, out = [];
            for (const text of ['>'.repeat(30000), '[a]('.repeat(8000), '*a'.repeat(16000)]) {
              const t = performance.now();
              const n = render(text).length;
              out.push([n, performance.now() - t]);
            }
            return out;""")
        check(all(n >= 1 and ms < 1000 for n, ms in worst), "large notes rendered as (elements, ms): %r" % worst)
        b.console_errors("a Markdown note")

    def check_trial_note(self):
        text = "diverged at step 40 <b>not bold</b>"
        self.write_note("#/study/%s/trial/1" % self.job, text, "note-trial.png")
        stored, edits = self.note_in_file(self.job, 1)
        check(stored == text and len(edits) == 1, "the file holds the trial's note %r, audit %r" % (stored, edits))
        check(self.note_in_file(self.job, 0)[0] != text, "the trial's note overwrote the study's")

    def ask(self, study, count):
        """Creates `study` and asks for `count` trials over gRPC with the
        Python package (the venv of tests/python); their numbers."""
        script = (
            "import sys, hptune\n"
            "c = hptune.Client(sys.argv[1], token=sys.argv[2])\n"
            "s = c.create_study(sys.argv[3], {'goal': 'MINIMIZE', 'hyperparameterMetricTag': 'loss',\n"
            "    'maxTrials': 4, 'maxParallelTrials': 2, 'params': [{'parameterName': 'lr', 'type': 'DOUBLE',\n"
            "    'minValue': 0.001, 'maxValue': 0.1}]})\n"
            "print(' '.join(str(t.id) for t in s.suggest(int(sys.argv[4]))))\n")
        run = subprocess.run([self.python, "-c", script, self.grpc, self.token, study, str(count)],
                             env=self.env, capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, "asking over gRPC: exit %d\n%s" % (run.returncode, run.stderr))
        return [int(n) for n in run.stdout.split()]

    def check_manual_tell(self):
        study = "dash_ask"
        first, second = self.ask(study, 2)
        trial = lambda n: self.api.get("/api/studies/%s/trials/%d" % (study, n))  # noqa: E731
        check(trial(first)["state"] == "ACTIVE", "the asked trial is %s" % trial(first)["state"])
        b = self.open("#/study/%s/trial/%d" % (study, first), "the asked trial's page")
        box = wait_for("the result form", lambda: b.visible("#result-metric-loss"))
        box.send_keys("0.125")
        b.shot("tell-form.png")
        b.click("#result-complete")
        wait_for("the trial SUCCEEDED with loss 0.125",
                 lambda: (lambda t: t["state"] == "SUCCEEDED" and t["value"] == 0.125)(trial(first)))
        wait_for("the form to go once the trial ended", lambda: not b.visible("#trial-result"))
        check(not b.visible("#result-error"), "the page shows an error: %s" % b.text("#result-error"))
        b = self.open("#/study/%s/trial/%d" % (study, second), "the second asked trial's page")
        box = wait_for("the reason box", lambda: b.visible("#result-reason"))
        box.send_keys("ran out of memory")
        b.click("#result-infeasible")
        wait_for("the trial INFEASIBLE with the reason",
                 lambda: (lambda t: t["state"] == "INFEASIBLE" and t["reason"] == "ran out of memory")(trial(second)))
        b.console_errors("a manual tell")
        # The two asked trials ran at once: two lanes of their own, not one.
        b = self.open("#/study/%s?tab=timeline" % study, "the ask/tell study's timeline")
        d = wait_for("the timeline", lambda: b.debug("timeline"))
        asked = [n for n in d["lane_names"] if n.startswith("ask/tell")]
        check(asked == ["ask/tell 1", "ask/tell 2"] and d["bars"] == 2,
              "the asked trials' lanes: %s, %d bars" % (d["lane_names"], d["bars"]))

    def check_importance_overlap(self):
        """30 trials told over gRPC, their loss noise that no parameter
        explains: the server's trial count is met, yet the top parameter's
        interval overlaps the next one's, so the page still says the ranking
        is not reliable, and names the parameters it cannot tell apart."""
        study = "dash_noise"
        script = (
            "import random, sys, hptune\n"
            "c = hptune.Client(sys.argv[1], token=sys.argv[2])\n"
            "p = lambda n: {'parameterName': n, 'type': 'DOUBLE', 'minValue': 0.0, 'maxValue': 1.0}\n"
            "s = c.create_study(sys.argv[3], {'goal': 'MINIMIZE', 'hyperparameterMetricTag': 'loss',\n"
            "    'maxTrials': 30, 'maxParallelTrials': 30, 'algorithm': 'RANDOM_SEARCH',\n"
            "    'params': [p('a'), p('b'), p('c')]})\n"
            "rng = random.Random(3)\n"
            "for t in s.suggest(30):\n"
            "    t.complete({'loss': rng.random()})\n")
        run = subprocess.run([self.python, "-c", script, self.grpc, self.token, study],
                             env=self.env, capture_output=True, text=True, timeout=120)
        check(run.returncode == 0, "30 trials over gRPC: exit %d\n%s" % (run.returncode, run.stderr))
        imp = self.api.get("/api/studies/%s/importance" % study)
        ranked = imp["importances"]
        check(imp["trials"] == 30 and imp["note"] == "" and ranked[0]["lower"] <= ranked[1]["upper"],
              "the study should have 30 trials, no server note and overlapping intervals: %s" % imp)
        b = self.open("#/study/%s?tab=importance" % study, "the importance tab")
        note = wait_for("the note", lambda: b.visible("#importance-too-few") and b.text("#importance-too-few"))
        check("overlaps" in note and ranked[0]["param"] in note and ranked[1]["param"] in note,
              "the note does not name the overlapping intervals: %r" % note)
        indistinct = b.text("#importance-indistinct") or ""
        check(ranked[0]["param"] in indistinct and ranked[1]["param"] in indistinct,
              "the page does not say which parameters are not distinguishable: %r" % indistinct)
        b.shot("importance-overlap.png")
        b.console_errors("importance at 30 trials")

    def check_job_trial_not_told(self):
        b = self.open("#/study/%s/trial/1" % self.job, "the job's running trial")
        wait_for("the trial page", lambda: b.visible("#trial-title"))
        check(not b.visible("#trial-result"), "a job's trial offers the result form")
        status, _, body = self.api.request("POST", "/api/studies/%s/trials/1/complete" % self.job,
                                           body=json.dumps({"metrics": {"loss": 1.0}}).encode(),
                                           headers={"Content-Type": "application/json"})
        check(status == 409 and b"is run by job" in body, "telling a job's trial: %d %s" % (status, body[:200]))
        check(self.api.study(self.job)["counts"].get("ACTIVE", 0) >= 1, "the job's trial ended")

    def console_errors_but(self, b, where, expected):
        """Fails on a SEVERE console entry since the last call, but for
        one whose message contains `expected`, which must be there."""
        entries = b.driver.get_log("browser")
        b.console.extend((where, e) for e in entries)
        severe = [e.get("message", "") for e in entries if e.get("level") == "SEVERE"]
        check(any(expected in m for m in severe), "%s: the console lacks %r: %s" % (where, expected, severe))
        others = [m for m in severe if expected not in m]
        check(not others, "%s: the browser console has errors:\n  %s" % (where, "\n  ".join(others)))

    def study_status(self, study):
        status, _, _ = self.api.request("GET", "/api/studies/" + urllib.parse.quote(study, safe=""))
        return status

    # ------------------------------------------------------------ checks

    def submit_running_job(self):
        config = self.config("long", ["--steps=100000", "--step_seconds=0.3"], 4, 1)
        submit(self.hptune, self.env, self.grpc, self.job, config)
        wait_for("the job to run a trial", lambda: (lambda s: s["job"] and s["job"]["state"] == "RUNNING"
                                                    and s["counts"].get("ACTIVE", 0) >= 1)(self.api.study(self.job)),
                 interval=0.25)

    def check_delete_refused_while_running(self):
        b = self.open("#/study/%s" % self.job, "the running job's page")
        b.click("#delete-study")
        wait_for("the delete dialog", lambda: b.visible("#delete-dialog"))
        text = b.text("#delete-text")
        check(self.job in text, "the dialog does not name the study: %r" % text)
        check(self.in_file(self.job)[0] == 1, "the dialog alone deleted the study")
        self.confirm_delete(b)
        error = wait_for("the refusal on the page",
                         lambda: b.visible("#delete-error") and b.text("#delete-error"))
        check("409" in error and '"%s"' % self.job in error and "RUNNING" in error,
              "the page's error does not say 409, the job and its state: %r" % error)
        check(not b.visible("#delete-dialog"), "the dialog is still open")
        b.shot("delete-refused.png")
        check(self.study_status(self.job) == 200, "the API no longer has the study")
        check(self.in_file(self.job)[0] == 1, "the refused delete removed the study from the file")
        cli = subprocess.run([self.hptune, "studies", "delete", self.job, "--server", self.grpc],
                             env=self.env, capture_output=True, text=True, timeout=60)
        check(cli.returncode != 0 and "RUNNING" in cli.stderr and "cancel the job first" in cli.stderr,
              "hptune studies delete --server on a running job: exit %d, %r" % (cli.returncode, cli.stderr))
        check(self.in_file(self.job)[0] == 1, "the CLI's refused delete removed the study")
        # The browser logs every answer of 400 or more; the 409 is expected.
        self.console_errors_but(b, "a refused delete", "/delete - Failed to load resource: the server responded "
                                "with a status of 409")

    def cancel_job(self):
        status, _, body = self.api.request("POST", "/api/jobs/%s/cancel" % self.job, body=b"{}",
                                           headers={"Content-Type": "application/json"})
        check(status == 200, "cancel: %d %s" % (status, body[:200]))
        wait_for("the job to end CANCELLED", lambda: self.api.study(self.job)["job"]["state"] == "CANCELLED",
                 interval=0.25)

    def check_delete_needs_token_and_csrf(self):
        anonymous = Api(self.a.url)
        path = self.delete_path(self.job)
        status, _, body = anonymous.request("POST", path, body=b"{}", headers={"Content-Type": "application/json"})
        check(status == 401, "delete without a token: expected 401, got %d %s" % (status, body[:200]))
        status, headers, _ = anonymous.request(
            "POST", "/login", body=urllib.parse.urlencode({"token": self.token}).encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"})
        cookie = (headers.get("Set-Cookie") or "").split(";")[0]
        check(status == 303 and cookie, "POST /login: %d, cookie %r" % (status, cookie))
        for csrf in (None, "not-the-csrf-value"):
            h = {"Cookie": cookie, "Content-Type": "application/json"}
            if csrf:
                h["X-Hptune-Csrf"] = csrf
            status, _, body = anonymous.request("POST", path, body=b"{}", headers=h)
            check(status == 403 and b"X-Hptune-Csrf" in body,
                  "delete with the cookie and CSRF %r: expected 403, got %d %s" % (csrf, status, body[:200]))
        check(self.study_status(self.job) == 200, "a refused delete removed the study from the API")
        check(self.in_file(self.job)[0] == 1, "a refused delete removed the study from the file")

    def check_delete_from_page(self):
        check(self.in_file(self.job)[1] > 0, "the study has no trials in the file to delete")
        b = self.open("#/study/%s" % self.job, "the cancelled job's page")
        check(not b.visible("#delete-error"), "an old error is shown")
        b.click("#delete-study")
        wait_for("the delete dialog", lambda: b.visible("#delete-dialog"))
        self.check_enter_keeps_study(b)
        b.click("#delete-study")
        wait_for("the delete dialog", lambda: b.visible("#delete-dialog"))
        self.confirm_delete(b, shot="delete-dialog.png")
        wait_for("the studies list after the delete",
                 lambda: b.js("return location.hash") in ("", "#/") and b.debug("studies") is not None
                 and self.job not in b.debug("studies")["names"])
        check(not b.finds("#studies-table tr[data-study=%s]" % self.job), "the list still has a row for the study")
        b.shot("delete-done.png")
        check(self.study_status(self.job) == 404, "the API still has the deleted study")
        check(self.in_file(self.job) == (0, 0), "the file still has the study or its trials: %s" % (self.in_file(self.job),))
        b.console_errors("deleting a study")

    def check_enter_keeps_study(self, b):
        """A fresh dialog has the focus on Keep it: Enter closes it and
        deletes nothing (once closed, a delete Enter had sent is done)."""
        focused = b.js("return document.activeElement && document.activeElement.id")
        check(focused == "delete-dismiss", "the delete dialog opens with the focus on %r, not Keep it" % focused)
        ActionChains(b.driver).send_keys(Keys.ENTER).perform()
        wait_for("Enter to close the dialog", lambda: not b.visible("#delete-dialog"))
        check(self.study_status(self.job) == 200, "Enter on a fresh delete dialog deleted the study")
        check(self.in_file(self.job)[0] == 1, "Enter on a fresh delete dialog removed the study from the file")

    def confirm_delete(self, b, shot=None):
        """Types the study's name in the open dialog and confirms: the
        button stays disabled, and Enter does nothing, until the name is
        typed exactly."""
        box = b.find("#delete-name")
        box.send_keys(self.job[:-1], Keys.ENTER)
        check(b.visible("#delete-dialog"), "Enter with a part of the name closed the dialog")
        check(b.js("return document.getElementById('delete-confirm').disabled"),
              "Delete study is enabled before the whole name is typed")
        box.send_keys(self.job[-1])
        check(not b.js("return document.getElementById('delete-confirm').disabled"),
              "Delete study is still disabled with the name typed")
        if shot:
            b.shot(shot)
        b.click("#delete-confirm")

    def check_read_only(self):
        # A second study to look at: the read-only dashboard must keep it.
        config = self.config("short", ["--steps=2", "--step_seconds=0.01"], 1, 1)
        submit(self.hptune, self.env, self.grpc, "dash_kept", config)
        wait_for("the short job to end", lambda: (lambda s: s["job"] and s["job"]["state"] == "SUCCEEDED")(
            self.api.study("dash_kept")), interval=0.25)
        proc = subprocess.Popen([self.hptune, "dashboard", "--db", self.db, "--http", "127.0.0.1:0"], env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        try:
            printed = []
            m = None
            while m is None:
                line = proc.stdout.readline()  # ends at the process's exit
                check(line, "hptune dashboard exited printing %r" % printed)
                printed.append(line)
                m = re.search(r"hptune dashboard: (http://\S+?)/? ", line)
            ro = Api(m.group(1), self.token)
            check(ro.get("/api/session")["read_only"] is True, "hptune dashboard's session is not read_only")
            status, _, body = ro.request("POST", self.delete_path("dash_kept"), body=b"{}",
                                         headers={"Content-Type": "application/json"})
            check(status == 403 and b"read-only" in body, "read-only delete: expected 403, got %d %s" % (status, body[:200]))
            check(self.in_file("dash_kept")[0] == 1, "the read-only dashboard deleted the study")
            b = self.browser
            b.driver.get(m.group(1) + "/login?token=" + urllib.parse.quote(self.token))
            b.driver.get(m.group(1) + "/#/study/dash_kept")
            wait_for("the read-only study page", lambda: b.visible("#study-name") and b.visible("#readonly"))
            check(not b.finds("#delete-study"), "the read-only page has a Delete study button")
        finally:
            proc.terminate()
            proc.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hptune", required=True, help="the hptune binary")
    parser.add_argument("--out", required=True, help="where screenshots and server logs go")
    parser.add_argument("--python", required=True, help="a Python with the hptune package (tests/python's venv)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    for path in (args.hptune, args.python, CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            print("FAIL: %s is not an executable" % path)
            return 2
    started = time.monotonic()
    test = ActionsTest(args.hptune, args.out, args.keep)
    test.python = args.python
    return report(test, test.run(), started)


if __name__ == "__main__":
    sys.exit(main())

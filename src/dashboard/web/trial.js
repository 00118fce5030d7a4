// hptune dashboard: one trial (parameters, measurements, events, live logs,
// its note, and telling an ask/tell trial's result).
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const app = () => window.hptune.app;

  const LOG_TAIL = 256 * 1024;          // a long log opens at its last 256 KiB
  const LOG_KEEP = 2 * 1024 * 1024;     // and keeps at most 2 MiB on the page
  const RUNNING = new Set(['ACTIVE', 'STOPPING', 'REQUESTED']);

  function kvTable(id, rows) {
    return el('table', {class: 'table kv', id, data: {testid: id}},
              el('tbody', null, rows.map(([k, v]) => el('tr', null, el('th', null, k), el('td', null, v)))));
  }

  class TrialPage {
    constructor(route) {
      this.study = route.study;
      this.number = route.trial;
      this.base = A.studyPath(this.study) + '/trials/' + route.trial;
      this.destroyed = false;
      this.studyDetail = null;
      this.detail = null;
      this.log = {replica: null, offset: 0, text: '', busy: false};
      app().setCrumbs([{text: 'Studies', href: '#/'}, {text: this.study, href: app().studyHref(this.study)},
                       {text: 'Trial ' + this.number}]);
      this.header = el('section', {class: 'card study-header', id: 'trial-header', data: {testid: 'trial-header'}},
                       el('div', {class: 'panel-status', text: 'Loading trial…'}));
      this.paramsBox = el('div');
      this.finalBox = el('div');
      this.curveChart = el('div', {class: 'chart', id: 'chart-trial-curve', data: {testid: 'chart-trial-curve'},
                                   style: {height: '300px'}});
      this.measBox = el('div', {class: 'scroll-box'});
      this.measTitle = el('h3', {text: 'Intermediate measurements'});
      this.eventsBox = el('div', {class: 'scroll-box small-box'});
      this.replicaTabs = el('div', {class: 'replica-tabs', id: 'replica-tabs', data: {testid: 'replica-tabs'}});
      this.logInfo = el('span', {class: 'muted small', id: 'log-info'});
      this.logPre = el('pre', {class: 'log', id: 'trial-log', data: {testid: 'trial-log'}});
      this.note = new window.hptune.NoteEditor(this.base + '/note', 'trial');
      this.result = new window.hptune.TrialResult(this.base, () => this.refresher.trigger());
      this.el = el('div', {class: 'page page-trial'}, this.header, this.result.el, this.note.el,
          el('div', {class: 'two-col'},
              el('section', {class: 'card'}, el('h3', {text: 'Parameters'}), this.paramsBox,
                 el('h3', {text: 'Final measurement'}), this.finalBox),
              el('section', {class: 'card'}, el('h3', {text: 'Learning curve'}), this.curveChart)),
          el('div', {class: 'two-col'},
              el('section', {class: 'card'}, this.measTitle, this.measBox),
              el('section', {class: 'card'}, el('h3', {text: 'Events'}), this.eventsBox)),
          el('section', {class: 'card'},
              el('div', {class: 'toolbar'}, el('h3', {text: 'Logs'}), this.replicaTabs, el('span', {class: 'spacer'}), this.logInfo),
              this.logPre));
      this.refresher = new U.Coalescer(() => this.refresh(), 500);
      this.unsubscribe = A.onChange((ev) => {
        const named = (ev.trials || []).some((t) => t.study === this.study && t.trial === this.number);
        if (named || (!ev.trials && (ev.studies || []).includes(this.study))) this.refresher.trigger();
      });
      this.poll = setInterval(() => {
        if (this.detail && RUNNING.has(this.detail.state)) this.refresher.trigger();
      }, 2000);
      this.start();
    }

    async start() {
      try {
        const [study, detail] = await Promise.all([
          A.get(A.studyPath(this.study), null, {label: 'study'}), A.get(this.base, null, {label: 'trial'})]);
        if (this.destroyed) return;
        this.studyDetail = study;
        this.detail = detail;
        this.session = await A.session();
        this.render();
        await Promise.all([this.note.load(), this.followLog()]);
      } catch (e) {
        if (e instanceof A.ApiError) {
          U.replace(this.header, el('div', {class: 'error-box', id: 'trial-error'},
              el('strong', {text: e.status === 404 ? 'No such trial. ' : 'Cannot load the trial. '}), e.message));
        }
        A.report(e);
      }
    }

    async refresh() {
      if (this.destroyed || !this.detail) return;
      const detail = await A.get(this.base, null, {quiet: true});
      if (this.destroyed) return;
      this.detail = detail;
      this.render();
      await this.followLog();
    }

    update() {}
    destroy() {
      this.destroyed = true;
      this.refresher.stop();
      this.unsubscribe();
      clearInterval(this.poll);
    }

    render() {
      const t = this.detail, s = this.studyDetail;
      this.result.render(s, t, this.session);
      const metric = s.metric;
      const start = U.parseTime(t.start_time), end = U.parseTime(t.end_time);
      const ms = t.measurements || [];
      const lastStep = t.last_step !== undefined && t.last_step !== null ? t.last_step :
          (ms.length ? ms[ms.length - 1].step : null);
      const isBest = s.best && s.best.trial === t.number;
      U.replace(this.header,
          el('div', {class: 'title-row'},
              el('h1', {id: 'trial-title', text: `Trial ${t.number}`}), U.badge(t.state),
              t.stopped_early ? el('span', {class: 'chip chip-warn', text: 'stopped early'}) : null,
              isBest ? el('span', {class: 'chip chip-ok', text: 'best trial'}) : null,
              el('span', {class: 'spacer'}),
              el('a', {class: 'btn btn-small', href: app().studyHref(this.study), text: '‹ ' + this.study}),
              t.number > 1 ? el('a', {class: 'btn btn-small', href: app().trialHref(this.study, t.number - 1), id: 'prev-trial', text: '‹ trial ' + (t.number - 1)}) : null,
              t.number < ((s.counts && s.counts.total) || 0) ? el('a', {class: 'btn btn-small', href: app().trialHref(this.study, t.number + 1), id: 'next-trial', text: 'trial ' + (t.number + 1) + ' ›'}) : null),
          el('div', {class: 'facts'},
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: metric}),
                 el('div', {class: 'fact-value'}, t.value === null ? el('span', {class: 'muted', text: '—'}) : U.num(t.value, 'strong big'))),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Last step'}), el('div', {class: 'fact-value', text: lastStep === null ? '—' : String(lastStep)})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Attempt · slot'}), el('div', {class: 'fact-value', id: 'trial-attempt',
                 text: `${t.attempt} · ${t.slot === null || t.slot === undefined ? 'no slot' : 'slot ' + t.slot}`})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Started'}), el('div', {class: 'fact-value', text: U.fmtTime(t.start_time)})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Ended'}), el('div', {class: 'fact-value', text: t.end_time ? U.fmtTime(t.end_time) : (start ? 'running' : '—')})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Duration'}), el('div', {class: 'fact-value', text: start === null ? '—' : U.fmtDuration((end || Date.now()) - start)})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Client'}), el('div', {class: 'fact-value mono', text: t.client_id || '—'}))),
          t.reason ? el('div', {class: t.state === 'FAILED' || t.state === 'INFEASIBLE' ? 'error-box' : 'note', id: 'trial-reason', text: t.reason}) : null);

      const spec = new Map((s.params || []).map((p) => [p.name, p]));
      // In the search space's order, then any other.
      const names = (s.params || []).map((p) => p.name).filter((n) => t.params && n in t.params)
          .concat(Object.keys(t.params || {}).filter((n) => !spec.has(n)));
      U.replace(this.paramsBox, kvTable('trial-params', names.map((k) => [k, t.params[k]]).map(([k, v]) => [
        el('span', {title: spec.has(k) ? spec.get(k).type + (spec.get(k).scale === 'UNIT_LOG_SCALE' ? ', log scale' : '') : '', text: k}),
        typeof v === 'number' ? U.num(v) : el('span', {class: 'cat', text: String(v)})])));
      const fm = t.final_measurement;
      U.replace(this.finalBox, fm ? kvTable('trial-final', [['step', String(fm.step)]].concat(
          Object.entries(fm.metrics || {}).map(([k, v]) => [k === metric ? el('strong', {text: k}) : k, U.num(v)])))
          : el('p', {class: 'muted', id: 'trial-final', text: RUNNING.has(t.state) ? 'Running: no final measurement yet.' : 'None.'}));

      // measurements
      const metricNames = [];
      for (const m of ms) for (const k of Object.keys(m.metrics || {})) if (!metricNames.includes(k)) metricNames.push(k);
      metricNames.sort((a, b) => (a === metric ? -1 : b === metric ? 1 : a.localeCompare(b)));
      const shown = ms.slice(-1000);
      this.measTitle.textContent = `Intermediate measurements (${ms.length})`;
      const atBottom = this.measBox.scrollHeight - this.measBox.scrollTop - this.measBox.clientHeight < 4;
      U.replace(this.measBox, ms.length ? el('table', {class: 'table compact', id: 'trial-measurements', data: {testid: 'trial-measurements'}},
          el('thead', null, el('tr', null, el('th', {class: 'right', text: 'step'}), el('th', {text: 'time'}),
                                el('th', {class: 'right', text: 'attempt'}), metricNames.map((n) => el('th', {class: 'right', text: n})))),
          el('tbody', null, shown.map((m) => el('tr', null, el('td', {class: 'right', text: String(m.step)}),
              el('td', {class: 'muted nowrap', text: U.fmtTime(m.time)}), el('td', {class: 'right muted', text: String(m.attempt)}),
              metricNames.map((n) => el('td', {class: 'right'}, m.metrics && n in m.metrics ? U.num(m.metrics[n]) : '')))))) :
          el('p', {class: 'muted', id: 'trial-measurements', text: 'No measurements yet.'}));
      if (ms.length > shown.length) this.measBox.prepend(el('p', {class: 'muted small', text: `the last ${shown.length} of ${ms.length}`}));
      if (atBottom && RUNNING.has(t.state)) this.measBox.scrollTop = this.measBox.scrollHeight;

      // events
      const events = t.events || [];
      U.replace(this.eventsBox, events.length ? el('ul', {class: 'events', id: 'trial-events', data: {testid: 'trial-events'}},
          events.map((e) => el('li', null, el('span', {class: 'muted mono nowrap', text: U.fmtTime(e.time)}), ' ',
                                 el('span', {text: e.detail})))) :
          el('p', {class: 'muted', id: 'trial-events', text: 'No events.'}));

      // curve
      let chart = P.get('trial-curve');
      if (!chart) chart = P.init('trial-curve', this.curveChart);
      const stopStep = t.stopped_early ? lastStep : null;
      const r = P.trialCurve(ms, metric, stopStep);
      this.curveChart.dataset.file = `${this.study}-trial-${t.number}`;
      chart.setOption(P.interactive('trial-curve', r.option, chart), {notMerge: true});
      P.setDebug('trial', {number: t.number, state: t.state, measurements: ms.length, curve_points: r.debug.points,
                           logs: (t.logs || []).map((l) => l.replica), events: events.length});

      // replica tabs
      const logs = t.logs || [];
      if (!this.log.replica && logs.length) {
        this.log.replica = (logs.find((l) => l.replica === 'master-0' || l.replica === 'chief-0') || logs[0]).replica;
      }
      U.replace(this.replicaTabs, logs.map((l) => el('button', {type: 'button', class: 'tab-btn' + (l.replica === this.log.replica ? ' active' : ''),
                                                                data: {replica: l.replica, testid: 'replica-' + l.replica},
                                                                title: U.fmtBytes(l.size || 0), text: l.replica,
                                                                on: {click: () => this.selectReplica(l.replica)}})));
      if (!logs.length) {
        this.logPre.textContent = '';
        this.logInfo.textContent = 'No replica logs (not started yet, or the state directory is not visible to this server).';
      }
    }

    selectReplica(name) {
      if (name === this.log.replica) return;
      this.log = {replica: name, offset: 0, text: '', busy: false, gen: (this.log.gen || 0) + 1};
      this.logPre.textContent = '';
      for (const b of this.replicaTabs.querySelectorAll('.tab-btn')) b.classList.toggle('active', b.dataset.replica === name);
      this.followLog().catch(A.report);
    }

    async followLog() {
      const log = this.log;
      if (!log.replica || log.busy || this.destroyed) return;
      log.busy = true;
      try {
        const entry = (this.detail.logs || []).find((l) => l.replica === log.replica);
        if (log.offset === 0 && !log.text && entry && entry.size > LOG_TAIL * 2) {
          log.offset = entry.size - LOG_TAIL;
          log.skipped = log.offset;
        }
        for (let i = 0; i < 64; i++) {
          const chunk = await A.get(this.base + '/log', {replica: log.replica, offset: log.offset}, {quiet: true});
          if (this.destroyed || this.log !== log) return;
          if (chunk.text) this.appendLog(chunk.text, log);
          const advanced = chunk.next_offset > log.offset;
          log.offset = chunk.next_offset;
          log.size = chunk.size;
          if (!advanced || chunk.next_offset >= chunk.size) break;
        }
        const running = RUNNING.has(this.detail.state);
        this.logInfo.textContent = `${log.replica}: ${U.fmtBytes(log.size || 0)}` +
            (log.skipped ? ` (the first ${U.fmtBytes(log.skipped)} not shown)` : '') +
            (running ? ' · following' : '');
        this.logInfo.classList.toggle('following', running);
        P.setDebug('log', {replica: log.replica, offset: log.offset, size: log.size, chars: this.logPre.textContent.length});
      } catch (e) {
        if (e instanceof A.ApiError && e.status === 404) {
          this.logInfo.textContent = `${log.replica}: no log yet`;
        } else {
          throw e;
        }
      } finally {
        log.busy = false;
      }
    }

    appendLog(text, log) {
      const pre = this.logPre;
      const atBottom = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
      log.text += text;
      if (log.text.length > LOG_KEEP) {
        log.skipped = (log.skipped || 0) + (log.text.length - LOG_KEEP);
        log.text = log.text.slice(log.text.length - LOG_KEEP);
        pre.textContent = log.text;
      } else {
        pre.appendChild(document.createTextNode(text));
      }
      if (atBottom) pre.scrollTop = pre.scrollHeight;
    }
  }

  window.hptune.TrialPage = TrialPage;
})();

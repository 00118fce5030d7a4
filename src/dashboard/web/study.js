// hptune dashboard: the study page (header, cancel, delete, note, one tab per view).
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  // Conditional parameters are judged over the trials where they are active.
  const conditionalNote = (list) => {
    const parts = list.filter((x) => x.active_trials !== undefined).map((x) => `${x.param} (${x.active_trials})`);
    return parts.length ? ` Conditional parameters, judged over the trials where they are active: ${parts.join(', ')}.` : '';
  };
  const app = () => window.hptune.app;

  const TABS = [
    ['trials', 'Trials'], ['history', 'History'], ['edf', 'EDF'], ['rank', 'Rank'], ['pareto', 'Pareto front'], ['parcoords', 'Parallel coordinates'], ['slice', 'Slice'],
    ['contour', 'Contour'], ['curves', 'Learning curves'], ['importance', 'Importance'],
    ['timeline', 'Timeline'], ['config', 'Config'],
  ];
  const TRIAL_STATES = ['REQUESTED', 'ACTIVE', 'STOPPING', 'SUCCEEDED', 'INFEASIBLE', 'FAILED', 'CANCELLED'];
  // Which fetched documents each tab shows.
  const TAB_DATA = {
    trials: ['trials'], history: ['history'], edf: ['edf'], rank: ['rank'], pareto: ['pareto'], parcoords: ['points'], slice: ['points'],
    contour: ['points', 'importance'], curves: ['curves'], importance: ['importance'],
    timeline: ['timeline'], config: [],
  };

  function fact(label, ...value) {
    return el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: label}),
              el('div', {class: 'fact-value'}, ...value));
  }

  // What early stopping saved (StudySummary's early_stopping_savings, an
  // estimate the server computes): the share of steps, then the steps and
  // the replica and GPU time; the whole sentence on hover.
  function savingsFact(s) {
    if (!s) return null;
    const seconds = (x, what) => (x === null ? null : `${U.fmtDuration(x * 1000)} ${what}`);
    const known = s.steps_saved !== null;
    const parts = known ? [`${Math.round(s.steps_saved)} steps`,
                           s.replica_seconds_saved !== null ? seconds(s.replica_seconds_saved, 'replica time')
                                                            : seconds(s.trial_seconds_saved, 'trial time'),
                           seconds(s.gpu_seconds_saved, 'GPU time')].filter((p) => p !== null)
                        : ['no trial ran to its end'];
    return el('div', {class: 'fact', id: 'stopping-savings', title: s.summary},
              el('div', {class: 'fact-label', text: 'Saved by stopping'}),
              el('div', {class: 'fact-value'},
                 known ? el('span', {class: 'strong', text: `${Math.round((s.share_saved || 0) * 100)}% of steps`})
                       : el('span', {class: 'muted', text: 'unknown'})),
              el('div', {class: 'fact-sub', text: `${s.trials_stopped} stopped · ${parts.join(' · ')} (estimate)`}));
  }

  class StudyPage {
    constructor(route) {
      this.study = route.study;
      this.tab = TABS.some(([k]) => k === route.tab) ? route.tab : 'trials';
      this.base = A.studyPath(this.study);
      this.detail = null;
      this.session = null;
      this.data = {};          // document name -> last fetched JSON
      this.loaded = {};        // tab -> rendered at least once
      this.stale = {};         // tab -> needs a refetch when shown
      this.panels = {};
      this.destroyed = false;
      this.t = {offset: 0, limit: 50, sort: 'number', order: 'asc', states: new Set()};
      this.where = null;       // from the parallel coordinates' brush
      this.metricWhere = null; // {metric: [lo, hi]} from the metric filter
      this.hide = new Set(route.hide || []);  // hidden table columns (URL)
      this.curveSelect = 'best';
      this.curveN = 50;
      this.brush = {};         // parallel axis id -> intervals
      this.topPct = 100;
      this.histLog = false;
      this.curvesLog = false;
      this.contourPair = null;
      app().setCrumbs([{text: 'Studies', href: '#/'}, {text: this.study}]);

      this.header = el('section', {class: 'card study-header', id: 'study-header', data: {testid: 'study-header'}},
                       el('div', {class: 'panel-status', text: 'Loading study…'}));
      this.tabBar = el('nav', {class: 'tabs', role: 'tablist', id: 'study-tabs'});
      for (const [key, label] of TABS) {
        this.tabBar.appendChild(el('a', {class: 'tab', role: 'tab', href: app().studyHref(this.study, key, Array.from(this.hide)),
                                         id: 'tab-' + key, text: label, data: {tab: key, testid: 'tab-' + key}}));
      }
      this.panelBox = el('div', {class: 'panels'});
      // One button for the page's life: a header redrawn under the pointer
      // must not swallow a click on it.
      this.cancelBtn = el('button', {class: 'btn btn-danger', id: 'cancel-job', type: 'button',
                                     data: {testid: 'cancel-job'}, text: 'Cancel job',
                                     on: {click: () => this.openDialog()}});
      this.dialog = this.buildDialog();
      this.deleter = new window.hptune.StudyDelete(this.study, {
        busy: (on) => { this.deleting = on; },
        failed: (message) => {
          this.deleteError = message;
          this.renderHeader();
        },
      });
      this.note = new window.hptune.NoteEditor(this.base + '/note', 'study');
      this.el = el('div', {class: 'page page-study'}, this.header, this.note.el, this.tabBar, this.panelBox,
                   this.dialog, this.deleter.dialog);

      this.refresher = new U.Coalescer(() => this.refresh(), 500);
      this.unsubscribe = A.onChange((ev) => {
        if (!ev.studies || ev.studies.includes(this.study)) this.refresher.trigger();
      });
      this.start();
    }

    async start() {
      try {
        const [session, detail] = await Promise.all([A.session(), A.get(this.base, null, {label: 'study'})]);
        if (this.destroyed) return;
        this.session = session;
        this.detail = detail;
        // The Pareto front tab is for studies of several objectives.
        document.getElementById('tab-pareto').hidden = this.objectives().length < 2;
        this.renderHeader();
        this.showTab(this.tab);
        await this.note.load();
        // The importance takes the server a few hundred ms at 100,000
        // trials, and it keeps the answer until the study changes: asked
        // for now, the contour and importance tabs find it ready.
        if (!TAB_DATA[this.tab].includes('importance')) {
          A.get(this.base + '/importance', null, {quiet: true}).catch(() => {});
        }
      } catch (e) {
        if (e instanceof A.ApiError) {
          U.replace(this.header, el('div', {class: 'error-box', id: 'study-error'},
              el('strong', {text: e.status === 404 ? 'No such study. ' : 'Cannot load the study. '}), e.message));
        }
        A.report(e);
      }
    }

    update(route) {
      if (route.tab && route.tab !== this.tab && TABS.some(([k]) => k === route.tab)) this.showTab(route.tab);
    }

    destroy() {
      this.destroyed = true;
      this.refresher.stop();
      this.unsubscribe();
      this.deleter.close();
    }

    // ---- live refresh: the header and the visible tab; the others later.
    async refresh() {
      if (this.destroyed || !this.detail || this.deleting) return;
      for (const [key] of TABS) if (key !== this.tab) this.stale[key] = true;
      const detail = await A.get(this.base, null, {quiet: true});
      if (this.destroyed) return;
      this.detail = detail;
      this.renderHeader();
      await this.loadTab(this.tab, true);
    }

    // ---- header
    renderHeader() {
      const d = this.detail;
      // Events arrive for every measurement; redraw only what changed.
      const signature = JSON.stringify([d, this.cancelError || null, this.deleteError || null,
                                        !!(this.session && this.session.read_only)]);
      if (signature === this.headerSignature) return;
      this.headerSignature = signature;
      const counts = d.counts || {};
      const job = d.job;
      const cancellable = job && !U.TERMINAL_JOB_STATES.has(job.state) && job.state !== 'CANCELLING' &&
          !(this.session && this.session.read_only);
      const countChips = [];
      for (const s of ['ACTIVE', 'STOPPING', 'REQUESTED', 'SUCCEEDED', 'INFEASIBLE', 'FAILED']) {
        if (counts[s]) countChips.push(el('span', {class: 'count-chip state-' + s, data: {state: s}, title: `${counts[s]} ${s}`},
            el('span', {class: 'count-n', text: String(counts[s])}), ' ' + s.toLowerCase()));
      }
      const cancelBtn = cancellable ? this.cancelBtn : null;
      // Shown while the job runs too: the server's refusal says to cancel first.
      const deleteBtn = this.session && !this.session.read_only ? this.deleter.button : null;
      const objectives = this.objectives();
      const several = objectives.length > 1;
      U.replace(this.header,
          el('div', {class: 'title-row'},
              el('h1', {id: 'study-name', text: d.name}), U.badge(d.state, d.reason || null),
              d.reason ? el('span', {class: 'muted small', text: d.reason}) : null,
              el('span', {class: 'spacer'}),
              el('span', {class: 'muted small', text: 'created ' + U.fmtTime(d.create_time)}), cancelBtn, deleteBtn),
          el('div', {class: 'facts'},
              several ? fact('Objectives', ...objectives.map((m, i) => [i ? ', ' : '', el('span', {class: 'strong', text: m.metric}),
                                                                        ' ' + (m.goal === 'MAXIMIZE' ? '↑' : '↓')]))
                      : fact('Objective', el('span', {class: 'strong', text: d.metric}), ' ',
                             el('span', {class: 'goal', text: d.goal === 'MAXIMIZE' ? '↑ maximize' : '↓ minimize'})),
              several ? fact('Optimal', el('a', {href: app().studyHref(d.name, 'pareto'), id: 'pareto-link', text: 'the Pareto front'}))
                      : fact('Best', d.best ? [U.num(d.best.value, 'strong big'), ' ',
                                     el('a', {href: app().trialHref(d.name, d.best.trial), id: 'best-trial-link',
                                              text: `trial ${d.best.trial}`})] : el('span', {class: 'muted', text: 'none yet'})),
              fact('Progress', window.hptune.views.progressBar(d, 'study-progress'),
                   window.hptune.views.progressLegend(d.progress, 'study-progress-legend')),
              fact('Trials', countChips.length ? countChips : el('span', {class: 'muted', text: 'none yet'})),
              fact('Job', job ? [el('span', {class: 'mono', text: job.id}), ' ', el('span', {id: 'job-state'}, U.badge(job.state, job.error || null))]
                             : el('span', {class: 'muted', text: 'none (ask/tell study)'})),
              el('div', {class: 'fact'}, el('div', {class: 'fact-label', text: 'Algorithm'}),
                 el('div', {class: 'fact-value', text: d.algorithm || '—'}),
                 el('div', {class: 'fact-sub', text: `${d.max_parallel_trials} in parallel` +
                                                      (d.early_stopping ? ' · early stopping' : '')})),
              savingsFact(d.early_stopping_savings)),
          job && job.error ? el('div', {class: 'error-box', text: job.error}) : null,
          el('div', {class: 'error-box', id: 'cancel-error', hidden: true, data: {testid: 'cancel-error'}}),
          el('div', {class: 'error-box', id: 'delete-error', hidden: true, data: {testid: 'delete-error'}}));
      for (const [id, message] of [['#cancel-error', this.cancelError], ['#delete-error', this.deleteError]]) {
        if (!message) continue;
        const box = this.header.querySelector(id);
        box.textContent = message;
        box.hidden = false;
      }
    }

    buildDialog() {
      this.dialogText = el('p');
      this.confirmBtn = el('button', {class: 'btn btn-danger', type: 'button', id: 'cancel-confirm',
                                      data: {testid: 'cancel-confirm'}, text: 'Cancel job',
                                      on: {click: () => this.confirmCancel()}});
      const dismiss = el('button', {class: 'btn', type: 'button', id: 'cancel-dismiss', data: {testid: 'cancel-dismiss'},
                                    text: 'Keep running', on: {click: () => this.closeDialog()}});
      const box = el('div', {class: 'modal-backdrop', id: 'cancel-dialog', hidden: true, data: {testid: 'cancel-dialog'},
                             on: {click: (ev) => { if (ev.target === box) this.closeDialog(); }}},
          el('div', {class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'cancel-title'},
              el('h2', {id: 'cancel-title', text: 'Cancel this job?'}), this.dialogText,
              el('div', {class: 'modal-actions'}, dismiss, this.confirmBtn)));
      this.keyHandler = (ev) => { if (ev.key === 'Escape') this.closeDialog(); };
      return box;
    }
    openDialog() {
      const job = this.detail.job;
      U.replace(this.dialogText, 'Job ', el('strong', {class: 'mono', text: job.id}),
                ' stops: its running trials are terminated and it ends CANCELLED. Finished trials are kept.');
      this.confirmBtn.disabled = false;
      this.dialog.hidden = false;
      document.addEventListener('keydown', this.keyHandler);
      this.confirmBtn.focus();
    }
    closeDialog() {
      this.dialog.hidden = true;
      document.removeEventListener('keydown', this.keyHandler);
    }
    async confirmCancel() {
      const job = this.detail.job;
      this.confirmBtn.disabled = true;
      let res;
      try {
        res = await A.post('/api/jobs/' + encodeURIComponent(job.id) + '/cancel');
      } catch (e) {
        this.closeDialog();
        if (!(e instanceof A.AuthRedirect)) {
          this.cancelError = 'Cancel failed: ' + e.message;
          this.renderHeader();
        }
        return;
      }
      this.closeDialog();
      if (res.ok) {
        this.cancelError = null;
        app().toast(`job ${job.id}: ${(res.body && res.body.state) || 'CANCELLING'}`);
        if (this.detail.job) this.detail.job.state = (res.body && res.body.state) || 'CANCELLING';
        this.renderHeader();
        this.refresher.trigger();
      } else {
        this.cancelError = `Cancel failed (${res.status}): ${res.error}`;
        this.renderHeader();
      }
    }

    // ---- tabs
    showTab(key) {
      this.tab = key;
      for (const a of this.tabBar.querySelectorAll('.tab')) {
        const on = a.dataset.tab === key;
        a.classList.toggle('active', on);
        a.setAttribute('aria-selected', on ? 'true' : 'false');
      }
      for (const [k, panel] of Object.entries(this.panels)) panel.hidden = k !== key;
      if (!this.panels[key]) {
        const panel = el('section', {class: 'panel card', id: 'panel-' + key, role: 'tabpanel', data: {testid: 'panel-' + key}});
        this.panels[key] = panel;
        this.panelBox.appendChild(panel);
        this['build_' + key](panel);
      }
      if (!this.detail) return;
      if (!this.loaded[key] || this.stale[key]) {
        this.loadTab(key, this.loaded[key]).catch(A.report);
      } else {
        // A chart drawn while its panel was hidden has the wrong size.
        requestAnimationFrame(() => P.resizeVisible());
      }
    }

    async fetchDoc(name, quiet, onProgress) {
      const q = {
        trials: () => this.trialsQuery(true),
        history: () => ({}), edf: () => ({}), rank: () => ({}), pareto: () => ({}), points: () => ({}), curves: () => this.curvesQuery(), importance: () => ({}), timeline: () => ({}),
      }[name]();
      const doc = await A.get(this.base + '/' + name, q, {label: name, quiet, onProgress});
      this.data[name] = doc;
      return doc;
    }

    // Fetches what a tab shows and renders it. quiet: a live refresh (no
    // loading note, keep what is shown until the new data is there).
    async loadTab(key, quiet) {
      const panel = this.panels[key];
      if (!panel) return;
      const status = panel.querySelector('.panel-status');
      const names = TAB_DATA[key];
      this.stale[key] = false;
      if (!quiet && status && names.length) {
        status.hidden = false;
        status.classList.remove('error');
        status.textContent = `Loading ${names.join(' and ')}…`;
      }
      try {
        await Promise.all(names.map((n) => this.fetchDoc(n, quiet, (bytes) => {
          if (!quiet && status) status.textContent = `Loading ${n}… ${U.fmtBytes(bytes)} received`;
        })));
      } catch (e) {
        if (status && e instanceof A.ApiError) {
          status.hidden = false;
          status.classList.add('error');
          status.textContent = 'Cannot load: ' + e.message;
        }
        this.stale[key] = true;
        throw e;
      }
      if (this.destroyed) return;
      if (status) status.hidden = true;
      this.loaded[key] = true;
      if (this.panels[key].hidden) { this.stale[key] = true; return; }
      this['render_' + key](panel);
    }

    chartBox(id, height) {
      return el('div', {class: 'chart', id: 'chart-' + id, data: {testid: 'chart-' + id}, style: {height: height + 'px'}});
    }

    drawChart(name, box, result, height) {
      if (height) box.style.height = height + 'px';
      let chart = P.get(name);
      if (!chart || chart.getDom() !== box) chart = P.init(name, box);
      else chart.resize();
      chart.setOption(result.option, {notMerge: true, lazyUpdate: false});
      P.setDebug(name, result.debug);
      return chart;
    }

    // ---- Trials
    trialsQuery(withPaging) {
      const q = {sort: this.t.sort, order: this.t.order};
      if (withPaging) { q.offset = this.t.offset; q.limit = this.t.limit; }
      if (this.t.states.size) q.states = Array.from(this.t.states).join(',');
      const where = Object.assign({}, this.where || {});
      if (this.metricWhere) where.metrics = this.metricWhere;
      if (Object.keys(where).length) q.where = JSON.stringify(where);
      return q;
    }
    build_trials(panel) {
      const stateBox = el('div', {class: 'state-filter', id: 'state-filter', data: {testid: 'state-filter'}},
                          el('span', {class: 'muted', text: 'State:'}));
      for (const s of TRIAL_STATES) {
        const box = el('input', {type: 'checkbox', value: s, data: {testid: 'state-' + s},
                                 on: {change: () => {
                                   if (box.checked) this.t.states.add(s); else this.t.states.delete(s);
                                   this.t.offset = 0;
                                   this.loadTab('trials', true).catch(A.report);
                                 }}});
        stateBox.appendChild(el('label', {class: 'check'}, box, U.badge(s)));
      }
      this.exportCsv = el('a', {class: 'btn btn-small', id: 'export-csv', data: {testid: 'export-csv'}, text: 'CSV',
                                download: this.study + '-trials.csv'});
      this.exportJson = el('a', {class: 'btn btn-small', id: 'export-json', data: {testid: 'export-json'}, text: 'JSON',
                                 download: this.study + '-trials.json'});
      this.brushNote = el('div', {class: 'note brush-note', id: 'brush-note', hidden: true, data: {testid: 'brush-note'}});
      this.trialsHead = el('thead');
      this.trialsBody = el('tbody');
      this.pageSize = el('select', {class: 'input input-small', id: 'page-size', 'aria-label': 'trials per page',
                                    on: {change: () => {
                                      this.t.limit = Number(this.pageSize.value);
                                      this.t.offset = 0;
                                      this.loadTab('trials', true).catch(A.report);
                                    }}},
          [25, 50, 100, 200, 500].map((n) => el('option', {value: String(n), text: n + ' per page', selected: n === this.t.limit})));
      this.pageInfo = el('span', {class: 'muted', id: 'page-info', data: {testid: 'page-info'}});
      this.prevBtn = el('button', {class: 'btn btn-small', type: 'button', id: 'page-prev', text: '‹ Previous',
                                   on: {click: () => this.page(-1)}});
      this.nextBtn = el('button', {class: 'btn btn-small', type: 'button', id: 'page-next', text: 'Next ›',
                                   on: {click: () => this.page(1)}});
      this.colList = el('div', {class: 'col-list'});
      this.colPicker = el('details', {class: 'col-picker', id: 'col-picker', data: {testid: 'col-picker'}},
                          el('summary', {class: 'btn btn-small', text: 'Columns'}), this.colList);
      const onEnter = {keydown: (ev) => { if (ev.key === 'Enter') this.applyMetricFilter(false); }};
      this.mfMetric = el('select', {class: 'input input-small', id: 'metric-filter-name', 'aria-label': 'metric to filter on'});
      this.mfLo = el('input', {class: 'input input-small num-input', id: 'metric-filter-lo', placeholder: 'min', on: onEnter});
      this.mfHi = el('input', {class: 'input input-small num-input', id: 'metric-filter-hi', placeholder: 'max', on: onEnter});
      const metricFilter = el('span', {class: 'metric-filter', id: 'metric-filter'},
          el('span', {class: 'muted', text: 'Filter:'}), this.mfMetric, this.mfLo, el('span', {class: 'muted', text: '…'}), this.mfHi,
          el('button', {class: 'btn btn-small', type: 'button', id: 'metric-filter-apply', text: 'Apply',
                        on: {click: () => this.applyMetricFilter(false)}}),
          el('button', {class: 'btn btn-small', type: 'button', id: 'metric-filter-clear', text: 'Clear',
                        on: {click: () => this.applyMetricFilter(true)}}));
      U.append(panel, [
        el('div', {class: 'toolbar'}, stateBox, el('span', {class: 'spacer'}), this.colPicker,
           el('span', {class: 'muted', text: 'Export'}), this.exportCsv, this.exportJson),
        el('div', {class: 'toolbar'}, metricFilter),
        this.brushNote,
        el('div', {class: 'table-wrap'},
           el('table', {class: 'table table-trials', id: 'trials-table', data: {testid: 'trials-table'}},
              this.trialsHead, this.trialsBody)),
        el('div', {class: 'panel-status', text: 'Loading trials…'}),
        el('div', {class: 'pager'}, this.pageInfo, el('span', {class: 'spacer'}), this.pageSize, this.prevBtn, this.nextBtn),
      ]);
    }
    page(dir) {
      const total = (this.data.trials && this.data.trials.total) || 0;
      const next = this.t.offset + dir * this.t.limit;
      if (next < 0 || next >= total) return;
      this.t.offset = next;
      this.loadTab('trials', true).catch(A.report);
    }
    trialColumns() {
      const cols = [
        {key: 'number', label: '#', sort: 'number', cls: 'right'},
        {key: 'state', label: 'State', sort: 'state'},
        {key: 'value', label: this.detail.metric, sort: 'value', cls: 'right'},
      ].concat(this.metricColumns());
      for (const p of this.detail.params || []) {
        cols.push({key: 'param:' + p.name, label: p.name, sort: 'param:' + p.name, cls: p.type === 'CATEGORICAL' ? '' : 'right',
                   param: p});
      }
      const rows = (this.data.trials && this.data.trials.trials) || [];
      if (!rows.length || rows.some((t) => 'last_step' in t)) cols.push({key: 'last_step', label: 'Step', cls: 'right'});
      if (rows.some((t) => 'optimal' in t)) cols.push({key: 'optimal', label: 'Optimal'});
      if (!rows.length || rows.some((t) => 'last_value' in t)) cols.push({key: 'last_value', label: 'Latest ' + this.detail.metric, cls: 'right'});
      cols.push({key: 'attempt', label: 'Attempt', cls: 'right'},
                {key: 'slot', label: 'Slot', cls: 'right'},
                {key: 'start_time', label: 'Started', sort: 'start_time'},
                {key: 'duration', label: 'Duration', sort: 'end_time', cls: 'right'},
                {key: 'reason', label: 'Reason'});
      return cols;
    }
    // Every metric besides the primary one: objectives, constraints (with
    // their threshold), then what the trainer reported besides.
    metricColumns() {
      const cols = [];
      for (const m of this.detail.metrics || []) {
        if (m.metric === this.detail.metric) continue;
        const constraint = m.threshold !== null;
        const label = constraint ? `${m.metric} ${m.goal === 'MAXIMIZE' ? '≥' : '≤'} ${U.fmt(m.threshold)}`
                                 : `${m.metric} ${m.goal === 'MAXIMIZE' ? '↑' : '↓'}`;
        cols.push({key: 'metric:' + m.metric, label, sort: 'metric:' + m.metric, cls: 'right', metric: m.metric,
                   kind: constraint ? 'constraint' : 'objective'});
      }
      for (const name of this.detail.extra_metrics || []) {
        cols.push({key: 'metric:' + name, label: name, sort: 'metric:' + name, cls: 'right', metric: name, kind: 'extra'});
      }
      return cols;
    }
    // Hides or shows a column; the choice goes in the URL (tabs' links too).
    toggleColumn(key, shown) {
      if (shown) this.hide.delete(key); else this.hide.add(key);
      const hide = Array.from(this.hide);
      history.replaceState(null, '', app().studyHref(this.study, this.tab, hide));
      for (const a of this.tabBar.querySelectorAll('.tab')) a.href = app().studyHref(this.study, a.dataset.tab, hide);
      this.render_trials();
    }
    renderColumnPicker(cols) {
      if (!this.colPicker) return;
      const signature = cols.map((c) => c.key).join('\n');
      const boxes = this.colPicker.querySelectorAll('input');
      if (signature === this.colSignature) {
        for (const b of boxes) b.checked = !this.hide.has(b.value);
        return;
      }
      this.colSignature = signature;
      U.replace(this.colList, cols.filter((c) => c.key !== 'number').map((c) => {
        const box = el('input', {type: 'checkbox', value: c.key, checked: !this.hide.has(c.key),
                                 data: {testid: 'col-' + c.key},
                                 on: {change: () => this.toggleColumn(c.key, box.checked)}});
        return el('label', {class: 'check'}, box, c.label);
      }));
    }
    renderMetricFilter() {
      if (!this.mfMetric) return;
      const names = this.metricColumns().map((c) => c.metric);
      names.unshift(this.detail.metric);
      if (this.mfMetric.options.length !== names.length) {
        U.replace(this.mfMetric, names.map((n) => el('option', {value: n, text: n})));
      }
    }
    applyMetricFilter(clear) {
      const lo = this.mfLo.value.trim(), hi = this.mfHi.value.trim();
      if (clear || (lo === '' && hi === '')) {
        this.metricWhere = null;
        this.mfLo.value = this.mfHi.value = '';
      } else {
        const range = [lo === '' ? -Number.MAX_VALUE : Number(lo), hi === '' ? Number.MAX_VALUE : Number(hi)];
        if (!range.every(Number.isFinite)) { app().toast('the filter needs numbers', 'error'); return; }
        this.metricWhere = {[this.mfMetric.value]: range};
      }
      this.t.offset = 0;
      this.loadTab('trials', true).catch(A.report);
    }
    render_trials() {
      const doc = this.data.trials;
      if (!doc) return;
      const all = this.trialColumns();
      this.renderColumnPicker(all);
      this.renderMetricFilter();
      const cols = all.filter((c) => c.key === 'number' || !this.hide.has(c.key));
      const headRow = el('tr');
      for (const c of cols) {
        const sorted = c.sort && this.t.sort === c.sort;
        const th = el('th', {class: (c.cls || '') + (c.sort ? ' sortable' : '') + (sorted ? ' sorted' : ''),
                             data: {sort: c.sort || '', testid: 'trials-col-' + c.key},
                             title: c.sort ? `sort by ${c.label}` + (c.param ? ` (${c.param.type.toLowerCase()}` +
                                 (c.param.scale === 'UNIT_LOG_SCALE' ? ', log scale)' : ')') : '') : null},
            c.label, sorted ? el('span', {class: 'sort-arrow', text: this.t.order === 'asc' ? ' ▲' : ' ▼'}) : null);
        if (c.sort) {
          th.addEventListener('click', () => {
            if (this.t.sort === c.sort) this.t.order = this.t.order === 'asc' ? 'desc' : 'asc';
            else { this.t.sort = c.sort; this.t.order = 'asc'; }
            this.t.offset = 0;
            this.loadTab('trials', true).catch(A.report);
          });
        }
        headRow.appendChild(th);
      }
      U.replace(this.trialsHead, headRow);
      const best = this.detail.best ? this.detail.best.trial : null;
      const rows = doc.trials.map((t) => {
        const tr = el('tr', {class: 'clickable' + (t.number === best ? ' best-row' : ''),
                             data: {trial: String(t.number), testid: 'trial-row'},
                             title: `open trial ${t.number}`});
        tr.addEventListener('click', (ev) => {
          if (ev.target.closest('a')) return;
          location.hash = app().trialHref(this.study, t.number);
        });
        for (const c of cols) tr.appendChild(this.trialCell(t, c));
        return tr;
      });
      U.replace(this.trialsBody, rows);
      if (!rows.length) {
        this.trialsBody.appendChild(el('tr', null, el('td', {class: 'muted empty-row', colspan: cols.length,
            text: this.where || this.t.states.size ? 'No trial matches the filter.' : 'No trials yet.'})));
      }
      const from = doc.total ? doc.offset + 1 : 0, to = doc.offset + doc.trials.length;
      this.pageInfo.textContent = `${from}–${to} of ${doc.total} trial${doc.total === 1 ? '' : 's'}` +
          (this.where || this.metricWhere || this.t.states.size ? ' (filtered)' : '');
      this.prevBtn.disabled = doc.offset <= 0;
      this.nextBtn.disabled = to >= doc.total;
      const q = this.trialsQuery(false);
      this.exportCsv.href = A.url(this.base + '/trials.csv', q);
      this.exportJson.href = A.url(this.base + '/trials.json', q);
      this.renderBrushNote();
      P.setDebug('trials', {rows: doc.trials.length, total: doc.total, offset: doc.offset,
                            columns: cols.map((c) => c.key),
                            numbers: doc.trials.map((t) => t.number), where: this.where, metric_where: this.metricWhere,
                            states: Array.from(this.t.states), sort: this.t.sort, order: this.t.order});
    }
    trialCell(t, c) {
      const cls = c.cls || '';
      if (c.key === 'number') return el('td', {class: cls}, el('a', {href: app().trialHref(this.study, t.number), text: String(t.number)}));
      if (c.key === 'state') {
        return el('td', {class: 'nowrap'}, U.badge(t.state),
                  t.stopped_early ? el('span', {class: 'chip chip-warn', text: 'stopped early', title: 'stopped early by the stopping rule'}) : null);
      }
      if (c.key === 'value') return el('td', {class: cls}, t.value === null ? el('span', {class: 'muted', text: '—'}) : U.num(t.value, 'strong'));
      if (c.key === 'optimal') {
        return el('td', {class: 'nowrap', data: {optimal: t.optimal ? 'true' : 'false'}},
                  t.optimal ? el('span', {class: 'chip chip-ok', text: 'optimal', title: 'on the Pareto front'}) : null);
      }
      if (c.metric || c.key === 'last_value') {
        const v = c.metric ? (t.metrics || {})[c.metric] : t.last_value;
        return el('td', {class: cls, data: {metric: c.metric || ''}},
                  v === null || v === undefined ? el('span', {class: 'muted', text: '—'}) : U.num(v));
      }
      if (c.param) {
        const v = t.params ? t.params[c.param.name] : undefined;
        if (v === undefined || v === null) return el('td', {class: cls}, el('span', {class: 'muted', text: '—'}));
        return el('td', {class: cls}, typeof v === 'number' ? U.num(v) : el('span', {class: 'cat', text: String(v)}));
      }
      if (c.key === 'last_step' || c.key === 'attempt' || c.key === 'slot') {  // absent: "—"
        const v = t[c.key];
        return el('td', {class: cls + ' muted', text: v === null || v === undefined ? '—' : String(v)});
      }
      if (c.key === 'start_time') return el('td', {class: 'nowrap muted', title: U.fmtTime(t.start_time), text: U.fmtShortTime(t.start_time)});
      if (c.key === 'duration') {
        const s = U.parseTime(t.start_time), e = U.parseTime(t.end_time);
        const d = s === null ? null : (e === null ? Date.now() - s : e - s);
        return el('td', {class: cls + ' nowrap muted', title: t.end_time ? 'ended ' + U.fmtTime(t.end_time) : 'running',
                         text: s === null ? '—' : U.fmtDuration(d) + (e === null ? ' …' : '')});
      }
      if (c.key === 'reason') return el('td', {class: 'reason', title: t.reason || '', text: t.reason || ''});
      return el('td');
    }
    whereText(where) {
      const parts = [];
      for (const [name, r] of Object.entries(where.params || {})) {
        parts.push(typeof r[0] === 'string' ? `${name} ∈ {${r.join(', ')}}` : `${U.fmt(r[0])} ≤ ${name} ≤ ${U.fmt(r[1])}`);
      }
      if (where.value) parts.push(`${U.fmt(where.value[0])} ≤ ${this.detail.metric} ≤ ${U.fmt(where.value[1])}`);
      return parts.join(', ');
    }
    renderBrushNote() {
      const note = this.brushNote;
      if (!note) return;
      if (!this.where) { note.hidden = true; return; }
      note.hidden = false;
      U.replace(note, el('span', null, 'Showing only the trials selected in the ',
                         el('a', {href: app().studyHref(this.study, 'parcoords'), text: 'parallel coordinates'}),
                         ' plot: ', el('span', {class: 'mono', text: this.whereText(this.where)}), '. '),
                el('button', {class: 'btn btn-small', type: 'button', id: 'clear-brush', data: {testid: 'clear-brush'},
                              text: 'Clear filter', on: {click: () => this.clearBrush()}}));
    }
    setWhere(where) {
      const before = JSON.stringify(this.where), after = JSON.stringify(where);
      this.where = where;
      if (before === after) return;
      this.t.offset = 0;
      this.stale.trials = true;
      this.renderBrushNote();
      this.renderParcoordsStatus();
      if (this.tab === 'trials') this.loadTab('trials', true).catch(A.report);
    }
    clearBrush() {
      const chart = P.get('parcoords');
      const ids = Object.keys(this.brush);
      this.brush = {};
      if (chart) {
        this.restoringBrush = true;
        try {
          for (const id of ids) chart.dispatchAction({type: 'axisAreaSelect', parallelAxisId: id, intervals: []});
        } finally { this.restoringBrush = false; }
      }
      this.setWhere(null);
    }

    // ---- History
    build_history(panel) {
      this.histLogBox = el('input', {type: 'checkbox', id: 'history-log', data: {testid: 'history-log'},
                                     on: {change: () => { this.histLog = this.histLogBox.checked; this.render_history(); }}});
      this.histLogNote = el('span', {class: 'muted small', id: 'history-log-note'});
      this.histSummary = el('span', {class: 'muted', id: 'history-summary'});
      this.histNote = el('div', {class: 'note', id: 'history-note', hidden: true});
      this.histChart = this.chartBox('history', 440);
      U.append(panel, [el('div', {class: 'toolbar'}, el('label', {class: 'check'}, this.histLogBox, 'log scale'),
                          this.histLogNote, el('span', {class: 'spacer'}), this.histSummary),
                       el('div', {class: 'panel-status', text: 'Loading history…'}), this.histChart, this.histNote]);
    }
    render_history() {
      const h = this.data.history;
      if (!h) return;
      const r = P.history(h, {metric: this.detail.metric, goal: this.detail.goal, log: this.histLog});
      this.histLogBox.disabled = !r.logOk;
      this.histLogNote.textContent = r.logOk ? '' : '(needs every value > 0)';
      const active = (h.active || []).length, failed = (h.failed || []).length;
      const stoppedN = (h.points || []).filter((p) => p.stopped_early).length;
      this.histSummary.textContent = `${h.total} finished trials with a value` +
          (h.downsampled ? ` (${(h.points || []).length} drawn)` : '') +
          (stoppedN ? ` · ${stoppedN} stopped early` : '') +
          (active ? ` · ${active} running` : '') + (failed ? ` · ${failed} failed` : '');
      this.histNote.hidden = !h.downsampled;
      this.histNote.textContent = h.downsampled ?
          `Downsampled on the server: ${h.points.length} of ${h.total} points shown (every change of the best is kept).` : '';
      this.drawChart('history', this.histChart, r);
    }

    // ---- Pareto front
    objectives() {
      return (this.detail.metrics || []).filter((m) => m.threshold === null);
    }
    build_pareto(panel) {
      const select = (id, label) => el('select', {class: 'input input-small', id, 'aria-label': label,
                                                  on: {change: () => this.render_pareto()}});
      this.paretoX = select('pareto-x', 'x objective');
      this.paretoY = select('pareto-y', 'y objective');
      this.paretoNote = el('span', {class: 'muted', id: 'pareto-note', data: {testid: 'pareto-note'}});
      this.paretoChart = this.chartBox('pareto', 460);
      U.append(panel, [el('div', {class: 'toolbar'}, el('label', {text: 'x '}), this.paretoX,
                          el('label', {text: ' y '}), this.paretoY, el('span', {class: 'spacer'}), this.paretoNote),
                       el('div', {class: 'panel-status', text: 'Loading the front…'}), this.paretoChart]);
    }
    render_pareto() {
      const doc = this.data.pareto;
      if (!doc) return;
      const objectives = doc.objectives || [];
      if (objectives.length < 2) {
        this.paretoNote.textContent = 'This study has one objective: its best trial is in the header.';
        return;
      }
      for (const box of [this.paretoX, this.paretoY]) {
        if (box.options.length === objectives.length) continue;
        U.replace(box, ...objectives.map((o, i) => el('option', {value: String(i), text: o.metric})));
      }
      if (this.paretoY.value === this.paretoX.value) this.paretoY.value = this.paretoX.value === '0' ? '1' : '0';
      const r = P.pareto(doc, {x: Number(this.paretoX.value), y: Number(this.paretoY.value)});
      const constraints = (doc.constraints || []).map((c) => `${c.metric} ${c.goal === 'MAXIMIZE' ? '≥' : '≤'} ${U.fmt(c.threshold)}`);
      this.paretoNote.textContent = `${doc.optimal} optimal of ${doc.total} trials with every metric` +
          (constraints.length ? ` · feasible: ${constraints.join(', ')}` : '') +
          (objectives.length > 2 ? ' · optimal on all objectives, shown on two' : '') +
          (doc.downsampled ? ` · ${r.debug.points} shown (every optimal one)` : '') + ' · click a point to open its trial';
      const chart = this.drawChart('pareto', this.paretoChart, r);
      chart.off('click');
      chart.on('click', (p) => {
        if (p.value && p.value[2] !== undefined) location.hash = app().trialHref(this.study, p.value[2]);
      });
    }

    // ---- Parallel coordinates
    build_parcoords(panel) {
      this.topSelect = el('select', {class: 'input input-small', id: 'parcoords-top', data: {testid: 'parcoords-top'},
                                     'aria-label': 'show the best k% of the trials',
                                     on: {change: () => { this.topPct = Number(this.topSelect.value); this.render_parcoords(); }}},
          [100, 50, 25, 10, 5].map((k) => el('option', {value: String(k), text: k === 100 ? 'all trials' : `best ${k}%`})));
      this.pcStatus = el('span', {class: 'muted', id: 'parcoords-status', data: {testid: 'parcoords-status'}});
      this.pcNote = el('div', {class: 'note', id: 'parcoords-note', hidden: true});
      this.pcChart = this.chartBox('parcoords', 450);
      U.append(panel, [el('div', {class: 'toolbar'}, el('label', {class: 'muted', text: 'Show'}), this.topSelect,
                          el('span', {class: 'muted small', text: 'Drag along an axis to select a range; the Trials tab then lists only the selected trials.'}),
                          el('span', {class: 'spacer'}), this.pcStatus),
                       el('div', {class: 'panel-status', text: 'Loading points…'}), this.pcChart, this.pcNote]);
    }
    render_parcoords() {
      const pts = this.data.points;
      if (!pts) return;
      const r = P.parcoords(pts, this.detail.params || [], {metric: this.detail.metric, goal: this.detail.goal, topPct: this.topPct});
      this.pc = r;
      const chart = this.drawChart('parcoords', this.pcChart, r);
      if (!chart.__hptuneBrush) {
        chart.__hptuneBrush = true;
        chart.on('axisareaselected', () => this.onBrush(chart));
      }
      // Put the brush back after a redraw (live refresh, top k%).
      this.restoringBrush = true;
      try {
        for (const [id, intervals] of Object.entries(this.brush)) {
          chart.dispatchAction({type: 'axisAreaSelect', parallelAxisId: id, intervals});
        }
      } finally { this.restoringBrush = false; }
      this.pcNote.hidden = !pts.downsampled;
      this.pcNote.textContent = pts.downsampled ? `Downsampled on the server: ${pts.trials.length} of ${pts.total} trials (the best 10% and an even sample of the rest).` : '';
      this.renderParcoordsStatus();
    }
    onBrush(chart) {
      if (this.restoringBrush) return;
      const brush = {};
      chart.getModel().eachComponent('parallelAxis', (axisModel) => {
        const iv = axisModel.activeIntervals || [];
        if (iv.length) brush[axisModel.id] = iv.map((x) => x.slice());
      });
      this.brush = brush;
      this.setWhere(this.brushToWhere(brush));
      this.renderParcoordsStatus();
    }
    brushToWhere(brush) {
      if (!this.pc) return null;
      const where = {};
      for (const [id, intervals] of Object.entries(brush)) {
        const axis = this.pc.axes.find((a) => a.id === id);
        if (!axis) continue;
        const lo = Math.min(...intervals.map((i) => Math.min(i[0], i[1])));
        const hi = Math.max(...intervals.map((i) => Math.max(i[0], i[1])));
        if (id === 'objective') { where.value = [lo, hi]; continue; }
        where.params = where.params || {};
        if (axis.type === 'category') {
          where.params[axis.name] = axis.data.filter((_, k) => intervals.some((i) => Math.min(i[0], i[1]) <= k && k <= Math.max(i[0], i[1])));
        } else {
          where.params[axis.name] = [lo, hi];
        }
      }
      return Object.keys(where).length ? where : null;
    }
    inWhere(row) {
      const w = this.where;
      if (!w) return true;
      if (w.value && !(row.value >= w.value[0] && row.value <= w.value[1])) return false;
      const names = this.data.points.params;
      for (const [name, r] of Object.entries(w.params || {})) {
        const v = row.x[names.indexOf(name)];
        if (v === null || v === undefined) return false;  // inactive here
        if (typeof r[0] === 'string' || r.length === 0) { if (!r.includes(v)) return false; } else if (!(v >= r[0] && v <= r[1])) return false;
      }
      return true;
    }
    renderParcoordsStatus() {
      if (!this.pcStatus || !this.pc) return;
      const shown = this.pc.rows.length;
      const total = (this.data.points.trials || []).length;
      const parts = [`${shown} of ${total} trials`];
      let selected = shown;
      if (this.where) {
        selected = this.pc.rows.filter((r) => this.inWhere(r)).length;
        parts.push(`${selected} selected`);
      }
      U.replace(this.pcStatus, parts.join(' · '),
                this.where ? [' ', el('a', {href: app().studyHref(this.study, 'trials'), id: 'parcoords-to-table', text: 'show in the table'}),
                              ' ', el('button', {class: 'btn btn-small', type: 'button', id: 'parcoords-clear',
                                                 text: 'Clear selection', on: {click: () => this.clearBrush()}})] : null);
      P.setDebug('parcoords', Object.assign({}, this.pc.debug, {selected, where: this.where}));
    }

    // ---- Slice
    build_slice(panel) {
      this.sliceChart = this.chartBox('slice', 300);
      U.append(panel, [el('div', {class: 'toolbar'}, el('span', {class: 'muted',
                          text: 'The objective against each parameter; colour is the trial number (darker = later).'})),
                       el('div', {class: 'panel-status', text: 'Loading points…'}), this.sliceChart]);
    }
    render_slice() {
      const pts = this.data.points;
      if (!pts) return;
      const width = this.sliceChart.clientWidth || 1200;
      const r = P.slice(pts, this.detail.params || [], {metric: this.detail.metric, goal: this.detail.goal}, width);
      P.largeScatter(r.option, 'max');
      this.drawChart('slice', this.sliceChart, r, r.height);
    }

    // ---- Contour
    build_contour(panel) {
      const mk = (id) => el('select', {class: 'input input-small', id, data: {testid: id},
                                       on: {change: () => {
                                         this.contourPair = [this.cx.value, this.cy.value];
                                         this.render_contour();
                                       }}});
      this.cx = mk('contour-x');
      this.cy = mk('contour-y');
      this.contourNote = el('span', {class: 'muted small', id: 'contour-note'});
      this.contourChart = this.chartBox('contour', 450);
      U.append(panel, [el('div', {class: 'toolbar'}, el('label', {class: 'muted', text: 'x'}), this.cx,
                          el('label', {class: 'muted', text: 'y'}), this.cy, this.contourNote),
                       el('div', {class: 'panel-status', text: 'Loading points…'}), this.contourChart]);
    }
    render_contour() {
      const pts = this.data.points;
      if (!pts) return;
      const names = pts.params || [];
      if (names.length < 2) {
        this.contourNote.textContent = 'A contour needs at least two parameters.';
        this.contourChart.hidden = true;
        return;
      }
      if (!this.contourPair || !names.includes(this.contourPair[0]) || !names.includes(this.contourPair[1])) {
        const ranked = ((this.data.importance && this.data.importance.importances) || []).map((x) => x.param)
            .filter((n) => names.includes(n));
        for (const n of names) if (!ranked.includes(n)) ranked.push(n);
        this.contourPair = [ranked[0], ranked[1]];
      }
      for (const [sel, v] of [[this.cx, this.contourPair[0]], [this.cy, this.contourPair[1]]]) {
        if (sel.options.length !== names.length) U.replace(sel, names.map((n) => el('option', {value: n, text: n})));
        sel.value = v;
      }
      if (this.contourPair[0] === this.contourPair[1]) {
        this.contourNote.textContent = 'Choose two different parameters.';
        return;
      }
      this.contourNote.textContent = 'Colour: the objective interpolated between the trials (inverse-distance weighting on a 30×30 grid); dots: trials.';
      const r = P.contour(pts, this.detail.params || [], {x: this.contourPair[0], y: this.contourPair[1],
                                                         metric: this.detail.metric, goal: this.detail.goal});
      this.drawChart('contour', this.contourChart, r);
    }

    // ---- Learning curves
    // Which curves: the best N and the running ones, all, stopped early,
    // running, or the trials the table shows now (its filter, brush, page).
    curvesQuery() {
      const q = {select: this.curveSelect, max_trials: this.curveN};
      if (this.curveSelect === 'selected') {
        const rows = (this.data.trials && this.data.trials.trials) || [];
        q.trials = rows.map((t) => t.number).join(',') || '0';
      }
      return q;
    }
    build_curves(panel) {
      this.curvesLogBox = el('input', {type: 'checkbox', id: 'curves-log', data: {testid: 'curves-log'},
                                       on: {change: () => { this.curvesLog = this.curvesLogBox.checked; this.render_curves(); }}});
      const reload = () => { this.loadTab('curves', true).catch(A.report); };
      this.curvesSelect = el('select', {class: 'input input-small', id: 'curves-select', data: {testid: 'curves-select'},
                                        'aria-label': 'which trials',
                                        on: {change: () => { this.curveSelect = this.curvesSelect.value; reload(); }}},
          [['best', 'best N and running'], ['all', 'all'], ['stopped', 'stopped early'], ['running', 'running'],
           ['selected', 'selected in the table']].map(([v, t]) => el('option', {value: v, text: t})));
      this.curvesN = el('select', {class: 'input input-small', id: 'curves-n', 'aria-label': 'at most this many trials',
                                   on: {change: () => { this.curveN = Number(this.curvesN.value); reload(); }}},
          [20, 50, 100, 200, 500].map((n) => el('option', {value: String(n), text: 'N = ' + n, selected: n === this.curveN})));
      this.curvesSummary = el('span', {class: 'muted', id: 'curves-summary'});
      this.curvesChart = this.chartBox('curves', 450);
      U.append(panel, [el('div', {class: 'toolbar'}, el('label', {class: 'muted', text: 'Show'}), this.curvesSelect, this.curvesN,
                          el('label', {class: 'check'}, this.curvesLogBox, 'log scale'),
                          el('span', {class: 'spacer'}), this.curvesSummary),
                       el('div', {class: 'panel-status', text: 'Loading curves…'}), this.curvesChart]);
    }
    render_curves() {
      const c = this.data.curves;
      if (!c) return;
      const allPositive = (c.curves || []).every((x) => (x.points || []).every((p) => p[1] > 0));
      this.curvesLogBox.disabled = !allPositive;
      const r = P.curves(c, {metric: this.detail.metric, goal: this.detail.goal, log: this.curvesLog && allPositive,
                            bestTrial: this.detail.best ? this.detail.best.trial : null});
      const stopped = r.debug.stopped.length;
      const drawn = (c.curves || []).length;
      const m = c.matching;
      const what = {best: `: the best ${this.curveN} finished trials and the running ones, of ${m}`,
                    all: ` of the ${m} trials that ran`, stopped: ` of the ${m} trials stopped early`,
                    running: ` of the ${m} running trials`, selected: ` of the ${m} trials shown in the table`}[c.select] || '';
      this.curvesSummary.textContent = `${drawn} curve${drawn === 1 ? '' : 's'}${what}` +
          (c.downsampled ? ' (an even spread by trial number)' : '') +
          (stopped ? ` · ${stopped} stopped early: dashed, ◆ where they stopped` : '');
      this.drawChart('curves', this.curvesChart, r);
      P.setDebug('curves', Object.assign({}, r.debug, {select: c.select, matching: c.matching,
                                                      trials: (c.curves || []).map((x) => x.trial)}));
    }

    // ---- Importance
    build_importance(panel) {
      this.impNote = el('div', {class: 'muted', id: 'importance-note'});
      this.impChart = this.chartBox('importance', 260);
      U.append(panel, [el('div', {class: 'toolbar'}, this.impNote),
                       el('div', {class: 'panel-status', text: 'Loading importance…'}), this.impChart]);
    }
    render_importance() {
      const imp = this.data.importance;
      if (!imp) return;
      const trials = imp.trials || 0;
      const about = trials < 2 ? '' : ` The best ${imp.top_trials} of them are the top set; the importances sum to 1.` +
          (imp.bootstrap_resamples ? ` Whiskers: 90% interval over ${imp.bootstrap_resamples} bootstrap resamples of the trials.` : '');
      U.replace(this.impNote,
                imp.note ? el('div', {id: 'importance-too-few', role: 'note', text: imp.note,
                                     style: {color: '#7a4b00', background: '#fff4d6', padding: '4px 8px', borderRadius: '4px', margin: '0 0 4px'}}) : null,
                'Method ', el('strong', {text: imp.method}), ` over ${trials} finished trial${trials === 1 ? '' : 's'} with a value.` +
                about + conditionalNote(imp.importances || []));
      const r = P.importance(imp);
      this.drawChart('importance', this.impChart, r, r.height);
    }

    // ---- Timeline
    build_timeline(panel) {
      const swatch = (color, text, cls) => el('span', {class: 'legend-item'},
          el('span', {class: 'swatch ' + (cls || ''), style: {background: color, borderColor: color}}), text);
      this.tlSummary = el('span', {class: 'muted', id: 'timeline-summary'});
      this.tlChart = this.chartBox('timeline', 260);
      U.append(panel, [el('div', {class: 'toolbar legend'},
                          swatch(P.COLORS.SUCCEEDED, 'succeeded'), swatch(P.COLORS.STOPPED, 'stopped early'),
                          swatch(P.COLORS.FAILED, 'failed'), swatch(P.COLORS.INFEASIBLE, 'infeasible'),
                          swatch(P.COLORS.ACTIVE, 'running', 'swatch-running'),
                          swatch(P.COLORS.CANCELLED, 'other'),
                          el('span', {class: 'legend-item'}, el('span', {class: 'tri', text: '▼'}), 'restarted or retried'),
                          el('span', {class: 'spacer'}), this.tlSummary),
                       el('div', {class: 'panel-status', text: 'Loading timeline…'}), this.tlChart]);
    }
    render_timeline() {
      const tl = this.data.timeline;
      if (!tl) return;
      const r = P.timeline(tl, {});
      this.tlSummary.textContent = `${r.debug.bars} trials on ${tl.lanes} parallel slot${tl.lanes === 1 ? '' : 's'}` +
          (tl.total > r.debug.bars ? ` (the last ${r.debug.bars} of ${tl.total})` : '') + ' · click a bar to open its trial';
      const chart = this.drawChart('timeline', this.tlChart, r, r.height);
      if (!chart.__hptuneClick) {
        chart.__hptuneClick = true;
        chart.on('click', (p) => {
          if (p.value && p.value[3] !== undefined) location.hash = app().trialHref(this.study, p.value[3]);
        });
      }
    }

    // ---- Config
    build_config(panel) {
      this.configBox = el('div', {class: 'config-grid'});
      U.append(panel, [this.configBox]);
    }
    render_config() {
      const d = this.detail;
      const rows = (d.params || []).map((p) => el('tr', null,
          el('td', {class: 'strong', text: p.name,
                    title: p.parent ? `active when ${p.parent} ∈ {${(p.parent_values || []).join(', ')}}` : ''},
             p.parent ? el('span', {class: 'muted', text: ` (${p.parent} ∈ {${(p.parent_values || []).join(', ')}})`}) : null),
          el('td', {text: p.type}),
          el('td', {text: p.scale && p.scale !== 'NONE' ? p.scale : '—'}),
          el('td', null, p.type === 'CATEGORICAL' ? (p.categories || []).map((c) => el('span', {class: 'chip', text: c})) :
              p.type === 'DISCRETE' ? (p.values || []).map((v) => el('span', {class: 'chip', text: U.fmt(v)})) :
              [U.num(p.min), ' … ', U.num(p.max)])));
      let config = d.config;
      if (typeof config === 'string') {
        try { config = JSON.stringify(JSON.parse(config), null, 2); } catch (e) { /* show as is */ }
      } else if (config) {
        config = JSON.stringify(config, null, 2);
      }
      U.replace(this.configBox,
          el('div', null, el('h3', {text: 'Search space'}),
             el('table', {class: 'table', id: 'space-table', data: {testid: 'space-table'}},
                el('thead', null, el('tr', null, ['Parameter', 'Type', 'Scale', 'Range / values'].map((h) => el('th', {text: h})))),
                el('tbody', null, rows)),
             el('h3', {text: 'Study'}),
             el('table', {class: 'table kv'}, el('tbody', null,
                [['Objective', `${d.metric} (${d.goal})`], ['Algorithm', d.algorithm || '—'],
                 ['Early stopping', d.early_stopping ? 'on' : 'off'], ['Max trials', String(d.max_trials)],
                 ['Max parallel trials', String(d.max_parallel_trials)], ['Created', U.fmtTime(d.create_time)]]
                    .map(([k, v]) => el('tr', null, el('th', {text: k}), el('td', {text: v})))))),
          el('div', null, el('h3', {text: 'Job config (trainingInput)'}),
             config ? el('pre', {class: 'code', id: 'config-json', data: {testid: 'config-json'}, text: config})
                    : el('p', {class: 'muted', text: 'This study has no job: it is driven through the ask/tell API.'})));
      P.setDebug('config', {params: (d.params || []).length, has_config: !!config});
    }
  }

  window.hptune.StudyPage = StudyPage;
})();

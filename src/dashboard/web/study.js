// hptune dashboard: the study page (header, cancel, delete, note, one tab per
// view). The tabs' own methods are added to StudyPage by study_trials.js,
// study_tabs.js and views.js, loaded after it.
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const app = () => window.hptune.app;

  const TABS = [
    ['trials', 'Trials'], ['history', 'History'], ['edf', 'EDF'], ['rank', 'Rank'], ['pareto', 'Pareto front'], ['parcoords', 'Parallel coordinates'], ['slice', 'Slice'],
    ['contour', 'Contour'], ['curves', 'Learning curves'], ['importance', 'Importance'],
    ['timeline', 'Timeline'], ['config', 'Config'],
  ];
  // Which fetched documents each tab shows.
  const TAB_DATA = {
    trials: ['trials'], history: ['history'], edf: ['edf'], rank: ['rank'], pareto: ['pareto'], parcoords: ['points'], slice: ['points'],
    contour: ['points', 'importance'], curves: ['curves'], importance: ['importance'],
    timeline: ['timeline'], config: [],
  };

  // Documents that are the study's as of a version, not pages the user
  // picks (the table's, the curves): fetched once per URL until the study
  // changes, so tabs that show the same one (parallel coordinates, slice and
  // contour all show the points) draw without asking the server again.
  const SHARED_DOCS = new Set(['history', 'edf', 'rank', 'pareto', 'points', 'importance', 'timeline']);

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
      this.shared = new Map(); // URL -> promise of a SHARED_DOCS document
      this.loaded = {};        // tab -> rendered at least once
      this.stale = {};         // tab -> needs a refetch when shown
      this.panels = {};
      this.destroyed = false;
      this.t = {offset: 0, limit: 50, sort: route.sort || 'number', order: route.order === 'desc' ? 'desc' : 'asc',
                states: new Set()};
      this.where = null;       // from the parallel coordinates' brush
      this.filters = window.hptune.parseFilters(route.where);  // the table's filters (URL)
      this.hide = new Set(route.hide || []);  // hidden table columns (URL)
      this.curveSelect = 'best';
      this.curveN = 50;
      this.brush = {};         // parallel axis id -> intervals
      this.topPct = 100;
      this.histLog = false;
      this.curvesLog = false;
      this.contourPair = null;
      this.objective = null;   // the plots' objective, when not the first
      app().setCrumbs([{text: 'Studies', href: '#/'}, {text: this.study}]);

      this.header = el('section', {class: 'card study-header', id: 'study-header', data: {testid: 'study-header'}},
                       el('div', {class: 'panel-status', text: 'Loading study…'}));
      this.tabBar = el('nav', {class: 'tabs', role: 'tablist', id: 'study-tabs'});
      for (const [key, label] of TABS) {
        this.tabBar.appendChild(el('a', {class: 'tab', role: 'tab', href: this.viewHref(key),
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
      this.el = el('div', {class: 'page page-study'}, this.header, this.note.el, this.tabBar, this.buildObjectiveBar(),
                   this.panelBox,
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
        await this.prefetch();
      } catch (e) {
        if (e instanceof A.ApiError) {
          U.replace(this.header, el('div', {class: 'error-box', id: 'study-error'},
              el('strong', {text: e.status === 404 ? 'No such study. ' : 'Cannot load the study. '}), e.message));
        }
        A.report(e);
      }
    }

    // The plots' documents, asked for one after the other once the page has
    // drawn: a tab opened later draws without waiting for the server (about
    // 0.1 s each at 100,000 trials on a busy machine; the points serve three
    // tabs). The importance comes last: the server computes it for a few
    // hundred ms at 100,000 trials (then keeps it until the study changes).
    async prefetch() {
      const shown = new Set(TAB_DATA[this.tab]);
      for (const name of ['points', 'history', 'rank', 'importance']) {
        if (this.destroyed) return;
        if (!shown.has(name)) await this.fetchDoc(name, true).catch(() => {});
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
      this.shared.clear();
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
              several ? fact('Optimal', el('a', {href: this.viewHref('pareto'), id: 'pareto-link', text: 'the Pareto front'}))
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
      this.dismissBtn = el('button', {class: 'btn', type: 'button', id: 'cancel-dismiss', data: {testid: 'cancel-dismiss'},
                                      text: 'Keep running', on: {click: () => this.closeDialog()}});
      const box = el('div', {class: 'modal-backdrop', id: 'cancel-dialog', hidden: true, data: {testid: 'cancel-dialog'},
                             on: {click: (ev) => { if (ev.target === box) this.closeDialog(); }}},
          el('div', {class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'cancel-title'},
              el('h2', {id: 'cancel-title', text: 'Cancel this job?'}), this.dialogText,
              el('div', {class: 'modal-actions'}, this.dismissBtn, this.confirmBtn)));
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
      this.dismissBtn.focus();  // the safe choice: Enter keeps the job running
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
      if (this.detail) this.renderObjectiveBar();
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
        history: () => this.objectiveQuery(), edf: () => this.objectiveQuery(), rank: () => this.objectiveQuery(),
        points: () => this.objectiveQuery(), importance: () => this.objectiveQuery(),
        pareto: () => ({}), curves: () => this.curvesQuery(), timeline: () => ({}),
      }[name]();
      const url = A.url(this.base + '/' + name, q);
      let pending = SHARED_DOCS.has(name) ? this.shared.get(url) : null;
      if (!pending) {
        pending = A.get(this.base + '/' + name, q, {label: name, quiet, onProgress});
        if (SHARED_DOCS.has(name)) {
          this.shared.set(url, pending);
          pending.catch(() => { if (this.shared.get(url) === pending) this.shared.delete(url); });
        }
      }
      const doc = await pending;
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
      box.dataset.file = this.study + '-' + name;  // what Save as PNG/SVG names the file
      chart.setOption(P.interactive(name, result.option, chart), {notMerge: true, lazyUpdate: false});
      P.setDebug(name, result.debug);
      return chart;
    }
  }

  window.hptune.StudyPage = StudyPage;
})();

// hptune dashboard: the study page's plot tabs (history, Pareto front,
// parallel coordinates, slice, contour, learning curves, importance,
// timeline) and its Config tab. Loaded after study.js (it adds the tabs'
// methods to StudyPage).
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const app = () => window.hptune.app;

  // Conditional parameters are judged over the trials where they are active.
  const conditionalNote = (list) => {
    const parts = list.filter((x) => x.active_trials !== undefined).map((x) => `${x.param} (${x.active_trials})`);
    return parts.length ? ` Conditional parameters, judged over the trials where they are active: ${parts.join(', ')}.` : '';
  };

  const SP = window.hptune.StudyPage.prototype;

  // ---- History
  SP.build_history = function (panel) {
    this.histLogBox = el('input', {type: 'checkbox', id: 'history-log', data: {testid: 'history-log'},
                                   on: {change: () => { this.histLog = this.histLogBox.checked; this.render_history(); }}});
    this.histLogNote = el('span', {class: 'muted small', id: 'history-log-note'});
    this.histSummary = el('span', {class: 'muted', id: 'history-summary'});
    this.histNote = el('div', {class: 'note', id: 'history-note', hidden: true});
    this.histChart = this.chartBox('history', 440);
    U.append(panel, [el('div', {class: 'toolbar'}, el('label', {class: 'check'}, this.histLogBox, 'log scale'),
                        this.histLogNote, el('span', {class: 'spacer'}), this.histSummary),
                     el('div', {class: 'panel-status', text: 'Loading history…'}), this.histChart, this.histNote]);
  };
  SP.render_history = function () {
    const h = this.data.history;
    if (!h) return;
    const r = P.history(h, {...this.objectiveSpec(), log: this.histLog});
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
  };

  // ---- Pareto front
  SP.objectives = function () {
    return (this.detail.metrics || []).filter((m) => m.threshold === null);
  };
  SP.build_pareto = function (panel) {
    const select = (id, label) => el('select', {class: 'input input-small', id, 'aria-label': label,
                                                on: {change: () => this.render_pareto()}});
    this.paretoX = select('pareto-x', 'x objective');
    this.paretoY = select('pareto-y', 'y objective');
    this.paretoNote = el('span', {class: 'muted', id: 'pareto-note', data: {testid: 'pareto-note'}});
    this.paretoChart = this.chartBox('pareto', 460);
    U.append(panel, [el('div', {class: 'toolbar'}, el('label', {text: 'x '}), this.paretoX,
                        el('label', {text: ' y '}), this.paretoY, el('span', {class: 'spacer'}), this.paretoNote),
                     el('div', {class: 'panel-status', text: 'Loading the front…'}), this.paretoChart]);
  };
  SP.render_pareto = function () {
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
  };

  // ---- Parallel coordinates
  SP.build_parcoords = function (panel) {
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
  };
  SP.render_parcoords = function () {
    const pts = this.data.points;
    if (!pts) return;
    const r = P.parcoords(pts, this.detail.params || [], {...this.objectiveSpec(), topPct: this.topPct});
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
  };
  SP.onBrush = function (chart) {
    if (this.restoringBrush) return;
    const brush = {};
    chart.getModel().eachComponent('parallelAxis', (axisModel) => {
      const iv = axisModel.activeIntervals || [];
      if (iv.length) brush[axisModel.id] = iv.map((x) => x.slice());
    });
    this.brush = brush;
    this.setWhere(this.brushToWhere(brush));
    this.renderParcoordsStatus();
  };
  SP.brushToWhere = function (brush) {
    if (!this.pc) return null;
    const where = {};
    for (const [id, intervals] of Object.entries(brush)) {
      const axis = this.pc.axes.find((a) => a.id === id);
      if (!axis) continue;
      const lo = Math.min(...intervals.map((i) => Math.min(i[0], i[1])));
      const hi = Math.max(...intervals.map((i) => Math.max(i[0], i[1])));
      if (id === 'objective') {  // the table's value is the first objective's
        if (this.objective) where.metrics = {[this.objective]: [lo, hi]}; else where.value = [lo, hi];
        continue;
      }
      where.params = where.params || {};
      if (axis.type === 'category') {
        where.params[axis.name] = axis.data.filter((_, k) => intervals.some((i) => Math.min(i[0], i[1]) <= k && k <= Math.max(i[0], i[1])));
      } else {
        where.params[axis.name] = [lo, hi];
      }
    }
    return Object.keys(where).length ? where : null;
  };
  SP.inWhere = function (row) {
    const w = this.where;
    if (!w) return true;
    const value = w.value || (w.metrics && this.objective && w.metrics[this.objective]);
    if (value && !(row.value >= value[0] && row.value <= value[1])) return false;
    const names = this.data.points.params;
    for (const [name, r] of Object.entries(w.params || {})) {
      const v = row.x[names.indexOf(name)];
      if (v === null || v === undefined) return false;  // inactive here
      if (typeof r[0] === 'string' || r.length === 0) { if (!r.includes(v)) return false; } else if (!(v >= r[0] && v <= r[1])) return false;
    }
    return true;
  };
  SP.renderParcoordsStatus = function () {
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
              this.where ? [' ', el('a', {href: this.viewHref('trials'), id: 'parcoords-to-table', text: 'show in the table'}),
                            ' ', el('button', {class: 'btn btn-small', type: 'button', id: 'parcoords-clear',
                                               text: 'Clear selection', on: {click: () => this.clearBrush()}})] : null);
    P.setDebug('parcoords', Object.assign({}, this.pc.debug, {selected, where: this.where}));
  };

  // ---- Slice
  SP.build_slice = function (panel) {
    this.sliceChart = this.chartBox('slice', 300);
    U.append(panel, [el('div', {class: 'toolbar'}, el('span', {class: 'muted',
                        text: 'The objective against each parameter; colour is the trial number (darker = later).'})),
                     el('div', {class: 'panel-status', text: 'Loading points…'}), this.sliceChart]);
  };
  SP.render_slice = function () {
    const pts = this.data.points;
    if (!pts) return;
    const width = this.sliceChart.clientWidth || 1200;
    const r = P.slice(pts, this.detail.params || [], this.objectiveSpec(), width);
    P.largeScatter(r.option, 'max');
    this.drawChart('slice', this.sliceChart, r, r.height);
  };

  // ---- Contour
  SP.build_contour = function (panel) {
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
  };
  SP.render_contour = function () {
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
                                                       ...this.objectiveSpec()});
    this.drawChart('contour', this.contourChart, r);
  };

  // ---- Learning curves
  // Which curves: the best N and the running ones, all, stopped early,
  // running, or the trials the table shows now (its filter, brush, page).
  SP.curvesQuery = function () {
    const q = {select: this.curveSelect, max_trials: this.curveN};
    if (this.curveSelect === 'selected') {
      const rows = (this.data.trials && this.data.trials.trials) || [];
      q.trials = rows.map((t) => t.number).join(',') || '0';
    }
    return q;
  };
  SP.build_curves = function (panel) {
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
  };
  SP.render_curves = function () {
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
  };

  // ---- Importance
  SP.build_importance = function (panel) {
    this.impNote = el('div', {class: 'muted', id: 'importance-note'});
    this.impChart = this.chartBox('importance', 260);
    U.append(panel, [el('div', {class: 'toolbar'}, this.impNote),
                     el('div', {class: 'panel-status', text: 'Loading importance…'}), this.impChart]);
  };
  // The runs of the ranking whose 90% intervals chain by overlapping: the
  // parameters in one cannot be told apart (at least two in each).
  const overlaps = (a, b) => a.lower <= b.upper && b.lower <= a.upper;
  function indistinctGroups(ranked) {
    const groups = [];
    let run = ranked.slice(0, 1);
    for (let i = 1; i <= ranked.length; i++) {
      if (i < ranked.length && run.some((x) => overlaps(x, ranked[i]))) { run.push(ranked[i]); continue; }
      if (run.length > 1) groups.push(run.map((x) => x.param));
      run = ranked.slice(i, i + 1);
    }
    return groups;
  }
  // The server's note (too few trials), or, past that count, one while the
  // top parameter's interval overlaps the next one's.
  function rankingNote(imp, ranked) {
    if (imp.note) return imp.note;
    if (ranked.length < 2 || !overlaps(ranked[0], ranked[1])) return '';
    const pct = (v) => (v * 100).toFixed(1) + '%';
    return `Too few trials to rank the parameters: ${ranked[0].param}'s 90% interval ` +
        `(${pct(ranked[0].lower)}–${pct(ranked[0].upper)}) overlaps ${ranked[1].param}'s ` +
        `(${pct(ranked[1].lower)}–${pct(ranked[1].upper)}), so either may matter more; more trials narrow the intervals.`;
  }
  const WARN = {color: '#7a4b00', background: '#fff4d6', padding: '4px 8px', borderRadius: '4px', margin: '0 0 4px'};
  SP.render_importance = function () {
    const imp = this.data.importance;
    if (!imp) return;
    const trials = imp.trials || 0;
    const about = trials < 2 ? '' : ` The best ${imp.top_trials} of them are the top set; the importances sum to 1.` +
        (imp.bootstrap_resamples ? ` Whiskers: 90% interval over ${imp.bootstrap_resamples} bootstrap resamples of the trials.` : '');
    const ranked = (imp.importances || []).filter((x) => x.lower !== undefined && x.upper !== undefined)
        .sort((a, b) => b.importance - a.importance);
    const note = trials < 2 ? imp.note : rankingNote(imp, ranked);
    const groups = trials < 2 ? [] : indistinctGroups(ranked);
    U.replace(this.impNote,
              note ? el('div', {id: 'importance-too-few', role: 'note', text: note, style: WARN}) : null,
              groups.length ? el('div', {id: 'importance-indistinct', role: 'note', style: WARN,
                                         text: 'Not distinguishable (their 90% intervals overlap): ' +
                                               groups.map((g) => g.join(', ')).join('; ') + '.'}) : null,
              'Method ', el('strong', {text: imp.method}), ` over ${trials} finished trial${trials === 1 ? '' : 's'} with a value.` +
              about + conditionalNote(imp.importances || []));
    P.setDebug('importance_note', {note, indistinct: groups});
    const r = P.importance(imp);
    this.drawChart('importance', this.impChart, r, r.height);
  };

  // ---- Timeline
  SP.build_timeline = function (panel) {
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
  };
  SP.render_timeline = function () {
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
  };

  // ---- Config
  SP.build_config = function (panel) {
    this.configBox = el('div', {class: 'config-grid'});
    U.append(panel, [this.configBox]);
  };
  SP.render_config = function () {
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
  };
})();

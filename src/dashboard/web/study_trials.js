// hptune dashboard: the study page's Trials tab: the table of trials with its
// paging, state filter and column picker, and the filter the parallel
// coordinates' brush sets (its sort and range filters: trials_view.js). Loaded after study.js (it
// adds the tab's methods to StudyPage).
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const app = () => window.hptune.app;

  const TRIAL_STATES = ['REQUESTED', 'ACTIVE', 'STOPPING', 'SUCCEEDED', 'INFEASIBLE', 'FAILED', 'CANCELLED'];

  const SP = window.hptune.StudyPage.prototype;

  // ---- Trials
  SP.trialsQuery = function (withPaging) {
    const q = {sort: this.t.sort, order: this.t.order};
    if (withPaging) { q.offset = this.t.offset; q.limit = this.t.limit; }
    if (this.t.states.size) q.states = Array.from(this.t.states).join(',');
    const where = this.queryWhere();
    if (Object.keys(where).length) q.where = JSON.stringify(where);
    return q;
  };
  SP.build_trials = function (panel) {
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
    U.append(panel, [
      el('div', {class: 'toolbar'}, stateBox, el('span', {class: 'spacer'}), this.colPicker,
         el('span', {class: 'muted', text: 'Export'}), this.exportCsv, this.exportJson),
      this.buildFilterBar(),
      this.brushNote,
      el('div', {class: 'table-wrap'},
         el('table', {class: 'table table-trials', id: 'trials-table', data: {testid: 'trials-table'}},
            this.trialsHead, this.trialsBody)),
      el('div', {class: 'panel-status', text: 'Loading trials…'}),
      el('div', {class: 'pager'}, this.pageInfo, el('span', {class: 'spacer'}), this.pageSize, this.prevBtn, this.nextBtn),
    ]);
  };
  SP.page = function (dir) {
    const total = (this.data.trials && this.data.trials.total) || 0;
    const next = this.t.offset + dir * this.t.limit;
    if (next < 0 || next >= total) return;
    this.t.offset = next;
    this.loadTab('trials', true).catch(A.report);
  };
  SP.trialColumns = function () {
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
    if (rows.some((t) => 'feasible' in t)) cols.push({key: 'feasible', label: 'Feasible'});
    if (rows.some((t) => 'optimal' in t)) cols.push({key: 'optimal', label: 'Optimal'});
    if (!rows.length || rows.some((t) => 'last_value' in t)) cols.push({key: 'last_value', label: 'Latest ' + this.detail.metric, cls: 'right'});
    cols.push({key: 'attempt', label: 'Attempt', cls: 'right'},
              {key: 'slot', label: 'Slot', cls: 'right'},
              {key: 'start_time', label: 'Started', sort: 'start_time'},
              {key: 'duration', label: 'Duration', sort: 'end_time', cls: 'right'},
              {key: 'reason', label: 'Reason'});
    return cols;
  };
  // Every metric besides the primary one: objectives, constraints (with
  // their threshold), then what the trainer reported besides.
  SP.metricColumns = function () {
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
  };
  // Hides or shows a column; the choice goes in the URL (tabs' links too).
  SP.toggleColumn = function (key, shown) {
    if (shown) this.hide.delete(key); else this.hide.add(key);
    this.syncUrl();
    this.render_trials();
  };
  SP.renderColumnPicker = function (cols) {
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
  };
  SP.render_trials = function () {
    const doc = this.data.trials;
    if (!doc) return;
    const all = this.trialColumns();
    this.renderColumnPicker(all);
    this.renderFilterBar();
    const cols = all.filter((c) => c.key === 'number' || !this.hide.has(c.key));
    const headRow = el('tr');
    for (const c of cols) headRow.appendChild(this.headerCell(c));
    U.replace(this.trialsHead, headRow);
    this.refocusSortedHeader();
    const best = this.detail.best ? this.detail.best.trial : null;
    const rows = doc.trials.map((t) => {
      const tr = el('tr', {class: 'clickable' + (t.number === best ? ' best-row' : '') +
                                  (t.feasible === false ? ' infeasible-row' : ''),
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
          text: this.where || this.hasFilters() || this.t.states.size ? 'No trial matches the filter.' : 'No trials yet.'})));
    }
    const from = doc.total ? doc.offset + 1 : 0, to = doc.offset + doc.trials.length;
    this.pageInfo.textContent = `${from}–${to} of ${doc.total} trial${doc.total === 1 ? '' : 's'}` +
        (this.where || this.hasFilters() || this.t.states.size ? ' (filtered)' : '');
    this.prevBtn.disabled = doc.offset <= 0;
    this.nextBtn.disabled = to >= doc.total;
    const q = this.trialsQuery(false);
    this.exportCsv.href = A.url(this.base + '/trials.csv', q);
    this.exportJson.href = A.url(this.base + '/trials.json', q);
    this.renderBrushNote();
    P.setDebug('trials', {rows: doc.trials.length, total: doc.total, offset: doc.offset,
                          columns: cols.map((c) => c.key),
                          numbers: doc.trials.map((t) => t.number), where: this.where,
                          metric_where: this.filters.metrics || null, filters: this.filters,
                          states: Array.from(this.t.states), sort: this.t.sort, order: this.t.order});
  };
  SP.trialCell = function (t, c) {
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
    if (c.key === 'feasible') {
      if (!('feasible' in t)) return el('td');
      return el('td', {class: 'nowrap', data: {feasible: String(t.feasible)}},
                t.feasible ? el('span', {class: 'muted', text: 'yes'})
                           : el('span', {class: 'chip chip-bad', text: 'breaks a constraint', title: this.brokenConstraints(t)}));
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
  };
  // The constraints a trial's final metrics break, as a sentence.
  SP.brokenConstraints = function (t) {
    const broken = (this.detail.metrics || []).filter((m) => {
      const v = (t.metrics || {})[m.metric];
      return m.threshold !== null && typeof v === 'number' && (m.goal === 'MAXIMIZE' ? v < m.threshold : v > m.threshold);
    });
    return 'breaks ' + broken.map((m) => `${m.metric} ${m.goal === 'MAXIMIZE' ? '≥' : '≤'} ${U.fmt(m.threshold)} ` +
                                         `(${U.fmt(t.metrics[m.metric])})`).join(', ');
  };
  SP.whereText = function (where) {
    const parts = [];
    for (const [name, r] of Object.entries(where.params || {})) {
      parts.push(typeof r[0] === 'string' ? `${name} ∈ {${r.join(', ')}}` : `${U.fmt(r[0])} ≤ ${name} ≤ ${U.fmt(r[1])}`);
    }
    if (where.value) parts.push(`${U.fmt(where.value[0])} ≤ ${this.detail.metric} ≤ ${U.fmt(where.value[1])}`);
    for (const [name, r] of Object.entries(where.metrics || {})) parts.push(`${U.fmt(r[0])} ≤ ${name} ≤ ${U.fmt(r[1])}`);
    return parts.join(', ');
  };
  SP.renderBrushNote = function () {
    const note = this.brushNote;
    if (!note) return;
    if (!this.where) { note.hidden = true; return; }
    note.hidden = false;
    U.replace(note, el('span', null, 'Showing only the trials selected in the ',
                       el('a', {href: this.viewHref('parcoords'), text: 'parallel coordinates'}),
                       ' plot: ', el('span', {class: 'mono', text: this.whereText(this.where)}), '. '),
              el('button', {class: 'btn btn-small', type: 'button', id: 'clear-brush', data: {testid: 'clear-brush'},
                            text: 'Clear filter', on: {click: () => this.clearBrush()}}));
  };
  SP.setWhere = function (where) {
    const before = JSON.stringify(this.where), after = JSON.stringify(where);
    this.where = where;
    if (before === after) return;
    this.t.offset = 0;
    this.stale.trials = true;
    this.renderBrushNote();
    this.renderParcoordsStatus();
    if (this.tab === 'trials') this.loadTab('trials', true).catch(A.report);
  };
  SP.clearBrush = function () {
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
  };

})();

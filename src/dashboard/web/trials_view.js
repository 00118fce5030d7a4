// hptune dashboard: the trials table's view, kept in the URL so that a link
// or a reload shows the same table: its sort (headers sortable by mouse and
// keyboard, with aria-sort), its filters (ranges of metrics and numeric
// parameters, categories of a categorical one; several at once, each a
// removable chip) and its hidden columns. Loaded after study_trials.js (adds
// methods to StudyPage); the filters go to the server as the API's `where`.
'use strict';
(function () {
  const {util: U, api: A} = window.hptune;
  const el = U.el;
  const app = () => window.hptune.app;
  const SP = window.hptune.StudyPage.prototype;

  const isRange = (r) => Array.isArray(r) && r.length === 2 && r.every((x) => typeof x === 'number' && Number.isFinite(x));
  const isCategories = (r) => Array.isArray(r) && r.length > 0 && r.every((x) => typeof x === 'string');

  // The URL's `where` (JSON text, or null): {metrics: {name: [lo, hi]},
  // params: {name: [lo, hi] | [category...]}}; anything else is dropped.
  window.hptune.parseFilters = function (text) {
    const out = {};
    let raw;
    try {
      raw = text ? JSON.parse(text) : null;
    } catch (e) {
      return out;
    }
    if (!raw || typeof raw !== 'object') return out;
    for (const [kind, ok] of [['metrics', isRange], ['params', (r) => isRange(r) || isCategories(r)]]) {
      const kept = Object.entries(raw[kind] || {}).filter(([, r]) => ok(r));
      if (kept.length) out[kind] = Object.fromEntries(kept);
    }
    return out;
  };

  SP.hasFilters = function () { return Object.keys(this.filters).length > 0; };
  SP.viewHref = function (tab) {
    return app().studyHref(this.study, tab,
                           {hide: Array.from(this.hide), sort: this.t.sort, order: this.t.order, where: this.filters});
  };
  // The URL and the tabs' links follow the view (no new history entry).
  SP.syncUrl = function () {
    history.replaceState(null, '', this.viewHref(this.tab));
    for (const a of this.tabBar.querySelectorAll('.tab')) a.href = this.viewHref(a.dataset.tab);
  };
  // The filters and the parallel coordinates' brush, as the API's `where`.
  SP.queryWhere = function () {
    const brush = this.where || {};
    const where = {};
    const params = Object.assign({}, brush.params || {}, this.filters.params || {});
    if (Object.keys(params).length) where.params = params;
    const metrics = Object.assign({}, brush.metrics || {}, this.filters.metrics || {});
    if (Object.keys(metrics).length) where.metrics = metrics;
    if (brush.value) where.value = brush.value;
    return where;
  };
  SP.reloadTrials = function () {
    this.t.offset = 0;
    this.syncUrl();
    this.loadTab('trials', true).catch(A.report);
  };

  // ---- sorting
  SP.setSort = function (sort) {
    if (this.t.sort === sort) this.t.order = this.t.order === 'asc' ? 'desc' : 'asc';
    else { this.t.sort = sort; this.t.order = 'asc'; }
    this.reloadTrials();
  };
  SP.headerCell = function (c) {
    const sorted = c.sort && this.t.sort === c.sort;
    const th = el('th', {class: (c.cls || '') + (c.sort ? ' sortable' : '') + (sorted ? ' sorted' : ''),
                         data: {sort: c.sort || '', testid: 'trials-col-' + c.key},
                         title: c.sort ? `sort by ${c.label}` + (c.param ? ` (${c.param.type.toLowerCase()}` +
                             (c.param.scale === 'UNIT_LOG_SCALE' ? ', log scale)' : ')') : '') : null},
        c.label, sorted ? el('span', {class: 'sort-arrow', text: this.t.order === 'asc' ? ' ▲' : ' ▼'}) : null);
    if (!c.sort) return th;
    th.tabIndex = 0;
    th.setAttribute('aria-sort', sorted ? (this.t.order === 'asc' ? 'ascending' : 'descending') : 'none');
    th.addEventListener('click', () => this.setSort(c.sort));
    th.addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter' && ev.key !== ' ') return;
      ev.preventDefault();
      this.focusSort = c.sort;  // the header is redrawn: keep the focus on it
      this.setSort(c.sort);
    });
    return th;
  };
  SP.refocusSortedHeader = function () {
    if (!this.focusSort) return;
    const th = Array.from(this.trialsHead.querySelectorAll('th')).find((h) => h.dataset.sort === this.focusSort);
    this.focusSort = null;
    if (th) th.focus();
  };

  // ---- filters
  SP.buildFilterBar = function () {
    const onEnter = {keydown: (ev) => { if (ev.key === 'Enter') this.addFilter(); }};
    this.fTarget = el('select', {class: 'input input-small', id: 'metric-filter-name', 'aria-label': 'what to filter on',
                                 on: {change: () => this.showFilterInputs()}});
    this.fLo = el('input', {class: 'input input-small num-input', id: 'metric-filter-lo', placeholder: 'min', on: onEnter});
    this.fHi = el('input', {class: 'input input-small num-input', id: 'metric-filter-hi', placeholder: 'max', on: onEnter});
    this.fRange = el('span', {class: 'filter-range'}, this.fLo, el('span', {class: 'muted', text: '…'}), this.fHi);
    this.fCategory = el('select', {class: 'input input-small', id: 'filter-category', 'aria-label': 'category to keep',
                                   hidden: true});
    this.chips = el('span', {class: 'filter-chips', id: 'filter-chips', data: {testid: 'filter-chips'}});
    return el('div', {class: 'toolbar'}, el('span', {class: 'metric-filter', id: 'metric-filter'},
        el('span', {class: 'muted', text: 'Filter:'}), this.fTarget, this.fRange, this.fCategory,
        el('button', {class: 'btn btn-small', type: 'button', id: 'metric-filter-apply', text: 'Add',
                      title: 'add this filter to the others', on: {click: () => this.addFilter()}}),
        el('button', {class: 'btn btn-small', type: 'button', id: 'metric-filter-clear', text: 'Clear all',
                      on: {click: () => this.clearFilters()}})), this.chips);
  };
  // What a filter may name: every metric column, then every parameter.
  SP.filterTargets = function () {
    const metrics = [this.detail.metric].concat(this.metricColumns().map((c) => c.metric));
    return metrics.map((m) => ({key: 'metric:' + m, kind: 'metrics', name: m, label: m}))
        .concat((this.detail.params || []).map((p) => ({key: 'param:' + p.name, kind: 'params', name: p.name,
                                                        label: p.name + ' (parameter)', param: p})));
  };
  SP.renderFilterBar = function () {
    if (!this.fTarget) return;
    const targets = this.filterTargets();
    if (this.fTarget.options.length !== targets.length) {
      U.replace(this.fTarget, targets.map((t) => el('option', {value: t.key, text: t.label})));
      this.showFilterInputs();
    }
    this.renderChips();
  };
  SP.showFilterInputs = function () {
    const target = this.filterTargets().find((t) => t.key === this.fTarget.value);
    const categorical = !!(target && target.param && target.param.type === 'CATEGORICAL');
    this.fRange.hidden = categorical;
    this.fCategory.hidden = !categorical;
    if (categorical) U.replace(this.fCategory, target.param.categories.map((c) => el('option', {value: c, text: c})));
  };
  SP.addFilter = function () {
    const target = this.filterTargets().find((t) => t.key === this.fTarget.value);
    if (!target) return;
    const kept = Object.assign({}, this.filters[target.kind] || {});
    if (!this.fCategory.hidden) {
      const old = isCategories(kept[target.name]) ? kept[target.name] : [];
      kept[target.name] = Array.from(new Set(old.concat([this.fCategory.value])));
    } else {
      const lo = this.fLo.value.trim(), hi = this.fHi.value.trim();
      if (lo === '' && hi === '') { app().toast('the filter needs a min or a max', 'error'); return; }
      const range = [lo === '' ? -Number.MAX_VALUE : Number(lo), hi === '' ? Number.MAX_VALUE : Number(hi)];
      if (!range.every(Number.isFinite)) { app().toast('the filter needs numbers', 'error'); return; }
      kept[target.name] = range;
      this.fLo.value = this.fHi.value = '';
    }
    this.filters = Object.assign({}, this.filters, {[target.kind]: kept});
    this.reloadTrials();
  };
  SP.removeFilter = function (kind, name) {
    const kept = Object.assign({}, this.filters[kind] || {});
    delete kept[name];
    this.filters = Object.assign({}, this.filters);
    if (Object.keys(kept).length) this.filters[kind] = kept; else delete this.filters[kind];
    this.reloadTrials();
  };
  SP.clearFilters = function () {
    this.fLo.value = this.fHi.value = '';
    this.filters = {};
    this.reloadTrials();
  };
  function rangeText(name, r) {
    if (typeof r[0] === 'string') return `${name} ∈ {${r.join(', ')}}`;
    const lo = r[0] > -Number.MAX_VALUE, hi = r[1] < Number.MAX_VALUE;
    if (lo && hi) return `${U.fmt(r[0])} ≤ ${name} ≤ ${U.fmt(r[1])}`;
    return lo ? `${name} ≥ ${U.fmt(r[0])}` : `${name} ≤ ${U.fmt(r[1])}`;
  }
  SP.renderChips = function () {
    const chips = [];
    for (const kind of ['metrics', 'params']) {
      for (const [name, r] of Object.entries(this.filters[kind] || {})) {
        const text = rangeText(name, r);
        chips.push(el('span', {class: 'chip filter-chip', data: {testid: 'filter-chip', kind, name}}, text,
            el('button', {class: 'chip-remove', type: 'button', 'aria-label': 'remove the filter ' + text, text: '×',
                          on: {click: () => this.removeFilter(kind, name)}})));
      }
    }
    U.replace(this.chips, chips);
  };
})();

// hptune dashboard: the router, the top bar and the studies list.
// Routes (hash): #/  #/study/NAME[?tab=TAB&hide&sort&order&where]  #/study/NAME/trial/N
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const App = {};
  window.hptune.app = App;

  // ---- routing
  App.parseRoute = function () {
    const raw = (location.hash || '').replace(/^#/, '') || '/';
    const qi = raw.indexOf('?');
    const path = qi >= 0 ? raw.slice(0, qi) : raw;
    const query = new URLSearchParams(qi >= 0 ? raw.slice(qi + 1) : '');
    let parts;
    try {
      parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    } catch (e) {
      return {page: 'notfound', path};
    }
    if (parts.length === 0) return {page: 'studies'};
    if (parts[0] === 'compare' && parts.length === 1) {
      return {page: 'compare', studies: (query.get('studies') || '').split(',').filter(Boolean)};
    }
    if (parts[0] === 'study' && parts.length === 2) {
      // The trials table's view, kept in the URL (trials_view.js).
      return {page: 'study', study: parts[1], tab: query.get('tab') || 'trials',
              hide: (query.get('hide') || '').split(',').filter(Boolean),
              sort: query.get('sort'), order: query.get('order'), where: query.get('where')};
    }
    if (parts[0] === 'study' && parts.length === 4 && parts[2] === 'trial' && /^\d+$/.test(parts[3])) {
      return {page: 'trial', study: parts[1], trial: Number(parts[3])};
    }
    return {page: 'notfound', path};
  };
  // view: the trials table's {hide: [keys], sort, order, where: {...}}.
  App.studyHref = (name, tab, view) => {
    const q = new URLSearchParams();
    const v = view || {};
    if (tab && tab !== 'trials') q.set('tab', tab);
    if (v.hide && v.hide.length) q.set('hide', v.hide.join(','));
    if (v.sort && v.sort !== 'number') q.set('sort', v.sort);
    if (v.order && v.order !== 'asc') q.set('order', v.order);
    if (v.where && Object.keys(v.where).length) q.set('where', JSON.stringify(v.where));
    const qs = q.toString();
    return '#/study/' + encodeURIComponent(name) + (qs ? '?' + qs : '');
  };
  App.trialHref = (name, n) => '#/study/' + encodeURIComponent(name) + '/trial/' + n;

  // ---- top bar
  App.setCrumbs = function (items) {
    const nav = document.getElementById('breadcrumb');
    U.clear(nav);
    items.forEach((item, i) => {
      if (i > 0) nav.appendChild(el('span', {class: 'crumb-sep', text: '›'}));
      nav.appendChild(item.href ? el('a', {href: item.href, text: item.text, class: 'crumb'})
                                : el('span', {text: item.text, class: 'crumb current'}));
    });
    document.title = items.length > 1 ? items[items.length - 1].text + ' · hptune' : 'hptune';
  };

  function setupTopBar() {
    const live = document.getElementById('live');
    A.onStreamStatus((open) => {
      live.classList.toggle('on', open);
      live.title = open ? 'live: receiving changes from the server' : 'not connected to the event stream; retrying';
      live.querySelector('.live-text').textContent = open ? 'live' : 'offline';
    });
    const loading = document.getElementById('loading');
    let timer = null;
    A.onLoading((list) => {
      // Show only requests that take a moment, so quick refreshes do not blink.
      clearTimeout(timer);
      const show = () => {
        const slow = list.filter((e) => Date.now() - e.start >= 250);
        if (!slow.length) { loading.hidden = true; return; }
        const bytes = slow.reduce((s, e) => s + e.received, 0);
        loading.hidden = false;
        loading.querySelector('.loading-text').textContent =
            `loading ${slow.map((e) => e.label).join(', ')}` + (bytes ? ` · ${U.fmtBytes(bytes)}` : '');
      };
      show();
      if (list.length) timer = setTimeout(show, 260);
    });
    A.onError((e) => App.toast(e.message, 'error'));
  }

  App.toast = function (message, kind) {
    const box = document.getElementById('toasts');
    const t = el('div', {class: 'toast ' + (kind || ''), role: 'status', text: message});
    box.appendChild(t);
    setTimeout(() => t.remove(), kind === 'error' ? 8000 : 4000);
  };

  // ---- the studies list
  const STUDY_COLUMNS = [
    {key: 'pick', label: '', sortable: false},
    {key: 'name', label: 'Study'},
    {key: 'job', label: 'Job'},
    {key: 'job_state', label: 'Job state'},
    {key: 'state', label: 'Study state'},
    {key: 'progress', label: 'Progress'},
    {key: 'active', label: 'Active', cls: 'right'},
    {key: 'best', label: 'Best value', cls: 'right'},
    {key: 'goal', label: 'Goal'},
    {key: 'labels', label: 'Labels', sortable: false},
    {key: 'created', label: 'Created'},
  ];

  function studySortValue(s, key) {
    switch (key) {
      case 'name': return s.name;
      case 'job': return s.job ? s.job.id : null;
      case 'job_state': return s.job ? s.job.state : null;
      case 'state': return s.state;
      case 'progress': return s.max_trials ? U.finishedCount(s.counts) / s.max_trials : U.finishedCount(s.counts);
      case 'active': return (s.counts.ACTIVE || 0) + (s.counts.STOPPING || 0);
      case 'best': return s.best ? s.best.value : null;
      case 'goal': return s.goal;
      case 'created': return U.parseTime(s.create_time);
      default: return null;
    }
  }

  class StudiesPage {
    constructor() {
      this.studies = null;
      this.sort = {key: 'created', dir: -1};
      this.filter = '';
      this.picked = new Set();  // studies ticked for comparison
      this.compareBtn = el('a', {class: 'btn btn-small', id: 'compare-studies', data: {testid: 'compare-studies'}});
      this.refresher = new U.Coalescer(() => this.load(false), 500);
      App.setCrumbs([{text: 'Studies'}]);
      this.filterInput = el('input', {type: 'search', id: 'studies-filter', class: 'input',
                                      placeholder: 'Filter by name, job or label…', 'aria-label': 'filter studies',
                                      data: {testid: 'studies-filter'},
                                      on: {input: () => { this.filter = this.filterInput.value; this.render(); }}});
      this.count = el('span', {class: 'muted', id: 'studies-count'});
      this.head = el('thead');
      this.body = el('tbody');
      this.status = el('div', {class: 'panel-status', id: 'studies-status', text: 'Loading studies…'});
      this.el = el('div', {class: 'page page-studies'},
          el('div', {class: 'page-head'},
              el('h1', {text: 'Studies'}), this.count, el('span', {class: 'spacer'}),
              window.hptune.views.progressLegend(null, 'studies-progress-legend'), this.compareBtn, this.filterInput),
          el('div', {class: 'card table-card'},
              el('div', {class: 'table-wrap'},
                  el('table', {class: 'table', id: 'studies-table', data: {testid: 'studies-table'}}, this.head, this.body)),
              this.status));
      this.renderHead();
      this.renderCompare();
      this.unsubscribe = A.onChange(() => this.refresher.trigger());
      this.load(true);
    }
    async load(first) {
      const res = await A.get('/api/studies', null, {label: 'studies', quiet: !first});
      this.studies = res.studies || [];
      this.render();
    }
    renderHead() {
      const tr = el('tr');
      for (const col of STUDY_COLUMNS) {
        const sortable = col.sortable !== false;
        const active = this.sort.key === col.key;
        const th = el('th', {class: (col.cls || '') + (sortable ? ' sortable' : '') + (active ? ' sorted' : ''),
                             data: {col: col.key, testid: 'studies-col-' + col.key},
                             title: sortable ? 'sort by ' + col.label.toLowerCase() : null},
            col.label, active ? el('span', {class: 'sort-arrow', text: this.sort.dir > 0 ? ' ▲' : ' ▼'}) : null);
        if (sortable) {
          th.addEventListener('click', () => {
            if (this.sort.key === col.key) this.sort.dir = -this.sort.dir;
            else this.sort = {key: col.key, dir: col.key === 'name' || col.key === 'job' ? 1 : -1};
            this.renderHead();
            this.render();
          });
        }
        tr.appendChild(th);
      }
      U.replace(this.head, tr);
    }
    render() {
      if (!this.studies) return;
      const f = this.filter.trim().toLowerCase();
      let list = this.studies.filter((s) => {
        if (!f) return true;
        const hay = [s.name, s.job ? s.job.id : '',
                     ...Object.entries((s.job && s.job.labels) || {}).map(([k, v]) => `${k}=${v}`)].join(' ').toLowerCase();
        return f.split(/\s+/).every((w) => hay.includes(w));
      });
      const {key, dir} = this.sort;
      list = list.slice().sort((a, b) => {
        const va = studySortValue(a, key), vb = studySortValue(b, key);
        if (va === null && vb === null) return a.name.localeCompare(b.name);
        if (va === null) return 1;
        if (vb === null) return -1;
        const c = typeof va === 'string' ? va.localeCompare(vb) : va - vb;
        return c !== 0 ? c * dir : a.name.localeCompare(b.name);
      });
      this.count.textContent = f ? `${list.length} of ${this.studies.length}` : `${this.studies.length}`;
      const rows = list.map((s) => this.row(s));
      U.replace(this.body, rows);
      this.renderCompare();
      this.status.hidden = list.length > 0;
      this.status.textContent = this.studies.length ? 'No study matches the filter.' :
          'No studies yet. Submit a job with `hptune jobs submit JOB --config job.yaml`.';
      P.setDebug('studies', {rows: list.length, total: this.studies.length, names: list.map((s) => s.name)});
    }
    // Compare: the ticked studies, 2 to views.MAX_COMPARED of them.
    renderCompare() {
      const n = this.picked.size;
      this.compareBtn.textContent = `Compare (${n})`;
      this.compareBtn.title = n < 2 ? 'tick two or more studies to compare them' : 'their history and EDF in one plot';
      this.compareBtn.classList.toggle('disabled', n < 2);
      if (n < 2) this.compareBtn.removeAttribute('href');
      else this.compareBtn.href = window.hptune.views.compareHref(Array.from(this.picked));
      for (const box of this.body.querySelectorAll('input[data-testid=compare-pick]')) {
        box.disabled = !box.checked && n >= window.hptune.views.MAX_COMPARED;
      }
    }
    pickBox(name) {
      const box = el('input', {type: 'checkbox', value: name, checked: this.picked.has(name), 'aria-label': 'compare ' + name,
                               data: {testid: 'compare-pick'},
                               on: {change: () => {
                                 if (box.checked) this.picked.add(name); else this.picked.delete(name);
                                 this.renderCompare();
                               }}});
      return box;
    }
    row(s) {
      const counts = s.counts || {};
      const labels = Object.entries((s.job && s.job.labels) || {});
      const active = (counts.ACTIVE || 0) + (counts.STOPPING || 0);
      return el('tr', {data: {study: s.name, testid: 'study-row'}},
          el('td', null, this.pickBox(s.name)),
          el('td', null, el('a', {href: App.studyHref(s.name), class: 'strong', text: s.name, data: {testid: 'study-link'}})),
          el('td', {class: 'mono'}, s.job ? s.job.id : el('span', {class: 'muted', text: 'no job'})),
          el('td', null, s.job ? U.badge(s.job.state, s.job.error || null) : ''),
          el('td', null, U.badge(s.state)),
          el('td', null, window.hptune.views.progressBar(s)),
          el('td', {class: 'right'}, active ? el('span', {class: 'active-count', text: String(active)}) :
                                             el('span', {class: 'muted', text: '0'})),
          el('td', {class: 'right', data: {testid: 'study-best'}}, s.optimal !== null && s.optimal !== undefined
              ? el('a', {href: App.studyHref(s.name, 'pareto'), class: 'strong', title: 'trials on the Pareto front',
                         text: `${s.optimal} optimal`})
              : s.best ? [U.num(s.best.value, 'strong'),
                          el('a', {class: 'muted small', href: App.trialHref(s.name, s.best.trial), text: ` #${s.best.trial}`})]
              : el('span', {class: 'muted', text: '—'})),
          el('td', null, el('span', {class: 'goal', text: s.goal === 'MAXIMIZE' ? '↑ max ' : '↓ min '},
                            el('span', {class: 'muted', text: s.metric}))),
          el('td', null, labels.map(([k, v]) => el('span', {class: 'chip', text: `${k}=${v}`}))),
          el('td', {class: 'nowrap muted'}, U.fmtTime(s.create_time)));
    }
    update() {}
    destroy() { this.refresher.stop(); this.unsubscribe(); }
  }

  class NotFoundPage {
    constructor(route) {
      App.setCrumbs([{text: 'Studies', href: '#/'}, {text: 'Not found'}]);
      this.el = el('div', {class: 'page'}, el('div', {class: 'card empty'},
          el('h2', {text: 'No such page'}), el('p', null, `“${route.path}” is not a page of this dashboard. `,
              el('a', {href: '#/', text: 'Back to the studies'}))));
    }
    update() {}
    destroy() {}
  }

  // ---- page switching
  let current = null, currentKey = null;
  function route() {
    const r = App.parseRoute();
    const key = r.page === 'study' ? 'study:' + r.study : r.page === 'trial' ? `trial:${r.study}:${r.trial}` : r.page;
    if (current && key === currentKey) { current.update(r); return; }
    if (current) {
      try { current.destroy(); } catch (e) { A.report(e); }
    }
    P.disposeAll();
    window.hptuneDebug = {renders: 0, page: r.page};
    const main = document.getElementById('main');
    try {
      if (r.page === 'studies') current = new StudiesPage();
      else if (r.page === 'study') current = new window.hptune.StudyPage(r);
      else if (r.page === 'trial') current = new window.hptune.TrialPage(r);
      else if (r.page === 'compare') current = new window.hptune.ComparePage(r);
      else current = new NotFoundPage(r);
    } catch (e) {
      A.report(e);
      current = new NotFoundPage({path: location.hash});
    }
    currentKey = key;
    U.replace(main, current.el);
    window.scrollTo(0, 0);
    if (current.mounted) current.mounted();
  }

  window.addEventListener('error', (ev) => App.toast('error: ' + ev.message, 'error'));
  window.addEventListener('unhandledrejection', (ev) => A.report(ev.reason));

  function start() {
    setupTopBar();
    A.session().then((s) => {
      document.getElementById('version').textContent = s.version ? 'v' + s.version : '';
      if (s.read_only) document.getElementById('readonly').hidden = false;
      A.connectEvents();
    }).catch(A.report);
    window.addEventListener('hashchange', route);
    route();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();

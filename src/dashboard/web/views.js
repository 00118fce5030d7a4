// hptune dashboard: the comparison views. The progress bar split by trial
// state, the EDF and rank tabs of the study page, and the page comparing
// several studies (#/compare?studies=A,B): their best so far and EDFs in one
// plot each. Loaded after study.js (it adds the tabs' methods to StudyPage).
'use strict';
(function () {
  const {util: U, api: A, plots: P} = window.hptune;
  const el = U.el;
  const V = {};
  window.hptune.views = V;
  const app = () => window.hptune.app;

  // Each trial in exactly one state (the server's "progress"), in the bar's
  // order; failed and cancelled trials are finished, but never green.
  V.PROGRESS = [
    {key: 'SUCCEEDED', label: 'succeeded', color: '#2e9d57'},
    {key: 'STOPPED_EARLY', label: 'stopped early', color: '#e8871e'},
    {key: 'INFEASIBLE', label: 'infeasible', color: '#8a4fbf'},
    {key: 'FAILED', label: 'failed', color: '#d64545'},
    {key: 'CANCELLED', label: 'cancelled', color: '#5f6b7a'},
    {key: 'RUNNING', label: 'running', color: '#2f6fdb'},
    {key: 'PENDING', label: 'pending', color: '#c9d1db'},
  ];
  V.MAX_COMPARED = 8;

  function progressTitle(progress, max) {
    const parts = V.PROGRESS.filter((s) => progress[s.key]).map((s) => `${progress[s.key]} ${s.label}`);
    return `${progress.finished} of ${max} trials finished` + (parts.length ? ': ' + parts.join(', ') : '');
  }

  // A bar of max(maxTrials, trials) with one segment per state.
  V.progressBar = function (summary, id) {
    const p = summary.progress || {finished: 0};
    const max = summary.max_trials || 0;
    const total = V.PROGRESS.reduce((n, s) => n + (p[s.key] || 0), 0);
    const scale = Math.max(max, total, 1);
    const segments = V.PROGRESS.filter((s) => p[s.key]).map((s) => el('div', {
      class: 'progress-seg', title: `${p[s.key]} ${s.label}`,
      data: {state: s.key, count: String(p[s.key])},
      style: {width: (100 * p[s.key] / scale) + '%', background: s.color}}));
    return el('div', {class: 'progress-cell', id, data: {testid: 'progress'}, title: progressTitle(p, max)},
        el('div', {class: 'progress progress-states'}, segments),
        el('span', {class: 'progress-text', text: `${p.finished}/${max}`}));
  };

  // The colours' legend; with `progress`, each state's count (only those
  // that occur).
  V.progressLegend = function (progress, id) {
    const states = progress ? V.PROGRESS.filter((s) => progress[s.key]) : V.PROGRESS;
    return el('div', {class: 'legend progress-legend', id, data: {testid: 'progress-legend'}},
        states.map((s) => el('span', {class: 'legend-item', data: {state: s.key}},
            el('span', {class: 'swatch', style: {background: s.color, borderColor: s.color}}),
            progress ? `${progress[s.key]} ${s.label}` : s.label)));
  };

  // ---- plots
  const PALETTE = ['#2f6fdb', '#e8871e', '#2e9d57', '#d64545', '#8a4fbf', '#16a2b8', '#b8860b', '#5f6b7a'];
  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  const base = () => ({animation: false, color: PALETTE,
                       textStyle: {color: P.COLORS.text, fontSize: 12, fontFamily: FONT},
                       tooltip: {confine: true, textStyle: {fontSize: 12}}});
  const metricsOf = (list) => Array.from(new Set(list.map((x) => x.metric)));

  // list: [{name, metric, goal, edf}]: one step line per study. F jumps at
  // each value: after it for MINIMIZE (#{v <= y}), before it for MAXIMIZE
  // (#{v >= y}).
  V.edfPlot = function (list) {
    const series = list.map((s) => ({
      type: 'line', name: s.name, data: s.edf.points, showSymbol: s.edf.points.length <= 60, symbolSize: 4,
      step: s.goal === 'MAXIMIZE' ? 'start' : 'end', lineStyle: {width: 2}}));
    const option = Object.assign(base(), {
      grid: {left: 72, right: 36, top: 52, bottom: 56},
      legend: {top: 8, left: 'center', type: 'scroll'},
      tooltip: {trigger: 'item', confine: true, formatter: (p) =>
        `${p.seriesName}<br>${U.fmt(p.value[1] * 100)}% of its trials reached ${U.fmt(p.value[0])} or better`},
      xAxis: {type: 'value', name: metricsOf(list).join(' / '), nameLocation: 'middle', nameGap: 32, scale: true,
              axisLabel: {formatter: (v) => U.fmt(v)}, splitLine: {lineStyle: {color: P.COLORS.grid}}},
      yAxis: {type: 'value', min: 0, max: 1, name: 'fraction of trials', nameLocation: 'middle', nameGap: 48,
              splitLine: {lineStyle: {color: P.COLORS.grid}}},
      series,
    });
    return {option, debug: {series: list.map((s) => ({name: s.name, points: s.edf.points.length, total: s.edf.total,
                                                      distinct: s.edf.distinct, downsampled: !!s.edf.downsampled}))}};
  };

  // list: [{name, history}]: each study's best so far against its trial number.
  V.bestPlot = function (list) {
    const series = list.map((s) => ({
      type: 'line', name: s.name, step: 'end', showSymbol: false, lineStyle: {width: 2.2},
      data: (s.history.points || []).map((p) => [p.trial, p.best])}));
    const option = Object.assign(base(), {
      grid: {left: 72, right: 36, top: 52, bottom: 56},
      legend: {top: 8, left: 'center', type: 'scroll'},
      tooltip: {trigger: 'item', confine: true},
      xAxis: {type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 32, min: 0, minInterval: 1,
              splitLine: {lineStyle: {color: P.COLORS.grid}}},
      yAxis: {type: 'value', name: 'best ' + metricsOf(list).join(' / '), nameLocation: 'middle', nameGap: 56, scale: true,
              axisLabel: {formatter: (v) => U.fmt(v)}, splitLine: {lineStyle: {color: P.COLORS.grid}}},
      series,
    });
    return {option, debug: {series: series.map((s) => ({name: s.name, points: s.data.length}))}};
  };

  // The slice plots, coloured by rank (1 = best) instead of trial number.
  V.rankPlot = function (pts, params, o, width) {
    const r = P.slice(pts, params, o, width);
    const rank = new Map((pts.trials || []).map((t) => [t.trial, t.rank]));
    for (const s of r.option.series) {
      s.data = s.data.map((d) => [d[0], d[1], d[2], d.length > 3 ? d[3] : null, rank.get(d[2])]);
    }
    const worst = Math.max(2, ...(pts.trials || []).map((t) => t.rank));
    r.option.visualMap = {type: 'continuous', dimension: 4, min: 1, max: worst, orient: 'horizontal', left: 'center', top: 0,
                          itemWidth: 12, itemHeight: 160, text: [`rank ${worst}`, 'rank 1 (best) '], calculable: false,
                          inRange: {color: P.objectiveColors('MINIMIZE')}, textStyle: {fontSize: 11}};
    r.option.tooltip.formatter = (p) => `trial ${p.value[2]} · rank ${p.value[4]}` +
        `<br>${p.seriesName} = ${p.value[3] !== null ? p.value[3] : U.fmt(p.value[0])}<br>${o.metric} = <b>${U.fmt(p.value[1])}</b>`;
    r.debug = {plots: r.debug.plots, points: r.debug.points, total: pts.total, downsampled: !!pts.downsampled,
               ranks: (pts.trials || []).map((t) => [t.trial, t.rank])};
    return r;
  };

  const drawnText = (shown, total, what) => (shown < total ? `${shown} of ${total} ${what} drawn` : `all ${total} ${what} drawn`);

  // ---- the study page's tabs
  const SP = window.hptune.StudyPage.prototype;

  SP.build_edf = function (panel) {
    this.edfSummary = el('span', {class: 'muted', id: 'edf-summary', data: {testid: 'edf-summary'}});
    this.edfChart = this.chartBox('edf', 420);
    U.append(panel, [el('div', {class: 'toolbar'},
                        el('span', {class: 'muted', text: 'The fraction of finished trials whose value reached each value or better.'}),
                        el('a', {class: 'btn btn-small', id: 'edf-compare', text: 'Compare with other studies',
                                 href: '#/compare?studies=' + encodeURIComponent(this.study)}),
                        el('span', {class: 'spacer'}), this.edfSummary),
                     el('div', {class: 'panel-status', text: 'Loading the EDF…'}), this.edfChart]);
  };
  SP.render_edf = function () {
    const edf = this.data.edf;
    if (!edf) return;
    this.edfSummary.textContent = `${edf.total} finished trials with a value · ` +
        drawnText(edf.points.length, edf.distinct, 'distinct values') +
        (edf.downsampled ? ' (an even spread by value rank; each point exact)' : '');
    const r = V.edfPlot([{name: this.study, metric: edf.metric, goal: edf.goal, edf}]);
    this.drawChart('edf', this.edfChart, r);
  };

  SP.build_rank = function (panel) {
    this.rankSummary = el('span', {class: 'muted', id: 'rank-summary', data: {testid: 'rank-summary'}});
    this.rankChart = this.chartBox('rank', 300);
    U.append(panel, [el('div', {class: 'toolbar'},
                        el('span', {class: 'muted', text: 'The objective against each parameter; colour is the trial\'s rank (1 = best, dark).'}),
                        el('span', {class: 'spacer'}), this.rankSummary),
                     el('div', {class: 'panel-status', text: 'Loading ranks…'}), this.rankChart]);
  };
  SP.render_rank = function () {
    const pts = this.data.rank;
    if (!pts) return;
    const width = this.rankChart.clientWidth || 1200;
    const r = V.rankPlot(pts, this.detail.params || [], this.objectiveSpec(), width);
    P.largeScatter(r.option, 'min');
    this.rankSummary.textContent = `ranked among ${pts.total} finished trials with a value · ` +
        drawnText(pts.trials.length, pts.total, 'trials') +
        (pts.downsampled ? ' (the best 10% and an even sample of the rest)' : '');
    this.drawChart('rank', this.rankChart, r, r.height);
  };

  // ---- the comparison page: #/compare?studies=A,B
  V.compareHref = (names) => '#/compare' + (names.length ? '?studies=' + names.map(encodeURIComponent).join(',') : '');

  class ComparePage {
    constructor(route) {
      this.names = route.studies.slice(0, V.MAX_COMPARED);
      this.all = null;
      this.destroyed = false;
      app().setCrumbs([{text: 'Studies', href: '#/'}, {text: 'Compare studies'}]);
      this.picker = el('div', {class: 'compare-picker', id: 'compare-picker', data: {testid: 'compare-picker'}});
      this.status = el('div', {class: 'panel-status', id: 'compare-status', text: 'Loading…'});
      this.bestSummary = el('div', {class: 'muted', id: 'compare-best-summary'});
      this.edfSummary = el('div', {class: 'muted', id: 'compare-edf-summary'});
      this.bestChart = el('div', {class: 'chart', id: 'chart-compare-best', style: {height: '400px'}});
      this.edfChart = el('div', {class: 'chart', id: 'chart-compare-edf', style: {height: '400px'}});
      this.el = el('div', {class: 'page page-compare'},
          el('div', {class: 'page-head'}, el('h1', {text: 'Compare studies'}),
             el('span', {class: 'muted', text: `pick up to ${V.MAX_COMPARED}`})),
          el('section', {class: 'card'}, this.picker),
          this.status,
          el('section', {class: 'card panel'}, el('h3', {text: 'Best so far'}), this.bestSummary, this.bestChart),
          el('section', {class: 'card panel'}, el('h3', {text: 'Empirical distribution (EDF)'}), this.edfSummary,
             this.edfChart));
      this.loadStudies().catch(A.report);
      this.load().catch(A.report);
    }
    update(route) {
      this.names = route.studies.slice(0, V.MAX_COMPARED);
      this.renderPicker();
      this.load().catch(A.report);
    }
    destroy() { this.destroyed = true; }
    async loadStudies() {
      const res = await A.get('/api/studies', null, {label: 'studies'});
      if (this.destroyed) return;
      this.all = (res.studies || []).map((s) => s.name).sort();
      this.renderPicker();
    }
    renderPicker() {
      if (!this.all) return;
      const chosen = new Set(this.names);
      const full = chosen.size >= V.MAX_COMPARED;
      U.replace(this.picker, this.all.map((name) => {
        const box = el('input', {type: 'checkbox', value: name, checked: chosen.has(name),
                                 disabled: full && !chosen.has(name), data: {testid: 'compare-' + name},
                                 on: {change: () => this.toggle(name, box.checked)}});
        return el('label', {class: 'check'}, box, name);
      }));
    }
    // The choice goes in the URL: a link or a reload shows the same plots.
    toggle(name, on) {
      const names = this.names.filter((n) => n !== name);
      if (on) names.push(name);
      location.hash = V.compareHref(names);
    }
    async load() {
      if (!this.names.length) {
        this.status.hidden = false;
        this.status.textContent = 'Pick the studies to compare.';
        P.setDebug('compare', {studies: []});
        return;
      }
      this.status.hidden = false;
      this.status.classList.remove('error');
      this.status.textContent = 'Loading…';
      let doc;
      try {
        doc = await A.get('/api/compare', {studies: this.names.join(',')}, {label: 'comparison'});
      } catch (e) {
        if (e instanceof A.ApiError) {
          this.status.classList.add('error');
          this.status.textContent = 'Cannot compare: ' + e.message;
        }
        throw e;
      }
      if (this.destroyed) return;
      this.status.hidden = true;
      this.render(doc.studies);
    }
    render(list) {
      this.bestSummary.textContent = list.map((s) => `${s.name}: ` +
          drawnText((s.history.points || []).length, s.history.total, 'trials')).join(' · ');
      this.edfSummary.textContent = list.map((s) => `${s.name}: ${s.edf.total} trials, ` +
          drawnText(s.edf.points.length, s.edf.distinct, 'values')).join(' · ') +
          (metricsOf(list).length > 1 ? ' · the studies have different objectives' : '');
      const best = V.bestPlot(list), edf = V.edfPlot(list);
      for (const [name, box, r] of [['compare-best', this.bestChart, best], ['compare-edf', this.edfChart, edf]]) {
        const chart = P.get(name) && P.get(name).getDom() === box ? P.get(name) : P.init(name, box);
        box.dataset.file = name;
        chart.setOption(P.interactive(name, r.option, chart), {notMerge: true});
      }
      P.setDebug('compare', {studies: list.map((s) => s.name), best: best.debug.series, edf: edf.debug.series});
    }
  }
  window.hptune.ComparePage = ComparePage;
})();

// hptune dashboard: ECharts options for every plot. Each builder returns
// {option, debug}: debug is what tests read from window.hptuneDebug.
'use strict';
(function () {
  const U = window.hptune.util;
  const P = {};

  P.COLORS = {
    SUCCEEDED: '#2e9d57', FAILED: '#d64545', STOPPED: '#e8871e', ACTIVE: '#2f6fdb',
    STOPPING: '#e8b01e', INFEASIBLE: '#8a4fbf', CANCELLED: '#9aa3ad', REQUESTED: '#9aa3ad',
    best: '#2e9d57', point: '#2f6fdb', grid: '#e8ebef', text: '#3a4452', muted: '#7b8594',
  };
  // Viridis, better = dark.
  const VIRIDIS = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'];
  P.objectiveColors = (goal) => (goal === 'MAXIMIZE' ? VIRIDIS.slice().reverse() : VIRIDIS.slice());

  const FONT = {fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'};
  const base = () => ({
    animation: false,
    textStyle: Object.assign({color: P.COLORS.text, fontSize: 12}, FONT),
    tooltip: {confine: true, textStyle: {fontSize: 12}},
  });

  // ---- charts' lifecycle
  const charts = new Map();
  P.init = function (name, container) {
    P.dispose(name);
    const chart = echarts.init(container, null, {renderer: 'canvas'});
    charts.set(name, chart);
    window.hptuneCharts = window.hptuneCharts || {};
    window.hptuneCharts[name] = chart;
    return chart;
  };
  P.get = (name) => charts.get(name);
  P.dispose = function (name) {
    const chart = charts.get(name);
    if (chart) {
      chart.dispose();
      charts.delete(name);
      if (window.hptuneCharts) delete window.hptuneCharts[name];
    }
  };
  P.disposeAll = function () { for (const name of Array.from(charts.keys())) P.dispose(name); };
  P.resizeVisible = function () {
    for (const chart of charts.values()) {
      const dom = chart.getDom();
      if (dom && dom.offsetParent !== null) chart.resize();
    }
  };
  window.addEventListener('resize', () => P.resizeVisible());

  P.setDebug = function (key, value) {
    window.hptuneDebug = window.hptuneDebug || {};
    window.hptuneDebug[key] = value;
    window.hptuneDebug.renders = (window.hptuneDebug.renders || 0) + 1;
  };

  // ---- parameters
  P.axisKind = function (p) {
    if (p.type === 'CATEGORICAL') return 'category';
    if (p.scale === 'UNIT_LOG_SCALE' && p.min > 0) return 'log';
    return 'value';
  };
  P.paramRange = function (p) {
    if (p.type === 'DISCRETE' && Array.isArray(p.values) && p.values.length) {
      return [Math.min(...p.values), Math.max(...p.values)];
    }
    return [p.min, p.max];
  };
  function paramAxis(p, extra) {
    const kind = P.axisKind(p);
    const axis = Object.assign({name: p.name, type: kind}, extra || {});
    if (kind === 'category') {
      axis.data = (p.categories || []).slice();
    } else {
      const [lo, hi] = P.paramRange(p);
      if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) {
        axis.min = lo;
        axis.max = hi;
      } else {
        axis.scale = true;
      }
      axis.axisLabel = Object.assign({formatter: (v) => U.fmt(v)}, axis.axisLabel || {});
    }
    return axis;
  }
  P.paramAxis = paramAxis;

  function objectiveName(metric, goal) {
    return metric + (goal === 'MAXIMIZE' ? ' ↑' : ' ↓');
  }

  function valueRange(values) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) {
      if (v === null || !Number.isFinite(v)) continue;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (lo === Infinity) return [0, 1];
    if (lo === hi) return [lo - (Math.abs(lo) || 1) * 0.01, hi + (Math.abs(hi) || 1) * 0.01];
    return [lo, hi];
  }
  P.valueRange = valueRange;

  // ---- optimisation history
  P.history = function (h, o) {
    const points = h.points || [];
    const values = points.map((p) => p.value);
    const logOk = values.length > 0 && values.every((v) => v > 0);
    const log = o.log && logOk;
    // Stopped early: their own marker, apart from the completed trials.
    const scatter = points.filter((p) => !p.stopped_early).map((p) => [p.trial, p.value]);
    const stoppedPts = points.filter((p) => p.stopped_early).map((p) => [p.trial, p.value]);
    const best = points.map((p) => [p.trial, p.best]);
    const active = h.active || [];
    const failed = h.failed || [];
    const xs = points.map((p) => p.trial).concat(active, failed);
    const xmax = xs.length ? Math.max(...xs) : 1;
    const option = Object.assign(base(), {
      grid: {left: 72, right: 36, top: 52, bottom: 52},
      legend: {top: 8, left: 'center', itemGap: 18,
               data: ['trial value', 'best so far'].concat(stoppedPts.length ? ['stopped early'] : [],
                                                           active.length ? ['running'] : [], failed.length ? ['failed'] : [])},
      tooltip: {trigger: 'item', confine: true, formatter: (p) => {
        if (p.seriesName === 'failed') return `trial ${p.value[0]}: FAILED`;
        if (p.seriesName === 'running') return `trial ${p.value}: running`;
        if (p.seriesName === 'stopped early') return `trial ${p.value[0]}: stopped early<br>value: <b>${U.fmt(p.value[1])}</b>`;
        return `trial ${p.value[0]}<br>${p.seriesName}: <b>${U.fmt(p.value[1])}</b>`;
      }},
      xAxis: {type: 'value', name: 'trial', nameLocation: 'middle', nameGap: 30, min: 0,
              max: xmax < 10 ? xmax + 1 : Math.ceil((xmax + 1) / 5) * 5, minInterval: 1, splitLine: {lineStyle: {color: P.COLORS.grid}}},
      yAxis: [
        {type: log ? 'log' : 'value', name: o.metric, nameLocation: 'middle', nameGap: 56, scale: true,
         axisLabel: {formatter: (v) => U.fmt(v)}, splitLine: {lineStyle: {color: P.COLORS.grid}}},
        {type: 'value', min: 0, max: 1, show: false},
      ],
      series: [
        {name: 'trial value', type: 'scatter', data: scatter, symbolSize: 7,
         large: true, largeThreshold: P.LARGE_POINTS,
         itemStyle: {color: P.COLORS.point, opacity: 0.75}, z: 3},
        {name: 'stopped early', type: 'scatter', data: stoppedPts, symbol: 'diamond', symbolSize: 8,
         large: true, largeThreshold: P.LARGE_POINTS,
         itemStyle: {color: P.COLORS.STOPPED, opacity: 0.85}, z: 3},
        {name: 'best so far', type: 'line', step: 'end', data: best, showSymbol: false,
         lineStyle: {color: P.COLORS.best, width: 2.2}, itemStyle: {color: P.COLORS.best}, z: 4},
        {name: 'running', type: 'line', data: [], itemStyle: {color: P.COLORS.ACTIVE},
         lineStyle: {color: P.COLORS.ACTIVE, type: 'dashed'},
         markLine: {symbol: 'none', silent: false, animation: false,
                    lineStyle: {color: 'rgba(47,111,219,0.55)', type: 'dashed', width: 1.5},
                    // Side by side, labels would overlap ("trial 37trial 38"):
                    // the legend says "running" and the tooltip the trial.
                    label: {show: false}, tooltip: {formatter: (p) => 'trial ' + p.value + ': running'},
                    data: active.map((t) => ({xAxis: t}))}},
        {name: 'failed', type: 'scatter', yAxisIndex: 1, data: failed.map((t) => [t, 0.03]),
         symbol: 'path://M0,0 L10,10 M10,0 L0,10', symbolSize: 9,
         itemStyle: {color: P.COLORS.FAILED, borderColor: P.COLORS.FAILED, borderWidth: 2}, z: 5},
      ],
    });
    return {option, logOk, debug: {points: scatter.length + stoppedPts.length, stopped: stoppedPts.map((p) => p[0]),
                                   running_labels: false, best: best.length, active: active.length,
                                   failed: failed.length, log, downsampled: !!h.downsampled, total: h.total}};
  };

  // ---- parallel coordinates
  // rows: [{trial, value, x: [...]}] already filtered to the top k%.
  P.topPercent = function (trials, pct, goal) {
    const withValue = trials.filter((t) => t.value !== null && Number.isFinite(t.value));
    if (pct >= 100) return withValue;
    const sorted = withValue.slice().sort((a, b) => (goal === 'MAXIMIZE' ? b.value - a.value : a.value - b.value));
    const keep = Math.max(1, Math.ceil(sorted.length * pct / 100));
    const kept = new Set(sorted.slice(0, keep).map((t) => t.trial));
    return withValue.filter((t) => kept.has(t.trial));
  };

  P.parcoords = function (pts, spec, o) {
    const names = pts.params || spec.map((p) => p.name);
    const byName = new Map(spec.map((p) => [p.name, p]));
    const rows = P.topPercent(pts.trials || [], o.topPct, o.goal);
    const axes = names.map((name, i) => {
      const p = byName.get(name) || {name, type: 'DOUBLE'};
      const axis = paramAxis(p, {dim: i, id: 'p' + i});
      if (axis.type === 'category') axis.axisLabel = {interval: 0};
      return axis;
    });
    const [vlo, vhi] = valueRange(rows.map((r) => r.value));
    axes.push({dim: names.length, id: 'objective', name: objectiveName(o.metric, o.goal), type: 'value', scale: true,
               axisLabel: {formatter: (v) => U.fmt(v)},
               nameTextStyle: {fontWeight: 'bold'}});
    const data = rows.map((r) => r.x.concat([r.value, r.trial]));
    const option = Object.assign(base(), {
      parallel: {left: 64, right: 150, top: 56, bottom: 30,
                 parallelAxisDefault: {
                   nameLocation: 'end', nameGap: 16,
                   nameTextStyle: {fontSize: 12, color: P.COLORS.text},
                   axisLine: {lineStyle: {color: '#9aa3ad'}},
                   axisLabel: {fontSize: 11, color: '#4a5563', backgroundColor: 'rgba(255,255,255,0.85)',
                               padding: [1, 3], borderRadius: 2},
                   areaSelectStyle: {width: 22, borderColor: '#2f6fdb', color: 'rgba(47,111,219,0.25)', opacity: 1},
                   realtime: false,
                 }},
      parallelAxis: axes,
      visualMap: {type: 'continuous', dimension: names.length, min: vlo, max: vhi, right: 12, top: 'middle',
                  itemHeight: 180, calculable: false, precision: 4, inRange: {color: P.objectiveColors(o.goal)},
                  text: [o.goal === 'MAXIMIZE' ? 'better' : 'worse', o.goal === 'MAXIMIZE' ? 'worse' : 'better'],
                  textStyle: {fontSize: 11}, formatter: (v) => U.fmt(v)},
      series: [{type: 'parallel', name: 'trials', data, smooth: false,
                // Lines of width 1 take the canvas's fast path: about half
                // the drawing time of 1.2 at 5,000 lines.
                lineStyle: {width: data.length > P.LARGE_POINTS ? 1 : 1.2, opacity: 0.55},
                inactiveOpacity: 0.04, activeOpacity: 0.9,
                progressive: 1000}],
    });
    return {option, rows, axes, debug: {lines: data.length, axes: axes.length, total: pts.total,
                                        downsampled: !!pts.downsampled, top_pct: o.topPct}};
  };

  // ---- slice plots: one scatter per parameter, coloured by trial number.
  // A fixed sideways offset in [-0.3, 0.3) per trial (the golden-ratio
  // sequence): the same trial lands in the same place on every redraw.
  const jitter = (trial) => ((trial * 0.6180339887) % 1 - 0.5) * 0.6;

  P.slice = function (pts, spec, o, width) {
    const names = pts.params || spec.map((p) => p.name);
    const byName = new Map(spec.map((p) => [p.name, p]));
    const rows = (pts.trials || []).filter((t) => t.value !== null && Number.isFinite(t.value));
    const cols = Math.max(1, Math.min(names.length, width >= 1100 ? 3 : 2));
    const rowsN = Math.ceil(names.length / cols);
    const cellH = 250, top = 36, gapX = 6, leftPad = 64;
    const height = rowsN * cellH + 40;
    const grids = [], xAxes = [], yAxes = [], series = [], titles = [];
    const [vlo, vhi] = valueRange(rows.map((r) => r.value));
    const trialMax = rows.length ? Math.max(...rows.map((r) => r.trial)) : 1;
    names.forEach((name, i) => {
      const c = i % cols, r = Math.floor(i / cols);
      const cellW = width / cols;
      grids.push({left: Math.round(c * cellW + leftPad), width: Math.round(cellW - leftPad - 24 - gapX),
                  top: r * cellH + top + 22, height: cellH - 80});
      titles.push({text: name, left: Math.round(c * cellW + leftPad + (cellW - leftPad - 24 - gapX) / 2), textAlign: 'center',
                   top: r * cellH + top - 4, textStyle: {fontSize: 13, fontWeight: 600, color: P.COLORS.text}});
      const p = byName.get(name) || {name, type: 'DOUBLE'};
      let axis = paramAxis(p, {gridIndex: i, splitLine: {lineStyle: {color: P.COLORS.grid}}});
      delete axis.name;
      const cats = axis.type === 'category' ? axis.data : null;
      // A category is a value axis of its index, so that points can be
      // jittered sideways: otherwise they pile up on one vertical line.
      if (cats) {
        const at = cats.map((_, k) => k);
        axis = {gridIndex: i, type: 'value', min: -0.5, max: cats.length - 0.5, splitLine: {show: false},
                axisTick: {customValues: at}, axisLabel: {customValues: at, formatter: (v) => cats[v] || ''}};
      }
      xAxes.push(axis);
      yAxes.push({gridIndex: i, type: 'value', min: vlo - (vhi - vlo) * 0.05, max: vhi + (vhi - vlo) * 0.05, scale: true,
                  axisLine: {onZero: false},
                  name: c === 0 ? o.metric : '', nameLocation: 'middle', nameGap: 48,
                  axisLabel: {formatter: (v) => U.fmt(v), fontSize: 10, showMinLabel: false, showMaxLabel: false},
                  splitLine: {lineStyle: {color: P.COLORS.grid}}});
      series.push({type: 'scatter', name, xAxisIndex: i, yAxisIndex: i, symbolSize: 6,
                   // A conditional parameter: only the trials where it is active.
                   data: rows.filter((t) => t.x[i] !== null && t.x[i] !== undefined)
                       .map((t) => (cats ? [cats.indexOf(t.x[i]) + jitter(t.trial), t.value, t.trial, t.x[i]]
                                         : [t.x[i], t.value, t.trial])),
                   itemStyle: {opacity: 0.85}});
    });
    const option = Object.assign(base(), {
      title: titles, grid: grids, xAxis: xAxes, yAxis: yAxes, series,
      tooltip: {trigger: 'item', confine: true, formatter: (p) =>
        `trial ${p.value[2]}<br>${p.seriesName} = ${p.value.length > 3 ? p.value[3] : U.fmt(p.value[0])}` +
        `<br>${o.metric} = <b>${U.fmt(p.value[1])}</b>`},
      visualMap: {type: 'continuous', dimension: 2, min: 1, max: Math.max(2, trialMax), orient: 'horizontal',
                  left: 'center', top: 0, itemWidth: 12, itemHeight: 160, text: ['last trial', 'trial 1 '],
                  calculable: false, inRange: {color: ['#9ecae1', '#4292c6', '#2171b5', '#08306b']},
                  textStyle: {fontSize: 11}},
    });
    // Per categorical plot, how many distinct x positions its points got.
    const spread = series.filter((x) => x.data.length && x.data[0].length > 3)
        .map((x) => ({name: x.name, points: x.data.length, positions: new Set(x.data.map((d) => d[0])).size}));
    return {option, height, debug: {plots: names.length, points: rows.length, jitter: spread}};
  };

  // ---- many points: a scatter series of more than LARGE_POINTS points is
  // drawn by ECharts' large mode, one path for all its symbols, which is
  // several times faster than a symbol each but takes one colour per series.
  // So the points are split by the visualMap's dimension into COLOR_BANDS
  // series of one colour each (the visualMap's colour at the band's centre);
  // the visualMap stays as the legend. `topEnd` ('max' or 'min') is the end
  // of the scale drawn on top.
  P.LARGE_POINTS = 2000;
  const COLOR_BANDS = 16;
  function mix(colors, t) {
    const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
    const x = Math.min(1, Math.max(0, t)) * (colors.length - 1);
    const k = Math.min(colors.length - 2, Math.floor(x));
    const a = rgb(colors[k]), b = rgb(colors[k + 1]), f = x - k;
    return '#' + a.map((v, i) => Math.round(v + (b[i] - v) * f).toString(16).padStart(2, '0')).join('');
  }
  P.largeScatter = function (option, topEnd) {
    const vm = option.visualMap;
    const span = vm.max - vm.min || 1;
    const band = (d) => {
      const k = Math.floor((d[vm.dimension] - vm.min) / span * COLOR_BANDS);
      return Number.isFinite(k) ? Math.min(COLOR_BANDS - 1, Math.max(0, k)) : 0;  // a missing value: the first band
    };
    const order = [...Array(COLOR_BANDS).keys()];
    if (topEnd === 'min') order.reverse();
    const series = [];
    for (const s of option.series) {
      if (s.type !== 'scatter' || s.data.length <= P.LARGE_POINTS) {
        series.push(s);
        continue;
      }
      const bands = order.map(() => []);
      for (const d of s.data) bands[order.indexOf(band(d))].push(d);
      bands.forEach((data, i) => {
        const color = mix(vm.inRange.color, (order[i] + 0.5) / COLOR_BANDS);
        series.push(Object.assign({}, s, {data, large: true, largeThreshold: 0,
                                          itemStyle: Object.assign({}, s.itemStyle, {color})}));
      });
    }
    option.series = series;
    // The visualMap colours the series left in small mode only; -1 is none.
    vm.seriesIndex = series.map((s, i) => (s.large ? -1 : i)).filter((i) => i >= 0);
    if (!vm.seriesIndex.length) vm.seriesIndex = [-1];
    return option;
  };

  // ---- contour: objective interpolated (inverse-distance weighting) on a
  // grid of a parameter pair, trial points on top.
  const CELLS = 30;
  function cellsFor(p, values) {
    const kind = P.axisKind(p);
    if (kind === 'category') {
      return {kind, n: (p.categories || []).length, norm: (v) => {
        const k = p.categories.indexOf(v);
        return p.categories.length > 1 ? k / (p.categories.length - 1) : 0.5;
      }, cells: p.categories.map((c, k) => ({cat: k, center: p.categories.length > 1 ? k / (p.categories.length - 1) : 0.5}))};
    }
    let [lo, hi] = P.paramRange(p);
    const nums = values.filter((v) => typeof v === 'number');
    if (!(Number.isFinite(lo) && Number.isFinite(hi) && hi > lo)) [lo, hi] = valueRange(nums);
    const tf = kind === 'log' ? Math.log10 : (v) => v;
    const inv = kind === 'log' ? (v) => Math.pow(10, v) : (v) => v;
    const tlo = tf(lo), thi = tf(hi);
    const cells = [];
    for (let k = 0; k < CELLS; k++) {
      const a = tlo + (thi - tlo) * k / CELLS, b = tlo + (thi - tlo) * (k + 1) / CELLS;
      cells.push({lo: inv(a), hi: inv(b), center: (k + 0.5) / CELLS});
    }
    return {kind, n: CELLS, norm: (v) => (tf(v) - tlo) / (thi - tlo), cells};
  }

  P.contour = function (pts, spec, o) {
    const names = pts.params || spec.map((p) => p.name);
    const byName = new Map(spec.map((p) => [p.name, p]));
    const ix = names.indexOf(o.x), iy = names.indexOf(o.y);
    const px = byName.get(o.x), py = byName.get(o.y);
    // Only the trials where both parameters are active (a conditional one is
    // null elsewhere).
    const present = (v) => v !== null && v !== undefined;
    const rows = (pts.trials || []).filter((t) => t.value !== null && Number.isFinite(t.value) &&
                                                  present(t.x[ix]) && present(t.x[iy]));
    const gx = cellsFor(px, rows.map((r) => r.x[ix]));
    const gy = cellsFor(py, rows.map((r) => r.x[iy]));
    const known = rows.map((r) => [gx.norm(r.x[ix]), gy.norm(r.x[iy]), r.value])
        .filter((k) => Number.isFinite(k[0]) && Number.isFinite(k[1]));
    // Flat typed arrays: the loop below runs cells x trials times (4.5
    // million at 5,000 trials).
    const kxs = Float64Array.from(known, (k) => k[0]);
    const kys = Float64Array.from(known, (k) => k[1]);
    const kvs = Float64Array.from(known, (k) => k[2]);
    const grid = [];
    const cellList = [];
    if (known.length) {
      for (let a = 0; a < gx.cells.length; a++) {
        for (let b = 0; b < gy.cells.length; b++) {
          const cx = gx.cells[a].center, cy = gy.cells[b].center;
          let num = 0, den = 0, exact = null;
          for (let k = 0; k < kvs.length; k++) {
            const dx = kxs[k] - cx, dy = kys[k] - cy;
            const d2 = dx * dx + dy * dy;
            if (d2 < 1e-12) { exact = kvs[k]; break; }
            const w = 1 / (d2 * d2);  // power 4 in distance: sharper than 2
            num += w * kvs[k]; den += w;
          }
          const value = exact !== null ? exact : num / den;
          cellList.push({x: gx.cells[a], y: gy.cells[b]});
          grid.push([gx.kind === 'category' ? gx.cells[a].cat : gx.cells[a].lo,
                     gy.kind === 'category' ? gy.cells[b].cat : gy.cells[b].lo, value, cellList.length - 1]);
        }
      }
    }
    const [vlo, vhi] = valueRange(rows.map((r) => r.value));
    function corner(api, cell, axis, which) {
      // data coordinate of a cell's edge, or of the band's centre
      return axis.kind === 'category' ? cell.cat : (which === 0 ? cell.lo : cell.hi);
    }
    const renderItem = (params, api) => {
      const c = cellList[api.value(3)];
      let x0, x1, y0, y1;
      if (gx.kind === 'category') {
        const w = api.size([1, 0])[0];
        const cx = api.coord([c.x.cat, gy.kind === 'category' ? c.y.cat : c.y.lo])[0];
        x0 = cx - w / 2; x1 = cx + w / 2;
      } else {
        x0 = api.coord([corner(api, c.x, gx, 0), gy.kind === 'category' ? c.y.cat : c.y.lo])[0];
        x1 = api.coord([corner(api, c.x, gx, 1), gy.kind === 'category' ? c.y.cat : c.y.lo])[0];
      }
      if (gy.kind === 'category') {
        const h = api.size([0, 1])[1];
        const cy = api.coord([gx.kind === 'category' ? c.x.cat : c.x.lo, c.y.cat])[1];
        y0 = cy - h / 2; y1 = cy + h / 2;
      } else {
        y0 = api.coord([gx.kind === 'category' ? c.x.cat : c.x.lo, corner(api, c.y, gy, 0)])[1];
        y1 = api.coord([gx.kind === 'category' ? c.x.cat : c.x.lo, corner(api, c.y, gy, 1)])[1];
      }
      return {type: 'rect', shape: {x: Math.min(x0, x1), y: Math.min(y0, y1),
                                    width: Math.abs(x1 - x0) + 0.6, height: Math.abs(y1 - y0) + 0.6},
              style: {fill: api.visual('color')}};
    };
    const axis = (p) => {
      const a = paramAxis(p, {nameLocation: 'middle', nameGap: 32, nameTextStyle: {fontWeight: 600},
                              splitLine: {show: false}});
      if (a.type === 'category') a.boundaryGap = true;
      return a;
    };
    const xAxis = axis(px), yAxis = axis(py);
    yAxis.nameGap = 58;
    const option = Object.assign(base(), {
      grid: {left: 86, right: 120, top: 24, bottom: 56},
      xAxis, yAxis,
      tooltip: {trigger: 'item', confine: true, formatter: (p) => {
        if (p.seriesName === 'trials') {
          return `trial ${p.value[3]}<br>${o.x} = ${U.fmt(p.value[0])}<br>${o.y} = ${U.fmt(p.value[1])}` +
              `<br>${o.metric} = <b>${U.fmt(p.value[2])}</b>`;
        }
        return `interpolated ${o.metric} ≈ ${U.fmt(p.value[2])}`;
      }},
      visualMap: {type: 'continuous', dimension: 2, seriesIndex: 0, min: vlo, max: vhi, right: 10, top: 'middle',
                  itemHeight: 200, calculable: false, inRange: {color: P.objectiveColors(o.goal)},
                  text: [U.fmt(vhi), U.fmt(vlo)], textStyle: {fontSize: 11}},
      series: [
        {type: 'custom', name: 'surface', renderItem, data: grid, encode: {x: 0, y: 1}, silent: false,
         clip: true, z: 1},
        {type: 'scatter', name: 'trials', data: rows.map((r) => [r.x[ix], r.x[iy], r.value, r.trial]),
         large: true, largeThreshold: P.LARGE_POINTS,
         // Thousands of dots would hide the map: smaller and see-through.
         symbolSize: rows.length > 500 ? 3 : 8,
         itemStyle: {color: '#ffffff', borderColor: '#1d2530', borderWidth: rows.length > 500 ? 0.4 : 1.2,
                     opacity: rows.length > 500 ? 0.5 : 1}, z: 3},
      ],
    });
    return {option, debug: {x: o.x, y: o.y, cells: grid.length, points: rows.length}};
  };

  // ---- learning curves
  P.curves = function (c, o) {
    const curves = c.curves || [];
    const series = [];
    const stopped = [];
    const ends = [];
    for (const curve of curves) {
      const pts = curve.points || [];
      const active = curve.state === 'ACTIVE' || curve.state === 'STOPPING';
      const isBest = o.bestTrial === curve.trial;
      let name = 'finished', style = {width: 1.2, color: '#7d93ad', opacity: 0.7};
      if (curve.stopped_early) {
        name = 'stopped early';
        style = {width: 1.4, color: P.COLORS.STOPPED, type: 'dashed', opacity: 0.9};
      } else if (active) {
        name = 'active';
        style = {width: 2.6, color: P.COLORS.ACTIVE, opacity: 1};
      } else if (curve.state === 'FAILED' || curve.state === 'INFEASIBLE') {
        name = 'failed';
        style = {width: 1.2, color: P.COLORS.FAILED, opacity: 0.6, type: 'dotted'};
      }
      if (isBest) { name = 'best'; style = {width: 2.8, color: P.COLORS.best, opacity: 1}; }
      series.push({type: 'line', id: 'trial-' + curve.trial, name, data: pts, showSymbol: false,
                   symbolSize: 4, lineStyle: style, itemStyle: {color: style.color},
                   emphasis: {focus: 'series', lineStyle: {width: 3}}, z: active || isBest ? 4 : 2});
      if (curve.stopped_early && pts.length) {
        const last = pts[pts.length - 1];
        stopped.push({trial: curve.trial, last_step: last[0], stop_step: curve.stop_step});
        ends.push([last[0], last[1], curve.trial]);
      }
    }
    const legendNames = ['best', 'active', 'finished', 'stopped early', 'failed']
        .filter((n) => series.some((s) => s.name === n));
    series.push({type: 'scatter', name: 'stopped here', data: ends, symbol: 'diamond', symbolSize: 10,
                 itemStyle: {color: P.COLORS.STOPPED, borderColor: '#fff', borderWidth: 1}, z: 5});
    if (ends.length) legendNames.push('stopped here');
    const option = Object.assign(base(), {
      grid: {left: 72, right: 28, top: 44, bottom: 52},
      legend: {top: 8, data: legendNames, itemGap: 16},
      tooltip: {trigger: 'item', confine: true, formatter: (p) => {
        const trial = p.seriesName === 'stopped here' ? p.value[2] : String(p.seriesId).replace(/^trial-/, '');
        const what = p.seriesName === 'stopped here' ? 'stopped early at step ' + p.value[0] : 'step ' + p.value[0];
        return `trial ${trial} (${p.seriesName === 'stopped here' ? 'stopped early' : p.seriesName})<br>${what}: ` +
            `<b>${U.fmt(p.value[1])}</b>`;
      }},
      xAxis: {type: 'value', name: 'step', nameLocation: 'middle', nameGap: 30, scale: true, minInterval: 1,
              splitLine: {lineStyle: {color: P.COLORS.grid}}},
      yAxis: {type: o.log ? 'log' : 'value', name: c.metric || o.metric, nameLocation: 'middle', nameGap: 56,
              scale: true, axisLabel: {formatter: (v) => U.fmt(v)}, splitLine: {lineStyle: {color: P.COLORS.grid}}},
      series,
    });
    return {option, debug: {lines: curves.length, stopped, total: c.total,
                            active: curves.filter((x) => x.state === 'ACTIVE' || x.state === 'STOPPING').length}};
  };

  // ---- importance: a bar per parameter with its bootstrap interval as a
  // whisker (a line from lower to upper with a cap at each end).
  P.importance = function (imp) {
    const list = (imp.importances || []).slice().sort((a, b) => b.importance - a.importance);
    const pct = (v) => (v * 100).toFixed(1) + '%';
    const bounds = (x) => [x.lower === undefined ? x.importance : x.lower, x.upper === undefined ? x.importance : x.upper];
    const whisker = (params, api) => {
      const y = api.coord([0, api.value(2)])[1], cap = api.size([0, 1])[1] * 0.18;
      const lo = api.coord([api.value(0), api.value(2)])[0], hi = api.coord([api.value(1), api.value(2)])[0];
      const style = {stroke: P.COLORS.text, lineWidth: 1.5};
      const line = (x1, y1, x2, y2) => ({type: 'line', shape: {x1, y1, x2, y2}, style});
      return {type: 'group', children: [
        line(lo, y, hi, y), line(lo, y - cap, lo, y + cap), line(hi, y - cap, hi, y + cap),
        {type: 'text', x: hi + 6, y, style: {text: pct(api.value(3)), fill: P.COLORS.text, verticalAlign: 'middle', font: '12px sans-serif'}},
      ]};
    };
    const option = Object.assign(base(), {
      grid: {left: 150, right: 70, top: 16, bottom: 40},
      tooltip: {trigger: 'item', formatter: (p) => {
        const x = list[p.dataIndex], [lo, hi] = bounds(x);
        return `${x.param}: <b>${pct(x.importance)}</b><br>90% interval ${pct(lo)} – ${pct(hi)}`;
      }},
      xAxis: {type: 'value', min: 0, max: (v) => Math.min(1, Math.max(0.1, Math.ceil(v.max * 10) / 10)), name: 'importance',
              nameLocation: 'middle', nameGap: 26, splitLine: {lineStyle: {color: P.COLORS.grid}},
              axisLabel: {formatter: (v) => U.fmt(v)}},
      yAxis: {type: 'category', inverse: true, data: list.map((x) => x.param),
              axisLabel: {fontSize: 12, color: P.COLORS.text, width: 136, overflow: 'truncate'}},
      series: [{type: 'bar', data: list.map((x) => x.importance), barMaxWidth: 26,
                itemStyle: {color: '#2f6fdb', borderRadius: [0, 3, 3, 0]}},
               {type: 'custom', name: 'interval', renderItem: whisker, encode: {x: [0, 1], y: 2}, z: 3,
                data: list.map((x, i) => [...bounds(x), i, x.importance])}],
    });
    return {option, height: Math.max(220, list.length * 38 + 70),
            debug: {bars: list.length, order: list.map((x) => x.param), method: imp.method, trials: imp.trials,
                    intervals: list.map((x) => bounds(x)), note: imp.note || ''}};
  };

  // ---- Pareto front: two objectives of the study against each other.
  // doc: the /pareto answer; o.x, o.y: indices into doc.objectives.
  P.pareto = function (doc, o) {
    const objectives = doc.objectives || [];
    const ox = objectives[o.x] || {metric: '?'}, oy = objectives[o.y] || {metric: '?'};
    const groups = {optimal: [], dominated: [], infeasible: []};
    for (const t of doc.trials || []) {
      const point = [t.values[o.x], t.values[o.y], t.trial];
      groups[t.optimal ? 'optimal' : (t.feasible ? 'dominated' : 'infeasible')].push(point);
    }
    // With two objectives the front is a staircase through the optimal
    // trials, sorted along the x objective, bounding what they dominate.
    const front = objectives.length === 2 ? groups.optimal.slice().sort((a, b) => a[0] - b[0]) : [];
    const axis = (obj, extra) => Object.assign({type: 'value', name: objectiveName(obj.metric, obj.goal), scale: true,
        nameLocation: 'middle', axisLabel: {formatter: (v) => U.fmt(v)}, splitLine: {lineStyle: {color: P.COLORS.grid}}}, extra);
    const option = Object.assign(base(), {
      grid: {left: 80, right: 36, top: 52, bottom: 56},
      legend: {top: 8, left: 'center', itemGap: 18, data: ['optimal', 'dominated', 'infeasible']},
      tooltip: {trigger: 'item', confine: true, formatter: (p) => (p.value && p.value[2] !== undefined ?
          `trial ${p.value[2]} (${p.seriesName})<br>${ox.metric}: <b>${U.fmt(p.value[0])}</b><br>${oy.metric}: <b>${U.fmt(p.value[1])}</b>` : '')},
      xAxis: axis(ox, {nameGap: 32}),
      yAxis: axis(oy, {nameGap: 60}),
      series: [
        {name: 'dominated', type: 'scatter', data: groups.dominated, symbolSize: 7,
         itemStyle: {color: P.COLORS.point, opacity: 0.55}, z: 2},
        {name: 'infeasible', type: 'scatter', data: groups.infeasible, symbol: 'emptyCircle', symbolSize: 8,
         itemStyle: {color: P.COLORS.INFEASIBLE, opacity: 0.8}, z: 2},
        {name: 'optimal', type: 'scatter', data: groups.optimal, symbolSize: 11,
         itemStyle: {color: P.COLORS.best, borderColor: '#fff', borderWidth: 1}, z: 4},
        {name: 'front', type: 'line', data: front, step: ox.goal === 'MAXIMIZE' ? 'start' : 'end', showSymbol: false, silent: true,
         lineStyle: {color: P.COLORS.best, width: 1.5, type: 'dashed'}, z: 3},
      ],
    });
    const ids = (list) => list.map((p) => p[2]).sort((a, b) => a - b);
    return {option, debug: {points: (doc.trials || []).length, optimal: ids(groups.optimal),
                            infeasible: ids(groups.infeasible), x: ox.metric, y: oy.metric,
                            downsampled: !!doc.downsampled, total: doc.total}};
  };

  // ---- timeline (Gantt)
  P.timeline = function (tl, o) {
    const now = U.parseTime(tl.now) || Date.now();
    const lanes = Math.max(1, tl.lanes || 1);
    const slotsSeen = new Set();
    let hasOther = false, maxSlot = lanes - 1;
    for (const t of tl.trials || []) {
      if (t.slot === null || t.slot === undefined) hasOther = true;
      else { slotsSeen.add(t.slot); maxSlot = Math.max(maxSlot, t.slot); }
    }
    const laneNames = [];
    for (let s = 0; s <= maxSlot; s++) laneNames.push('slot ' + s);
    if (hasOther) laneNames.push('other');
    const data = [];
    let tmin = Infinity, tmax = -Infinity;
    for (const t of tl.trials || []) {
      const start = U.parseTime(t.start_time);
      if (start === null) continue;
      const running = !t.end_time;
      const end = running ? Math.max(now, start) : U.parseTime(t.end_time);
      const lane = (t.slot === null || t.slot === undefined) ? laneNames.length - 1 : t.slot;
      let key = t.state;
      if (t.stopped_early) key = 'STOPPED';
      else if (t.state === 'STOPPING') key = 'STOPPING';
      const marked = (t.restarts || 0) > 0 || (t.attempt || 1) > 1;
      data.push({value: [lane, start, end, t.trial, key, marked ? 1 : 0, running ? 1 : 0,
                         t.restarts || 0, t.attempt || 1, t.state]});
      tmin = Math.min(tmin, start); tmax = Math.max(tmax, end);
    }
    const renderItem = (params, api) => {
      const lane = api.value(0);
      const a = api.coord([api.value(1), lane]);
      const b = api.coord([api.value(2), lane]);
      const h = api.size([0, 1])[1] * 0.56;
      const color = P.COLORS[api.value(4)] || P.COLORS.CANCELLED;
      const running = api.value(6) === 1;
      const cs = params.coordSys;
      const rect = echarts.graphic.clipRectByRect(
          {x: a[0], y: a[1] - h / 2, width: Math.max(2, b[0] - a[0]), height: h},
          {x: cs.x, y: cs.y, width: cs.width, height: cs.height});
      if (!rect) return null;
      const children = [{type: 'rect', shape: Object.assign({r: 2}, rect),
                         style: {fill: color, opacity: running ? 0.45 : 0.92,
                                 stroke: running ? color : 'rgba(255,255,255,0.9)',
                                 lineWidth: running ? 1.5 : 1, lineDash: running ? [4, 3] : null}}];
      if (rect.width > 26) {
        children.push({type: 'text', style: {text: String(api.value(3)), x: rect.x + 4, y: a[1],
                                             verticalAlign: 'middle', fill: running ? '#123' : '#fff',
                                             fontSize: 10, fontWeight: 600}, silent: true});
      }
      if (api.value(5) === 1) {
        const x = a[0], y = a[1] - h / 2 - 1;
        children.push({type: 'polygon', shape: {points: [[x - 5, y - 7], [x + 5, y - 7], [x, y]]},
                       style: {fill: '#1d2530'}});
      }
      return {type: 'group', children};
    };
    const option = Object.assign(base(), {
      grid: {left: 70, right: 28, top: 20, bottom: 44},
      tooltip: {trigger: 'item', confine: true, formatter: (p) => {
        const v = p.value;
        const parts = [`trial ${v[3]}: ${v[9]}${v[4] === 'STOPPED' ? ' (stopped early)' : ''}`,
                       `${U.fmtTime(v[1])} → ${v[6] ? 'running' : U.fmtTime(v[2])}`,
                       `duration ${U.fmtDuration(v[2] - v[1])}`];
        if (v[7] > 0) parts.push(`${v[7]} restart${v[7] > 1 ? 's' : ''}`);
        if (v[8] > 1) parts.push(`attempt ${v[8]}`);
        return parts.join('<br>');
      }},
      xAxis: {type: 'time', min: Number.isFinite(tmin) ? tmin : undefined,
              max: Number.isFinite(tmax) ? tmax + (tmax - tmin) * 0.01 : undefined,
              splitLine: {show: true, lineStyle: {color: P.COLORS.grid}},
              axisLabel: {hideOverlap: true}},
      yAxis: {type: 'category', data: laneNames, inverse: true, axisTick: {show: false},
              splitLine: {show: true, lineStyle: {color: P.COLORS.grid}}},
      series: [{type: 'custom', name: 'trials', renderItem, data, encode: {x: [1, 2], y: 0}, clip: true}],
    });
    return {option, height: Math.max(240, laneNames.length * 44 + 80),
            debug: {lanes: laneNames.length, lane_names: laneNames, slots_used: slotsSeen.size, bars: data.length,
                    running: data.filter((d) => d.value[6] === 1).length,
                    marked: data.filter((d) => d.value[5] === 1).length, total: tl.total}};
  };

  // ---- one trial's curve (trial page)
  P.trialCurve = function (measurements, metric, stopStep) {
    const pts = [];
    for (const m of measurements || []) {
      const v = m.metrics ? m.metrics[metric] : undefined;
      if (typeof v === 'number') pts.push([m.step, v]);
    }
    const option = Object.assign(base(), {
      grid: {left: 64, right: 20, top: 24, bottom: 44},
      tooltip: {trigger: 'axis', formatter: (ps) => ps.length ?
        `step ${ps[0].value[0]}<br>${metric}: <b>${U.fmt(ps[0].value[1])}</b>` : ''},
      xAxis: {type: 'value', name: 'step', nameLocation: 'middle', nameGap: 28, scale: true, minInterval: 1,
              splitLine: {lineStyle: {color: P.COLORS.grid}}},
      yAxis: {type: 'value', name: metric, scale: true, axisLabel: {formatter: (v) => U.fmt(v)},
              splitLine: {lineStyle: {color: P.COLORS.grid}}},
      series: [{type: 'line', data: pts, showSymbol: pts.length < 60, symbolSize: 5,
                lineStyle: {color: P.COLORS.ACTIVE, width: 2}, itemStyle: {color: P.COLORS.ACTIVE},
                markLine: stopStep ? {symbol: 'none', silent: true,
                                      lineStyle: {color: P.COLORS.STOPPED, type: 'dashed'},
                                      label: {formatter: 'stopped', color: P.COLORS.STOPPED},
                                      data: [{xAxis: stopStep}]} : undefined}],
    });
    return {option, debug: {points: pts.length}};
  };

  window.hptune.plots = P;
})();

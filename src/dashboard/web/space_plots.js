// hptune dashboard: ECharts options of the plots over the search space:
// parallel coordinates, slice and contour (plots.js has the conventions).
// Loaded after plots.js (it adds its builders to window.hptune.plots).
'use strict';
(function () {
  const U = window.hptune.util;
  const P = window.hptune.plots;
  const {base, objectiveName, paramAxis, valueRange} = P;

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
})();

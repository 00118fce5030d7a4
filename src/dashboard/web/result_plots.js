// hptune dashboard: ECharts options of the plots of a study's results:
// optimisation history, learning curves, importance, Pareto front,
// timeline, and one trial's curve (plots.js has the conventions). Loaded
// after plots.js (it adds its builders to window.hptune.plots).
'use strict';
(function () {
  const U = window.hptune.util;
  const P = window.hptune.plots;
  const {base, objectiveName} = P;

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
                                   failed: failed.length, log, downsampled: !!h.downsampled, total: h.total,
                                   metric: o.metric, first_values: points.slice(0, 20).map((p) => [p.trial, p.value])}};
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
  // Trials without a slot (asked for, ask/tell) on lanes of their own: a
  // client's on its lanes, the others' on "ask/tell" lanes, each packed so
  // that no two trials of a lane overlap. Appends the lanes' names; trial
  // number -> lane index.
  function packOthers(trials, now, laneNames) {
    const byClient = new Map();
    for (const t of trials) {
      if ((t.slot !== null && t.slot !== undefined) || U.parseTime(t.start_time) === null) continue;
      const key = t.client || '';
      if (!byClient.has(key)) byClient.set(key, []);
      byClient.get(key).push(t);
    }
    const laneOf = new Map();
    for (const [client, list] of byClient) {
      const ends = [];  // each lane's last end
      const first = laneNames.length;
      list.sort((a, b) => U.parseTime(a.start_time) - U.parseTime(b.start_time));
      for (const t of list) {
        const start = U.parseTime(t.start_time), end = t.end_time ? U.parseTime(t.end_time) : Math.max(now, start);
        let k = ends.findIndex((e) => e <= start);
        if (k < 0) { k = ends.length; ends.push(end); } else ends[k] = end;
        laneOf.set(t.trial, first + k);
      }
      for (let k = 0; k < ends.length; k++) {
        laneNames.push(client ? client + (ends.length > 1 ? ` ${k + 1}` : '') : `ask/tell ${k + 1}`);
      }
    }
    return laneOf;
  }

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
    const otherLane = hasOther ? packOthers(tl.trials || [], now, laneNames) : new Map();
    const data = [];
    let tmin = Infinity, tmax = -Infinity;
    for (const t of tl.trials || []) {
      const start = U.parseTime(t.start_time);
      if (start === null) continue;
      const running = !t.end_time;
      const end = running ? Math.max(now, start) : U.parseTime(t.end_time);
      const lane = (t.slot === null || t.slot === undefined) ? otherLane.get(t.trial) : t.slot;
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
})();

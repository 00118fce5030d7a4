// hptune dashboard: ECharts options for every plot. Each builder returns
// {option, debug}: debug is what tests read from window.hptuneDebug. This
// file holds what the builders share (colours, charts' lifecycle, axes, many
// points); space_plots.js and result_plots.js the builders.
'use strict';
(function () {
  const U = window.hptune.util;
  const P = {};

  P.COLORS = {
    SUCCEEDED: '#2e9d57', FAILED: '#d64545', STOPPED: '#e8871e', ACTIVE: '#2f6fdb',
    STOPPING: '#e8b01e', INFEASIBLE: '#8a4fbf', CANCELLED: '#9aa3ad', REQUESTED: '#9aa3ad',
    best: '#2e9d57', point: '#2f6fdb', grid: '#e8ebef', text: '#3a4452', muted: '#7b8594',
  };
  // The system's dark mode, as the page was opened (dark.css follows it).
  P.dark = !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  if (P.dark) Object.assign(P.COLORS, {grid: '#2c333d', text: '#c9d1db', muted: '#8c97a5', point: '#6ea2ff'});
  // Viridis, better = dark.
  const VIRIDIS = ['#440154', '#3b528b', '#21918c', '#5ec962', '#fde725'];
  P.objectiveColors = (goal) => (goal === 'MAXIMIZE' ? VIRIDIS.slice().reverse() : VIRIDIS.slice());

  const FONT = {fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'};
  const base = () => ({
    animation: false,
    backgroundColor: 'transparent',
    textStyle: Object.assign({color: P.COLORS.text, fontSize: 12}, FONT),
    tooltip: {confine: true, textStyle: {fontSize: 12}},
  });

  // ---- charts' lifecycle
  const charts = new Map();
  P.init = function (name, container) {
    P.dispose(name);
    const chart = echarts.init(container, P.dark ? 'dark' : null, {renderer: 'canvas'});
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

  // ---- zoom, pan and save, added to every chart a page draws
  // A plot of one x axis gets zoom and pan on it: a slider under it, and
  // inside the plot a drag to pan and ctrl+wheel (or a pinch) to zoom, so
  // the wheel still scrolls the page. A redraw keeps the zoom.
  function addZoom(option, chart) {
    const xs = [].concat(option.xAxis || []);
    if (xs.length !== 1 || Array.isArray(option.grid)) return;
    const kept = chart ? (chart.getOption() || {}).dataZoom || [] : [];
    const at = (i) => (kept[i] ? {start: kept[i].start, end: kept[i].end} : {});
    option.grid = Object.assign({}, option.grid, {bottom: ((option.grid || {}).bottom || 60) + 26});
    option.dataZoom = [
      Object.assign({type: 'inside', xAxisIndex: 0, filterMode: 'none', zoomOnMouseWheel: 'ctrl',
                     moveOnMouseWheel: false, moveOnMouseMove: true}, at(0)),
      Object.assign({type: 'slider', xAxisIndex: 0, filterMode: 'none', height: 16, bottom: 6,
                     showDetail: false, brushSelect: false}, at(1)),
    ];
  }
  const ICON_DOWN = 'path://M12 3v11m-5-5l5 5 5-5M4 17v3h16v-3';
  P.interactive = function (name, option, chart) {
    if (name !== 'importance') addZoom(option, chart);  // its bars all fit
    const save = (type) => ({show: true, title: 'Save as ' + type.toUpperCase(), icon: ICON_DOWN,
                             onclick: () => P.save(name, type)});
    option.toolbox = {right: 6, top: 0, itemSize: 14, feature: {myPng: save('png'), mySvg: save('svg')},
                      iconStyle: {borderColor: P.COLORS.muted}};
    return option;
  };
  function download(href, filename) {
    const a = document.createElement('a');
    a.href = href;
    a.download = filename;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }
  // Saves chart `name` as it is shown (its zoom kept), without its toolbox
  // and slider: PNG from the canvas at twice its size; SVG drawn again by
  // ECharts' SVG renderer, off the page.
  P.save = function (name, type) {
    const chart = charts.get(name);
    if (!chart) return null;
    const file = (chart.getDom().dataset.file || name) + '.' + type;
    const background = P.dark ? '#1b2129' : '#ffffff';
    if (type === 'png') {
      download(chart.getDataURL({type: 'png', pixelRatio: 2, backgroundColor: background,
                                 excludeComponents: ['toolbox', 'dataZoom']}), file);
      return file;
    }
    const option = chart.getOption();
    option.toolbox = [{show: false}];
    option.dataZoom = (option.dataZoom || []).map((d) => Object.assign({}, d, d.type === 'slider' ? {show: false} : {}));
    option.backgroundColor = background;
    const svg = echarts.init(null, null, {renderer: 'svg', ssr: true, width: chart.getWidth(), height: chart.getHeight()});
    try {
      svg.setOption(option);
      const url = URL.createObjectURL(new Blob([svg.renderToSVGString()], {type: 'image/svg+xml'}));
      download(url, file);
      setTimeout(() => URL.revokeObjectURL(url), 60000);
    } finally {
      svg.dispose();
    }
    return file;
  };

  // For the builders of space_plots.js and result_plots.js.
  P.base = base;
  P.objectiveName = objectiveName;

  window.hptune.plots = P;
})();

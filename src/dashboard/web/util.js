// hptune dashboard: DOM and formatting helpers (no framework, no build step).
'use strict';
(function () {
  const U = {};

  // el('div', {class: 'x', text: 'hi', title: 't', data: {testid: 'y'}, on: {click: fn}}, child...)
  U.el = function (tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [key, value] of Object.entries(attrs)) {
        if (value === undefined || value === null || value === false) continue;
        if (key === 'class') node.className = value;
        else if (key === 'text') node.textContent = value;
        else if (key === 'data') {
          for (const [k, v] of Object.entries(value)) node.dataset[k] = v;
        } else if (key === 'on') {
          for (const [k, v] of Object.entries(value)) node.addEventListener(k, v);
        } else if (key === 'style' && typeof value === 'object') {
          Object.assign(node.style, value);
        } else if (key in node && typeof value !== 'string') {
          node[key] = value;
        } else {
          node.setAttribute(key, value === true ? '' : String(value));
        }
      }
    }
    U.append(node, children);
    return node;
  };

  U.append = function (node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  };

  U.clear = function (node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  };

  U.replace = function (node, ...children) {
    U.clear(node);
    return U.append(node, children);
  };

  // 6 significant digits, no trailing zeros; exponent form for very large
  // or small magnitudes.
  U.fmt = function (v) {
    if (v === null || v === undefined) return '—';
    if (typeof v !== 'number') return String(v);
    if (!Number.isFinite(v)) return String(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (Number.isInteger(v) && a < 1e15) return String(v);
    if (a >= 1e6 || a < 1e-4) {
      const [mant, exp] = v.toExponential(5).split('e');
      return U.trimZeros(mant) + 'e' + exp;
    }
    return U.trimZeros(v.toPrecision(6));
  };

  U.trimZeros = function (s) {
    if (s.indexOf('.') < 0 || s.indexOf('e') >= 0) return s;
    return s.replace(/0+$/, '').replace(/\.$/, '');
  };

  // The full value, for a title attribute: JavaScript's shortest round trip.
  U.full = function (v) {
    if (v === null || v === undefined) return '';
    return String(v);
  };

  // A <span> showing fmt(v) with the full value on hover.
  U.num = function (v, cls) {
    return U.el('span', {class: 'num' + (cls ? ' ' + cls : ''), title: U.full(v), text: U.fmt(v)});
  };

  U.pad = (n) => String(n).padStart(2, '0');

  U.parseTime = function (s) {
    if (!s) return null;
    const t = Date.parse(s);
    return Number.isNaN(t) ? null : t;
  };

  // Local time, "2026-11-24 10:15:00".
  U.fmtTime = function (s) {
    const t = typeof s === 'number' ? s : U.parseTime(s);
    if (t === null) return '—';
    const d = new Date(t);
    return `${d.getFullYear()}-${U.pad(d.getMonth() + 1)}-${U.pad(d.getDate())} ` +
        `${U.pad(d.getHours())}:${U.pad(d.getMinutes())}:${U.pad(d.getSeconds())}`;
  };

  // Short local time for tables, "11-24 10:15:00".
  U.fmtShortTime = function (s) {
    const t = typeof s === 'number' ? s : U.parseTime(s);
    if (t === null) return '—';
    const d = new Date(t);
    return `${U.pad(d.getMonth() + 1)}-${U.pad(d.getDate())} ` +
        `${U.pad(d.getHours())}:${U.pad(d.getMinutes())}:${U.pad(d.getSeconds())}`;
  };

  U.fmtDuration = function (ms) {
    if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
    let s = Math.max(0, ms / 1000);
    if (s < 10) return s.toFixed(1) + ' s';
    s = Math.round(s);
    if (s < 60) return s + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return `${m} min ${U.pad(s % 60)} s`;
    const h = Math.floor(m / 60);
    if (h < 48) return `${h} h ${U.pad(m % 60)} min`;
    return `${Math.floor(h / 24)} d ${h % 24} h`;
  };

  U.fmtBytes = function (n) {
    if (n < 1024) return n + ' B';
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1024 / 1024).toFixed(1) + ' MiB';
  };

  const STATE_CLASS = {
    SUCCEEDED: 'ok', COMPLETED: 'ok',
    FAILED: 'bad', INFEASIBLE: 'infeasible',
    ACTIVE: 'run', RUNNING: 'run',
    STOPPING: 'warn', CANCELLING: 'warn', PREPARING: 'idle',
    REQUESTED: 'idle', QUEUED: 'idle', CANCELLED: 'muted',
  };

  U.badge = function (state, extra) {
    const s = state || '—';
    return U.el('span', {class: 'badge badge-' + (STATE_CLASS[s] || 'muted'), text: s,
                         title: extra || null, data: {state: s}});
  };

  U.TERMINAL_JOB_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED']);

  // Finished trials: everything that is neither waiting nor running.
  U.finishedCount = function (counts) {
    if (!counts) return 0;
    const total = counts.total || 0;
    return Math.max(0, total - (counts.REQUESTED || 0) - (counts.ACTIVE || 0) - (counts.STOPPING || 0));
  };

  // "better" comparator for the study's goal.
  U.better = (goal) => (goal === 'MAXIMIZE' ? (a, b) => a > b : (a, b) => a < b);

  // Runs fn at most once at a time and at most every minIntervalMs; calls
  // made meanwhile collapse into one more run afterwards.
  class Coalescer {
    constructor(fn, minIntervalMs) {
      this.fn = fn;
      this.min = minIntervalMs || 500;
      this.running = false;
      this.pending = false;
      this.timer = null;
      this.last = 0;
      this.stopped = false;
    }
    trigger() {
      if (this.stopped) return;
      if (this.running) { this.pending = true; return; }
      if (this.timer) return;
      const wait = this.last + this.min - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => { this.timer = null; this.run(); }, wait);
        return;
      }
      this.run();
    }
    run() {
      if (this.stopped) return;
      this.running = true;
      this.last = Date.now();
      Promise.resolve()
          .then(() => this.fn())
          .catch((e) => window.hptune.api.report(e))
          .finally(() => {
            this.running = false;
            if (this.pending) { this.pending = false; this.trigger(); }
          });
    }
    stop() {
      this.stopped = true;
      if (this.timer) clearTimeout(this.timer);
    }
  }
  U.Coalescer = Coalescer;

  window.hptune = window.hptune || {};
  window.hptune.util = U;
})();

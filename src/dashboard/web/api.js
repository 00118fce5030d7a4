// hptune dashboard: the HTTP JSON API (docs/dashboard.md), the event stream
// and the loading indicator.
'use strict';
(function () {
  const A = {};

  class ApiError extends Error {
    constructor(status, message, path) {
      super(message);
      this.name = 'ApiError';
      this.status = status;
      this.path = path;
    }
  }
  A.ApiError = ApiError;

  // Thrown after a 401 sent the browser to the login page: callers stop.
  class AuthRedirect extends Error {
    constructor() { super('not logged in'); this.name = 'AuthRedirect'; }
  }
  A.AuthRedirect = AuthRedirect;

  let redirecting = false;
  A.toLogin = function () {
    if (redirecting) return;
    redirecting = true;
    const next = '/' + (location.hash || '');
    location.assign('/login?next=' + encodeURIComponent(next));
  };

  // ---- loading indicator: every request in flight, with bytes received.
  const inflight = new Map();
  let nextId = 1;
  const loadingListeners = [];
  A.onLoading = (fn) => loadingListeners.push(fn);
  function notifyLoading() {
    const list = Array.from(inflight.values());
    for (const fn of loadingListeners) fn(list);
  }

  A.url = function (path, query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query || {})) {
      if (v === undefined || v === null || v === '') continue;
      params.set(k, String(v));
    }
    const qs = params.toString();
    return path + (qs ? '?' + qs : '');
  };

  A.studyPath = (study) => '/api/studies/' + encodeURIComponent(study);

  async function readJson(res, entry) {
    // Read the body as a stream so the indicator can show progress.
    if (!res.body || !res.body.getReader) return res.json();
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const {done, value} = await reader.read();
      if (done) break;
      entry.received += value.length;
      text += decoder.decode(value, {stream: true});
      notifyLoading();
      if (entry.onProgress) entry.onProgress(entry.received, entry.total);
    }
    text += decoder.decode();
    return text ? JSON.parse(text) : null;
  }

  async function errorMessage(res) {
    try {
      const body = await res.json();
      if (body && body.error) return body.error;
    } catch (e) { /* not JSON */ }
    return `${res.status} ${res.statusText}`;
  }

  // GET a JSON document; opts.label names it in the loading indicator,
  // opts.quiet keeps it out of the indicator (polls).
  A.get = async function (path, query, opts) {
    opts = opts || {};
    const url = A.url(path, query);
    const id = nextId++;
    const entry = {id, label: opts.label || path, received: 0, total: null, start: Date.now(),
                   onProgress: opts.onProgress || null};
    if (!opts.quiet) { inflight.set(id, entry); notifyLoading(); }
    try {
      const res = await fetch(url, {credentials: 'same-origin', headers: {Accept: 'application/json'},
                                    signal: opts.signal});
      if (res.status === 401) { A.toLogin(); throw new AuthRedirect(); }
      if (!res.ok) throw new ApiError(res.status, await errorMessage(res), url);
      const length = Number(res.headers.get('Content-Length'));
      if (length) entry.total = length;
      return await readJson(res, entry);
    } finally {
      if (inflight.delete(id)) notifyLoading();
    }
  };

  let sessionPromise = null;
  A.session = function (refresh) {
    if (!sessionPromise || refresh) {
      sessionPromise = A.get('/api/session', null, {label: 'session'}).catch((e) => {
        sessionPromise = null;
        throw e;
      });
    }
    return sessionPromise;
  };

  // POST with the CSRF header; answers {ok, status, body} and never throws
  // for an HTTP error (the caller shows the message).
  A.post = async function (path, body) {
    const session = await A.session();
    const res = await fetch(path, {
      method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/json', 'X-Hptune-Csrf': session.csrf, Accept: 'application/json'},
      body: JSON.stringify(body || {}),
    });
    if (res.status === 401) { A.toLogin(); throw new AuthRedirect(); }
    let json = null;
    try { json = await res.json(); } catch (e) { /* empty */ }
    return {ok: res.ok, status: res.status, body: json,
            error: res.ok ? null : ((json && json.error) || `${res.status} ${res.statusText}`)};
  };

  // ---- errors: expected API failures go to the toast; bugs to the console.
  const errorListeners = [];
  A.onError = (fn) => errorListeners.push(fn);
  A.report = function (e) {
    if (!e || e instanceof AuthRedirect || e.name === 'AbortError') return;
    if (e instanceof ApiError) {
      console.warn('hptune:', e.message, e.path);  // eslint-disable-line no-console
    } else {
      console.error(e);  // eslint-disable-line no-console
    }
    for (const fn of errorListeners) fn(e);
  };

  // ---- the event stream: one EventSource for the page's lifetime.
  const changeListeners = new Set();
  const statusListeners = [];
  A.onChange = (fn) => { changeListeners.add(fn); return () => changeListeners.delete(fn); };
  A.onStreamStatus = (fn) => statusListeners.push(fn);
  A.streamOpen = false;
  let source = null;
  let retryTimer = null;

  function setOpen(open) {
    A.streamOpen = open;
    for (const fn of statusListeners) fn(open);
  }

  A.connectEvents = function () {
    if (source) source.close();
    source = new EventSource('/api/events');
    source.addEventListener('open', () => setOpen(true));
    source.addEventListener('change', (ev) => {
      let data;
      try { data = JSON.parse(ev.data); } catch (e) { return; }
      for (const fn of Array.from(changeListeners)) {
        try { fn(data); } catch (err) { A.report(err); }
      }
    });
    source.addEventListener('error', () => {
      setOpen(false);
      if (source.readyState === EventSource.CLOSED && !retryTimer) {
        // Closed for good (401, 503 too many streams): find out which, retry.
        retryTimer = setTimeout(() => {
          retryTimer = null;
          A.session(true).then(() => A.connectEvents()).catch(A.report);
        }, 3000);
      }
    });
  };

  window.hptune = window.hptune || {};
  window.hptune.api = A;
})();

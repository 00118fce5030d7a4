// hptune dashboard: telling an ACTIVE ask/tell trial's result from its page
// (POST .../complete with the study's metrics, or .../infeasible with a
// reason; CSRF header: api.js). Shown only for a trial of a study no job
// runs, and not in a read-only dashboard; the server checks it all again.
'use strict';
(function () {
  const {util: U, api: A} = window.hptune;
  const el = U.el;

  class TrialResult {
    // base: '/api/studies/S/trials/N'; done(): the page reloads the trial.
    constructor(base, done) {
      this.base = base;
      this.done = done;
      this.inputs = [];
      this.el = el('section', {class: 'card', id: 'trial-result', hidden: true, data: {testid: 'trial-result'}});
    }

    render(study, trial, session) {
      this.el.hidden = !(trial.state === 'ACTIVE' && !study.job && session && !session.read_only);
      if (this.el.hidden || this.inputs.length) return;
      this.inputs = (study.metrics || []).map((m) => el('input', {
        type: 'text', inputmode: 'decimal', id: 'result-metric-' + m.metric, data: {metric: m.metric},
        'aria-label': m.metric}));
      this.reason = el('input', {type: 'text', id: 'result-reason', maxlength: 4096, 'aria-label': 'why it is infeasible'});
      this.error = el('div', {class: 'error-box', id: 'result-error', hidden: true});
      const metrics = (study.metrics || []).map((m, i) => el('label', {class: 'result-metric'},
          el('span', {text: m.metric + (m.threshold !== null && m.threshold !== undefined ? ` (≤ ${m.threshold})` : '') +
                            (m.goal === 'MAXIMIZE' ? ' ↑' : ' ↓')}), this.inputs[i]));
      U.replace(this.el, el('h3', {text: 'Report the result (ask/tell)'}),
          el('div', {class: 'toolbar'}, ...metrics,
             el('button', {class: 'btn', type: 'button', id: 'result-complete', text: 'Complete trial',
                           on: {click: () => this.complete()}})),
          el('div', {class: 'toolbar'}, el('span', {text: 'or, with a reason:'}), this.reason,
             el('button', {class: 'btn btn-danger', type: 'button', id: 'result-infeasible', text: 'Mark infeasible',
                           on: {click: () => this.send('/infeasible', {reason: this.reason.value})}})),
          this.error);
    }

    complete() {
      const metrics = {};
      for (const input of this.inputs) {
        const value = Number(input.value.trim());
        if (input.value.trim() === '' || !Number.isFinite(value)) {
          this.fail(`${input.dataset.metric}: enter a number`);
          return;
        }
        metrics[input.dataset.metric] = value;
      }
      this.send('/complete', {metrics});
    }

    fail(message) {
      this.error.textContent = message;
      this.error.hidden = false;
    }

    async send(suffix, body) {
      let res;
      try {
        res = await A.post(this.base + suffix, body);
      } catch (e) {
        if (!(e instanceof A.AuthRedirect)) this.fail('Failed: ' + e.message);
        return;
      }
      if (!res.ok) {
        this.fail(`Failed (${res.status}): ${res.error}`);
        return;
      }
      this.error.hidden = true;
      window.hptune.app.toast(`trial ${res.body.trial}: ${res.body.state}`);
      this.done();
    }
  }

  window.hptune.TrialResult = TrialResult;
})();

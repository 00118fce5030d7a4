// hptune dashboard: deleting a study from its page: a button, a dialog that
// names the study, then POST /api/studies/S/delete with the CSRF header
// (api.js). The server refuses (409) while the study's job runs; the page
// shows its message.
'use strict';
(function () {
  const {util: U, api: A} = window.hptune;
  const el = U.el;

  class StudyDelete {
    // hooks.busy(on): the page stops refreshing while a delete is under way
    // (its study may be gone at any moment), and after one that succeeded;
    // hooks.failed(message or null): where the page shows a failure.
    constructor(study, hooks) {
      this.study = study;
      this.hooks = hooks;
      // One button for the page's life (a redrawn header keeps it).
      this.button = el('button', {class: 'btn btn-danger', id: 'delete-study', type: 'button',
                                  data: {testid: 'delete-study'}, text: 'Delete study',
                                  on: {click: () => this.open()}});
      this.confirmBtn = el('button', {class: 'btn btn-danger', type: 'button', id: 'delete-confirm',
                                      data: {testid: 'delete-confirm'}, text: 'Delete study',
                                      on: {click: () => this.confirm()}});
      const dismiss = el('button', {class: 'btn', type: 'button', id: 'delete-dismiss', data: {testid: 'delete-dismiss'},
                                    text: 'Keep it', on: {click: () => this.close()}});
      this.dialog = el('div', {class: 'modal-backdrop', id: 'delete-dialog', hidden: true, data: {testid: 'delete-dialog'},
                               on: {click: (ev) => { if (ev.target === this.dialog) this.close(); }}},
          el('div', {class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'delete-title'},
              el('h2', {id: 'delete-title', text: 'Delete this study?'}),
              el('p', {id: 'delete-text'}, 'Study ', el('strong', {class: 'mono', text: study}),
                 ' and all its trials and measurements are removed from the database for good.'),
              el('div', {class: 'modal-actions'}, dismiss, this.confirmBtn)));
      this.keyHandler = (ev) => { if (ev.key === 'Escape') this.close(); };
    }

    open() {
      this.confirmBtn.disabled = false;
      this.dialog.hidden = false;
      document.addEventListener('keydown', this.keyHandler);
      this.confirmBtn.focus();
    }

    close() {
      this.dialog.hidden = true;
      document.removeEventListener('keydown', this.keyHandler);
    }

    async confirm() {
      this.confirmBtn.disabled = true;
      this.hooks.busy(true);
      let res;
      try {
        res = await A.post(A.studyPath(this.study) + '/delete');
      } catch (e) {
        this.close();
        this.hooks.busy(false);
        if (!(e instanceof A.AuthRedirect)) this.hooks.failed('Delete failed: ' + e.message);
        return;
      }
      this.close();
      if (!res.ok) {
        this.hooks.busy(false);
        this.hooks.failed(`Delete failed (${res.status}): ${res.error}`);
        return;
      }
      this.hooks.failed(null);
      window.hptune.app.toast(`study ${this.study} deleted`);
      location.hash = '#/';
    }
  }

  window.hptune.StudyDelete = StudyDelete;
})();

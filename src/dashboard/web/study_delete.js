// hptune dashboard: deleting a study from its page: a button, a dialog that
// names the study and asks for its name typed (the dialog opens on "Keep
// it", so no Enter alone deletes), then POST /api/studies/S/delete with the
// CSRF header (api.js). The server refuses (409) while the study's job
// runs; the page shows its message.
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
      this.dismissBtn = el('button', {class: 'btn', type: 'button', id: 'delete-dismiss', data: {testid: 'delete-dismiss'},
                                      text: 'Keep it', on: {click: () => this.close()}});
      this.nameBox = el('input', {class: 'input', id: 'delete-name', autocomplete: 'off', spellcheck: 'false',
                                  'aria-label': 'the study name, to confirm', data: {testid: 'delete-name'},
                                  on: {input: () => this.syncConfirm(),
                                       keydown: (ev) => { if (ev.key === 'Enter' && this.typed()) this.confirm(); }}});
      this.dialog = el('div', {class: 'modal-backdrop', id: 'delete-dialog', hidden: true, data: {testid: 'delete-dialog'},
                               on: {click: (ev) => { if (ev.target === this.dialog) this.close(); }}},
          el('div', {class: 'modal', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'delete-title'},
              el('h2', {id: 'delete-title', text: 'Delete this study?'}),
              el('p', {id: 'delete-text'}, 'Study ', el('strong', {class: 'mono', text: study}),
                 ' and all its trials and measurements are removed from the database for good.'),
              el('label', {class: 'modal-field', for: 'delete-name'}, 'Type ',
                 el('strong', {class: 'mono', text: study}), ' to confirm:'),
              this.nameBox,
              el('div', {class: 'modal-actions'}, this.dismissBtn, this.confirmBtn)));
      this.keyHandler = (ev) => { if (ev.key === 'Escape') this.close(); };
    }

    typed() { return this.nameBox.value === this.study; }
    syncConfirm() { this.confirmBtn.disabled = !this.typed() || this.busy; }

    open() {
      this.busy = false;
      this.nameBox.value = '';
      this.syncConfirm();
      this.dialog.hidden = false;
      document.addEventListener('keydown', this.keyHandler);
      this.dismissBtn.focus();  // the safe choice: Enter keeps the study
    }

    close() {
      this.dialog.hidden = true;
      document.removeEventListener('keydown', this.keyHandler);
    }

    async confirm() {
      if (!this.typed() || this.busy) return;
      this.busy = true;
      this.syncConfirm();
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

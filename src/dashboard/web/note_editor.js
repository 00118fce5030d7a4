// hptune dashboard: the note of a study or a trial (GET/POST .../note). A
// note is untrusted input: its Markdown is rendered by markdown.js, which
// builds elements and never parses HTML. Editing (a textarea, Save with the
// CSRF header: api.js) is offered unless the dashboard is read-only.
'use strict';
(function () {
  const {util: U, api: A} = window.hptune;
  const el = U.el;

  class NoteEditor {
    // path: '/api/studies/S/note' or '/api/studies/S/trials/N/note'.
    constructor(path, what) {
      this.path = path;
      this.text = '';
      this.view = el('div', {class: 'note-text', id: 'note-text', data: {testid: 'note-text'}});
      this.meta = el('div', {class: 'muted small', id: 'note-meta'});
      this.input = el('textarea', {class: 'note-input', id: 'note-input', rows: 6, maxlength: 32768,
                                   'aria-label': 'note on this ' + what});
      this.saveBtn = el('button', {class: 'btn', type: 'button', id: 'note-save', text: 'Save',
                                   on: {click: () => this.save()}});
      this.form = el('div', {class: 'note-form', hidden: true}, this.input,
          el('div', {class: 'modal-actions'},
              el('button', {class: 'btn', type: 'button', id: 'note-cancel', text: 'Cancel',
                            on: {click: () => { this.form.hidden = true; }}}), this.saveBtn));
      this.editBtn = el('button', {class: 'btn', type: 'button', id: 'note-edit', text: 'Edit note', hidden: true,
                                   on: {click: () => this.edit()}});
      this.error = el('div', {class: 'error-box', id: 'note-error', hidden: true});
      this.el = el('section', {class: 'card note-card', id: 'note', data: {testid: 'note'}},
          el('div', {class: 'toolbar'}, el('h3', {text: 'Note'}), el('span', {class: 'spacer'}), this.editBtn),
          this.view, this.meta, this.form, this.error);
    }

    async load() {
      const [session, note] = await Promise.all([A.session(), A.get(this.path, null, {quiet: true})]);
      this.editBtn.hidden = !!session.read_only;
      this.show(note);
    }

    show(note) {
      this.text = note.text || '';
      if (this.text) this.view.replaceChildren(...window.hptune.markdown.render(this.text));
      else this.view.textContent = 'No note yet.';
      this.view.classList.toggle('muted', !this.text);
      const last = note.edits && note.edits[note.edits.length - 1];
      this.meta.textContent = last ? `saved ${U.fmtTime(last.time)} from ${last.peer} by ${last.client}` +
                                     ` · ${note.edit_count} save(s)` : '';
    }

    edit() {
      this.input.value = this.text;
      this.error.hidden = true;
      this.form.hidden = false;
      this.input.focus();
    }

    async save() {
      this.saveBtn.disabled = true;
      try {
        const res = await A.post(this.path, {text: this.input.value});
        if (res.ok) {
          this.form.hidden = true;
          this.error.hidden = true;
          this.show(res.body);
        } else {
          this.error.textContent = `Save failed (${res.status}): ${res.error}`;
          this.error.hidden = false;
        }
      } catch (e) {
        if (!(e instanceof A.AuthRedirect)) {
          this.error.textContent = 'Save failed: ' + e.message;
          this.error.hidden = false;
        }
      } finally {
        this.saveBtn.disabled = false;
      }
    }
  }

  window.hptune.NoteEditor = NoteEditor;
})();

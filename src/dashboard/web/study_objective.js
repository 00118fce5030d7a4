// hptune dashboard: the objective selector of a study of several objectives:
// the history, EDF, rank, parallel coordinates, slice, contour and
// importance tabs show the objective chosen (the server's `objective`
// parameter), the first one until another is chosen. Loaded after study.js
// (adds methods to StudyPage).
'use strict';
(function () {
  const {util: U, api: A} = window.hptune;
  const el = U.el;
  const SP = window.hptune.StudyPage.prototype;

  // The tabs the choice changes, and the documents they show.
  const TABS = new Set(['history', 'edf', 'rank', 'parcoords', 'slice', 'contour', 'importance']);
  const DOCS = ['history', 'edf', 'rank', 'points', 'importance'];

  SP.buildObjectiveBar = function () {
    this.objectiveSelect = el('select', {class: 'input input-small', id: 'objective-select', 'aria-label': 'objective',
                                         data: {testid: 'objective-select'},
                                         on: {change: () => this.setObjective(this.objectiveSelect.value)}});
    this.objectiveBar = el('div', {class: 'objective-bar', id: 'objective-bar', hidden: true},
                           el('label', {for: 'objective-select', class: 'muted', text: 'Objective '}), this.objectiveSelect);
    return this.objectiveBar;
  };
  // Called once the study's detail is known, and on each tab shown.
  SP.renderObjectiveBar = function () {
    const objectives = this.objectives();
    if (!this.objectiveBar || objectives.length < 2) return;
    if (!this.objectiveSelect.options.length) {
      U.replace(this.objectiveSelect, objectives.map((m) => el('option', {value: m.metric,
          text: `${m.metric} ${m.goal === 'MAXIMIZE' ? '↑' : '↓'}`})));
    }
    this.objectiveBar.hidden = !TABS.has(this.tab);
  };
  // {metric, goal} of the objective the plots show.
  SP.objectiveSpec = function () {
    const chosen = this.objective && this.objectives().find((m) => m.metric === this.objective);
    return chosen ? {metric: chosen.metric, goal: chosen.goal} : {metric: this.detail.metric, goal: this.detail.goal};
  };
  // The query of a document the choice changes.
  SP.objectiveQuery = function () { return this.objective ? {objective: this.objective} : {}; };
  SP.setObjective = function (name) {
    const next = name === this.detail.metric ? null : name;
    if (next === (this.objective || null)) return;
    this.objective = next;
    // A brush on the objective's axis meant the other objective.
    if (this.where) this.clearBrush();
    for (const doc of DOCS) delete this.data[doc];
    for (const tab of TABS) if (this.loaded[tab]) this.stale[tab] = true;
    if (TABS.has(this.tab)) this.loadTab(this.tab, false).catch(A.report);
  };
})();

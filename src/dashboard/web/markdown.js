// hptune dashboard: notes' Markdown, a subset rendered as DOM nodes. A note
// is untrusted input, so nothing in it is ever parsed as HTML: every piece of
// text goes in through textContent, and only the elements below are made.
// Blocks: paragraphs, headings (#, ##, ### and deeper), "- " or "* " lists,
// "1. " lists, "> " quotes and ``` code fences. Inline: `code`, **bold**,
// *italic* or _italic_, and [text](url) links whose url is http(s) or
// mailto (any other, javascript: among them, stays text).
'use strict';
(function () {
  const SAFE_URL = /^(https?:\/\/|mailto:)[^\s]+$/i;
  // Emphasis opens and closes only at a word's edge, so that snake_case
  // names and __dunders__ stay as they are written.
  const INLINE = new RegExp([
    '`([^`]+)`',
    '\\*\\*([^*]+)\\*\\*',
    '(?<![\\w*])\\*([^*\\s](?:[^*]*[^*\\s])?)\\*(?![\\w*])',
    '(?<![\\w_])_([^_\\s](?:[^_]*[^_\\s])?)_(?![\\w_])',
    // A link's text and address stop at the next bracket or parenthesis, so
    // that a 32 KiB note is scanned in linear time.
    '\\[([^\\[\\]]+)\\]\\(([^()\\s]+)\\)'].join('|'));

  function node(tag, children) {
    const e = document.createElement(tag);
    for (const c of children) e.append(c);
    return e;
  }

  // Text with inline marks, as a list of nodes and strings.
  function inline(text) {
    const out = [];
    let rest = text;
    for (let m = INLINE.exec(rest); m; m = INLINE.exec(rest)) {
      if (m.index > 0) out.push(rest.slice(0, m.index));
      if (m[1] !== undefined) {
        const code = document.createElement('code');
        code.textContent = m[1];
        out.push(code);
      } else if (m[2] !== undefined) {
        out.push(node('strong', inline(m[2])));
      } else if (m[3] !== undefined || m[4] !== undefined) {
        out.push(node('em', inline(m[3] !== undefined ? m[3] : m[4])));
      } else if (SAFE_URL.test(m[6])) {
        const a = node('a', inline(m[5]));
        a.href = m[6];
        a.rel = 'noopener noreferrer';
        a.target = '_blank';
        out.push(a);
      } else {
        out.push(m[0]);
      }
      rest = rest.slice(m.index + m[0].length);
    }
    if (rest) out.push(rest);
    return out;
  }

  const LIST_ITEM = {ul: /^\s*[-*]\s+(.*)$/, ol: /^\s*\d+[.)]\s+(.*)$/};

  // Quotes nest this deep at most; deeper '>' are text.
  const MAX_DEPTH = 8;

  // The block starting at lines[i]: [element, the index after it].
  function block(lines, i, depth) {
    const line = lines[i];
    if (line.startsWith('```')) {
      let j = i + 1;
      while (j < lines.length && !lines[j].startsWith('```')) j++;
      const code = document.createElement('code');
      code.textContent = lines.slice(i + 1, j).join('\n');
      return [node('pre', [code]), j + 1];
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) return [node('h' + Math.min(6, heading[1].length + 3), inline(heading[2])), i + 1];
    for (const tag of ['ul', 'ol']) {
      if (!LIST_ITEM[tag].test(line)) continue;
      const items = [];
      let j = i;
      for (let m; j < lines.length && (m = LIST_ITEM[tag].exec(lines[j])); j++) {
        items.push(node('li', inline(m[1])));
      }
      return [node(tag, items), j];
    }
    if (line.startsWith('>') && depth < MAX_DEPTH) {
      const quoted = [];
      let j = i;
      for (; j < lines.length && lines[j].startsWith('>'); j++) quoted.push(lines[j].replace(/^>\s?/, ''));
      return [node('blockquote', render(quoted.join('\n'), depth + 1)), j];
    }
    const para = [];
    let j = i;
    for (; j < lines.length && lines[j].trim() && (j === i || !startsBlock(lines[j])); j++) {
      para.push(lines[j]);
    }
    const p = node('p', []);
    para.forEach((text, k) => {
      if (k) p.append(document.createElement('br'));
      for (const c of inline(text)) p.append(c);
    });
    return [p, Math.max(j, i + 1)];
  }

  function startsBlock(line) {
    return line.startsWith('```') || line.startsWith('>') || /^#{1,6}\s/.test(line) ||
        LIST_ITEM.ul.test(line) || LIST_ITEM.ol.test(line);
  }

  // The note's elements, in order.
  function render(text, depth = 0) {
    const lines = String(text).replace(/\r\n?/g, '\n').split('\n');
    const out = [];
    for (let i = 0; i < lines.length;) {
      if (!lines[i].trim()) { i++; continue; }
      const [e, next] = block(lines, i, depth);
      out.push(e);
      i = next;
    }
    return out;
  }

  window.hptune.markdown = {render: (text) => render(text)};
})();

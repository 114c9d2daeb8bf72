'use strict';
// Snapshots of the node tree, for people (`markup`) and tools (`json`). Both are made from
// one description per node, so they hold the same content, in a walk without recursion
// (a tree may be deeper than the engine's stack), and both are linear in the nodes:
//
//   <__root__ id="1" class="ana-node" createdAt="1530341056867">
//     <master id="2" class="ana-node" createdAt="1530341056870" index="0">
//       <match>
//         <branches length="1">
//           <ana-appeared />
//         </branches>
//         <tasks length="1">
//           <task path="/master/ana-appeared" file="index.js" />
//         </tasks>
//       </match>
//       <ana-appeared class="ana-event" time="1530341056875" />
//     </master>
//   </__root__>

const { AnnaError } = require('./errors');
const { describeID } = require('./node-id');

const NODE_RESERVED = ['id', 'class', 'createdAt', 'index'];
const EVENT_RESERVED = ['class', 'time'];

function without(object, reserved) {
  const copy = {};
  if (object === null || object === undefined) return copy;
  for (const key of Object.keys(object)) {
    if (reserved.indexOf(key) === -1 && object[key] !== undefined) copy[key] = object[key];
  }
  return copy;
}

/** A plain description of one node, without its children. */
function describe(node, registry) {
  const digest = registry.digest(node);
  return {
    name: node._name,
    id: describeID(node._id),
    createdAt: node._createdAt,
    index: node._index,
    attributes: without(node._attributes, NODE_RESERVED),
    match: digest.tasks.length === 0 ? null : {
      branches: digest.branches,
      tasks: digest.tasks.map((task) => ({ path: task.text, file: task.relativeFile })),
    },
    events: node._recentEvents().map((event) => ({
      name: event._name,
      time: event._time,
      properties: without(event._properties, EVENT_RESERVED),
    })),
  };
}

/**
 * Walks the tree depth first, children in registration order: `enter(node, depth)` before a
 * node's children, `leave(node, depth)` after them. A loop over a stack of child iterators,
 * not recursion: a tree may be deeper than the engine's stack.
 */
function walk(root, enter, leave) {
  const nodes = [root];
  const pending = [childrenOf(root)];
  enter(root, 0);
  while (nodes.length > 0) {
    const depth = nodes.length - 1;
    const next = pending[depth].next();
    if (next.done) {
      leave(nodes.pop(), depth);
      pending.pop();
    } else {
      const child = next.value;
      enter(child, depth + 1);
      nodes.push(child);
      pending.push(childrenOf(child));
    }
  }
}

const NO_CHILDREN = Object.freeze([]);

function childrenOf(node) {
  return (node._children === null ? NO_CHILDREN : node._children).values();
}

// Markup --------------------------------------------------------------------------------

const ESCAPES = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  '\n': '&#10;', '\r': '&#13;', '\t': '&#9;',
};

// Most text needs no escape: one test finds out without allocating.
const VALUE_SPECIAL = /[&<>"'\n\r\t]/;
const NAME_SPECIAL = /[&<>"'\n\r\t =/]/;

/** Escapes an attribute value (also newlines and tabs, so each element stays on one line). */
function escapeValue(text) {
  return VALUE_SPECIAL.test(text) ? text.replace(/[&<>"'\n\r\t]/g, (c) => ESCAPES[c]) : text;
}

/** Escapes a tag or attribute name: as a value, plus spaces, `=` and `/`. */
function escapeName(text) {
  return NAME_SPECIAL.test(text) ? escapeValue(text).replace(/[ =/]/g, (c) => `&#${c.charCodeAt(0)};`) : text;
}

/** Attribute text: strings as they are, objects as JSON, undefined left out. */
function valueText(value) {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    try {
      return JSON.stringify(value);
    } catch (e) {
      return String(value);
    }
  }
  return String(value);
}

function attributesText(pairs) {
  let text = '';
  for (const [key, value] of pairs) {
    if (value === undefined) continue;
    text += ` ${escapeName(key)}="${escapeValue(valueText(value))}"`;
  }
  return text;
}

// Indent is two spaces per level up to INDENT_LEVELS; deeper lines keep that indent (the
// closing tags still tell the nesting), so the text stays linear in the nodes at any depth.
const INDENT_LEVELS = 32;
const INDENTS = Array.from({ length: INDENT_LEVELS + 1 }, (_, level) => '  '.repeat(level));

function indentAt(level) {
  return INDENTS[level < INDENT_LEVELS ? level : INDENT_LEVELS];
}

function element(lines, level, name, pairs, writeChildren) {
  const open = `${indentAt(level)}<${escapeName(name)}${attributesText(pairs)}`;
  if (writeChildren === null) {
    lines.push(open + ' />');
    return;
  }
  lines.push(open + '>');
  writeChildren(level + 1);
  lines.push(`${indentAt(level)}</${escapeName(name)}>`);
}

function list(lines, level, name, items, writeItem) {
  element(lines, level, name, [['length', items.length]], (inner) => {
    for (const item of items) writeItem(inner, item);
  });
}

/** A node's opening line, digest and events; false when it is one self-closed element. */
function openNode(lines, level, d, hasChildren) {
  const pairs = [['id', d.id], ['class', 'ana-node'], ['createdAt', d.createdAt]];
  for (const key of Object.keys(d.attributes)) pairs.push([key, d.attributes[key]]);
  if (d.index !== null) pairs.push(['index', d.index]);
  const open = `${indentAt(level)}<${escapeName(d.name)}${attributesText(pairs)}`;
  if (d.match === null && d.events.length === 0 && !hasChildren) {
    lines.push(open + ' />');
    return false;
  }
  lines.push(open + '>');
  const inner = level + 1;
  if (d.match !== null) {
    element(lines, inner, 'match', [], (matchLevel) => {
      list(lines, matchLevel, 'branches', d.match.branches,
        (i, event) => element(lines, i, event, [], null));
      list(lines, matchLevel, 'tasks', d.match.tasks,
        (i, task) => element(lines, i, 'task', [['path', task.path], ['file', task.file]], null));
    });
  }
  for (const event of d.events) {
    const eventPairs = Object.keys(event.properties).map((key) => [key, event.properties[key]]);
    eventPairs.push(['class', 'ana-event'], ['time', event.time]);
    element(lines, inner, event.name, eventPairs, null);
  }
  return true;
}

/**
 * Lines of text, joined into flat strings a few thousand at a time: a large snapshot keeps a
 * few long strings alive while it is written, not millions of small ones for the collector.
 */
class Lines {
  constructor() {
    this._lines = [];
    this._chunks = [];
  }

  push(line) {
    this._lines.push(line);
    if (this._lines.length === 4096) {
      this._chunks.push(this._lines.join('\n'));
      this._lines = [];
    }
  }

  text() {
    if (this._lines.length > 0) this._chunks.push(this._lines.join('\n'));
    return this._chunks.join('\n');
  }
}

function markup(root, registry) {
  const lines = new Lines();
  const open = []; // per node on the walk's stack: whether it has a closing tag to write
  walk(root, (node, depth) => {
    const hasChildren = node._children !== null && node._children.size > 0;
    open.push(openNode(lines, depth, describe(node, registry), hasChildren));
  }, (node, depth) => {
    if (open.pop()) lines.push(`${indentAt(depth)}</${escapeName(node._name)}>`);
  });
  return lines.text();
}

// JSON ----------------------------------------------------------------------------------

/**
 * `JSON.stringify({ root })` of the nested descriptions, written node by node: each node's
 * own members through JSON.stringify, its children between `"children":[` and `]}`.
 */
function json(root, registry) {
  const parts = ['{"root":'];
  let afterSibling = false;
  walk(root, (node) => {
    if (afterSibling) parts.push(',');
    const own = JSON.stringify(describe(node, registry));
    parts.push(own.slice(0, -1), ',"children":[');
    afterSibling = false;
  }, () => {
    parts.push(']}');
    afterSibling = true;
  });
  parts.push('}');
  return parts.join('');
}

/**
 * The snapshot text in `format`: 'markup' (default) or 'json'. Linear in the nodes, and no
 * recursion, at any depth.
 * An empty tree is '' in markup and `{"root":null}` in json.
 */
function snapshot(tree, registry, format) {
  const chosen = format === undefined || format === null ? 'markup' : format;
  if (chosen !== 'markup' && chosen !== 'json') {
    throw new AnnaError(`Unknown snapshot format ${JSON.stringify(format)}: use 'markup' or 'json'.`);
  }
  if (tree.root === null) return chosen === 'json' ? '{"root":null}' : '';
  return chosen === 'json' ? json(tree.root, registry) : markup(tree.root, registry);
}

module.exports = { snapshot, escapeValue, escapeName };

'use strict';
// Snapshots of the node tree, for people (`markup`) and tools (`json`). Both are made from
// one description, so they hold the same content:
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
const { describeID } = require('./node-tree');

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

/** A plain description of a node and its subtree. */
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
    children: node._children === null ? [] : Array.from(node._children, (child) => describe(child, registry)),
  };
}

// Markup --------------------------------------------------------------------------------

const ESCAPES = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  '\n': '&#10;', '\r': '&#13;', '\t': '&#9;',
};

/** Escapes an attribute value (also newlines and tabs, so each element stays on one line). */
function escapeValue(text) {
  return text.replace(/[&<>"'\n\r\t]/g, (c) => ESCAPES[c]);
}

/** Escapes a tag or attribute name: as a value, plus spaces, `=` and `/`. */
function escapeName(text) {
  return escapeValue(text).replace(/[ =/]/g, (c) => `&#${c.charCodeAt(0)};`);
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

function element(lines, indent, name, pairs, writeChildren) {
  const open = `${indent}<${escapeName(name)}${attributesText(pairs)}`;
  if (writeChildren === null) {
    lines.push(open + ' />');
    return;
  }
  lines.push(open + '>');
  writeChildren(indent + '  ');
  lines.push(`${indent}</${escapeName(name)}>`);
}

function list(lines, indent, name, items, writeItem) {
  element(lines, indent, name, [['length', items.length]], (inner) => {
    for (const item of items) writeItem(inner, item);
  });
}

function markupNode(lines, indent, d) {
  const pairs = [['id', d.id], ['class', 'ana-node'], ['createdAt', d.createdAt]];
  for (const key of Object.keys(d.attributes)) pairs.push([key, d.attributes[key]]);
  if (d.index !== null) pairs.push(['index', d.index]);
  const empty = d.match === null && d.events.length === 0 && d.children.length === 0;
  element(lines, indent, d.name, pairs, empty ? null : (inner) => {
    if (d.match !== null) {
      element(lines, inner, 'match', [], (matchIndent) => {
        list(lines, matchIndent, 'branches', d.match.branches,
          (i, event) => element(lines, i, event, [], null));
        list(lines, matchIndent, 'tasks', d.match.tasks,
          (i, task) => element(lines, i, 'task', [['path', task.path], ['file', task.file]], null));
      });
    }
    for (const event of d.events) {
      const eventPairs = Object.keys(event.properties).map((key) => [key, event.properties[key]]);
      eventPairs.push(['class', 'ana-event'], ['time', event.time]);
      element(lines, inner, event.name, eventPairs, null);
    }
    for (const child of d.children) markupNode(lines, inner, child);
  });
}

/**
 * The snapshot text in `format`: 'markup' (default) or 'json'.
 * An empty tree is '' in markup and `{"root":null}` in json.
 */
function snapshot(tree, registry, format) {
  const chosen = format === undefined || format === null ? 'markup' : format;
  if (chosen !== 'markup' && chosen !== 'json') {
    throw new AnnaError(`Unknown snapshot format ${JSON.stringify(format)}: use 'markup' or 'json'.`);
  }
  const root = tree.root === null ? null : describe(tree.root, registry);
  if (chosen === 'json') return JSON.stringify({ root });
  if (root === null) return '';
  const lines = [];
  markupNode(lines, '', root);
  return lines.join('\n');
}

module.exports = { snapshot, escapeValue, escapeName };

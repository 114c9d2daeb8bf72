'use strict';
// Patterns: absolute vs relative vs `*` vs event-only, load order, malformed patterns.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');
const { parsePattern } = require('anna');

const INDEX_FILE = require.resolve('./fixtures/scripted/task/index.js');
const ALPHA_FILE = require.resolve('./fixtures/scripted/task/Lib/Alpha.js');
// Where the scripted index.js calls the test's script, which calls `match`.
const MATCH_COLUMN = 53;

// 1 __root__ (path '')
//   2 master              /master
//     3 table             /master/table
//       4 cell #0         /master/table/cell
//       5 cell #1         /master/table/cell
//     6 foo               /master/foo
//       7 bar             /master/foo/bar
//   8 foo                 /foo
//     9 bar               /foo/bar
//       10 master         /foo/bar/master
const TREE = [
  [1, null, '__root__'], [2, 1, 'master'], [3, 2, 'table'], [4, 3, 'cell', 0],
  [5, 3, 'cell', 1], [6, 2, 'foo'], [7, 6, 'bar'], [8, 1, 'foo'], [9, 8, 'bar'],
  [10, 9, 'master'],
];

function build(manager) {
  for (const [id, parent, name, index] of TREE) manager.registerNode(id, parent, name, index);
}

/** The paths on which `patterns` fire when `tap` is recorded on every node, in order. */
function firing(patterns) {
  const { manager, sent } = scripted((match) => {
    match(patterns, (node) => `${node.path}#${node.index === null ? '' : node.index}`);
  });
  build(manager);
  for (const [id] of TREE) manager.recordEvent('tap', {}, id);
  return sent();
}

const ALL = ['#', '/master#', '/master/table#', '/master/table/cell#0', '/master/table/cell#1',
  '/master/foo#', '/master/foo/bar#', '/foo#', '/foo/bar#', '/foo/bar/master#'];
const CELLS = ['/master/table/cell#0', '/master/table/cell#1'];

const CASES = [
  ['/tap', ['#'], 'the root itself'],
  ['tap', ALL, 'every node (event only)'],
  ['*/tap', ALL.slice(1), 'every node but the root'],
  ['/master/tap', ['/master#'], 'master directly under the root'],
  ['master/tap', ['/master#', '/foo/bar/master#'], 'every master, at any depth'],
  ['foo/bar/tap', ['/master/foo/bar#', '/foo/bar#'], 'every bar whose parent is foo'],
  ['/foo/bar/tap', ['/foo/bar#'], 'only the bar at /foo/bar'],
  ['*/bar/tap', ['/master/foo/bar#', '/foo/bar#'], 'bar under any one node'],
  ['/*/tap', ['/master#', '/foo#'], 'any node at depth 1'],
  ['/*/*/tap', ['/master/table#', '/master/foo#', '/foo/bar#'], 'any node at depth 2'],
  ['table/*/tap', CELLS, 'any child of table'],
  ['bar/*/tap', ['/foo/bar/master#'], 'any child of a bar'],
  ['master/table/cell/tap', CELLS, 'a full relative path'],
  ['/master/table/cell/tap', CELLS, 'a full absolute path'],
  ['__root__/tap', [], "the root's name is in no path"],
  ['/__root__/tap', [], "the root's name is in no path, anchored or not"],
  ['/table/cell/tap', [], 'an anchored path must start at the root'],
  ['master/cell/tap', [], 'the names must be consecutive'],
  ['Master/tap', [], 'names are case-sensitive'],
  ['/master/other', [], 'the event differs'],
  ['/*/*/*/*/tap', [], 'the tree is not that deep'],
];

const tests = {};

for (const [pattern, expected, meaning] of CASES) {
  const title = expected.length > 0
    ? `'${pattern}' fires on ${meaning}`
    : `'${pattern}' fires on nothing: ${meaning}`;
  tests[title] = () => {
    assert.deepEqual(firing(pattern), expected, `pattern '${pattern}'`);
  };
}

tests['parsePattern splits anchor, node steps and event'] = () => {
  assert.deepEqual(parsePattern('/master/*/tap'),
    { text: '/master/*/tap', anchored: true, steps: ['master', '*'], event: 'tap' });
  assert.deepEqual(parsePattern('cell/did-select'),
    { text: 'cell/did-select', anchored: false, steps: ['cell'], event: 'did-select' });
  assert.deepEqual(parsePattern('ana-appeared'),
    { text: 'ana-appeared', anchored: false, steps: [], event: 'ana-appeared' });
  assert.deepEqual(parsePattern('/ana-appeared'),
    { text: '/ana-appeared', anchored: true, steps: [], event: 'ana-appeared' });
};

const MALFORMED = [
  ['', 'it is empty'],
  ['/', 'it names no event'],
  ['cell/', "it ends with '/', so it names no event"],
  ['master//tap', "it has an empty node name ('//')"],
  ['//tap', "it starts with '//'"],
  ['cell/*', "the event cannot be '*' ('*' stands for one node name)"],
  ['*', "the event cannot be '*' ('*' stands for one node name)"],
];

for (const [pattern, reason] of MALFORMED) {
  tests[`malformed pattern '${pattern}' is rejected naming the file and pattern`] = () => {
    const { manager } = scripted((match) => match(pattern, () => 1));
    const error = assert.throws(() => manager.registerNode(1, null, 'root'),
      `task file index.js was not loaded: malformed pattern '${pattern}' at index.js:6:${MATCH_COLUMN}: ${reason}.`);
    assert.equal(error.name, 'LoadError', 'counted as a task file that failed to load');
    assert.deepEqual([error.taskFile, error.file, error.sourceURL, error.line], ['index.js', INDEX_FILE, INDEX_FILE, 6]);
    assert.equal(error.cause.name, 'PatternError', 'the malformed pattern stays reachable');
    assert.equal(error.cause.message, `Malformed pattern '${pattern}' in ${INDEX_FILE}: ${reason}.`);
  };
}

tests['a pattern that is not a string is rejected'] = () => {
  const { manager } = scripted((match) => match(42, () => 1));
  const error = assert.throws(() => manager.registerNode(1, null, 'root'),
    `task file index.js was not loaded: malformed pattern 42 at index.js:6:${MATCH_COLUMN}: a pattern must be a string, not number.`);
  assert.equal(error.name, 'LoadError');
};

tests['a malformed pattern inside a list is rejected'] = () => {
  const { manager } = scripted((match) => match(['ok/tap', 'bad//tap'], () => 1));
  assert.throws(() => manager.registerNode(1, null, 'root'),
    /^task file index\.js was not loaded: malformed pattern 'bad\/\/tap' at index\.js:6:\d+: it has an empty node name/);
};

tests['an empty pattern list is rejected'] = () => {
  const { manager } = scripted((match) => match([], () => 1));
  const error = assert.throws(() => manager.registerNode(1, null, 'root'),
    `task file index.js was not loaded: match() was given no pattern (index.js:6:${MATCH_COLUMN}).`);
  assert.equal(error.name, 'LoadError');
  assert.equal(error.cause.name, 'PatternError');
};

tests['match needs a function'] = () => {
  const { manager } = scripted((match) => match('tap', 'not a function'));
  const error = assert.throws(() => manager.registerNode(1, null, 'root'),
    'task file index.js was not loaded: match("tap", ...) needs a function as its second argument, not string ' +
    `(index.js:6:${MATCH_COLUMN}).`);
  assert.equal(error.name, 'LoadError');
  assert.equal(error.cause.name, 'AnnaError');
};

tests['a malformed pattern drops its whole file and leaves other files alone'] = () => {
  const { manager, sent } = scripted({
    index: (match) => match('tap', () => 'index'),
    'Lib.Alpha': (match) => {
      match('cell/tap', () => 'alpha, before the bad pattern');
      match('cell//tap', () => 'alpha, bad');
    },
  });
  manager.registerNode(1, null, 'root');
  assert.throws(() => manager.registerNode(2, 1, 'cell', null, 'Lib.Alpha'),
    new RegExp("^task file Lib/Alpha\\.js was not loaded: malformed pattern 'cell//tap' at Lib/Alpha\\.js:\\d+:\\d+: " +
      "it has an empty node name \\('//'\\)\\.$"));
  manager.recordEvent('tap', null, 2);
  assert.deepEqual(sent(), ['index']);
  assert.equal(manager.stats().tasks, 1);
};

tests['a list of patterns is one task: it runs once per event, reported with the first pattern that matched'] = () => {
  const { manager, results } = scripted((match) => match(['/master/tap', 'master/tap', 'other/tap'], () => 'hit'));
  manager.registerNode(1, null, 'root');
  manager.registerNode(2, 1, 'master');
  manager.registerNode(3, 2, 'other');
  manager.registerNode(4, 3, 'master');
  manager.recordEvent('tap', null, 2);
  manager.recordEvent('tap', null, 3);
  manager.recordEvent('tap', null, 4);
  assert.deepEqual(results.map((r) => `${r.meta.path} ${r.meta.task}`),
    ['/master /master/tap', '/master/other other/tap', '/master/other/master master/tap']);
};

tests['matching tasks run in load order, whatever their kind'] = () => {
  const { manager, sent } = scripted((match) => {
    match('cell/tap', () => 1);
    match('tap', () => 2);
    match('/master/table/*/tap', () => 3);
    match('table/cell/tap', () => 4);
    match('*/tap', () => 5);
    match('/master/table/cell/tap', () => 6);
    match('other/tap', () => 'never');
  });
  build(manager);
  manager.recordEvent('tap', null, 4);
  assert.deepEqual(sent(), [1, 2, 3, 4, 5, 6]);
};

tests['a pattern fires only for its event'] = () => {
  const { manager, sent } = scripted((match) => {
    match('cell/tap', () => 'tap');
    match('cell/did-select', () => 'did-select');
  });
  build(manager);
  manager.recordEvent('did-select', null, 4);
  manager.recordEvent('scroll', null, 4);
  manager.recordEvent('tap', null, 4);
  assert.deepEqual(sent(), ['did-select', 'tap']);
};

module.exports = tests;

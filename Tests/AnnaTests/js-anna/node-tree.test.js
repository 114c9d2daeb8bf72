'use strict';
// The node tree: root rules, error messages, keyed IDs and owner deregistration.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

function manager() {
  return scripted((match) => match('tap', (node) => node.path)).manager;
}

function isNodeError(error) {
  return error instanceof Error && error.name === 'NodeError';
}

module.exports = {
  'the first parentless registration is the root, with path ""'() {
    const { manager: m, sent } = scripted((match) => match('tap', (node) => node.path));
    m.registerNode(1, null, '__root__');
    m.registerNode(2, 1, 'master');
    m.recordEvent('tap', null, 1);
    m.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['', '/master']);
  },

  'parentID may be null or undefined for the root'() {
    const m = manager();
    m.registerNode(1, undefined, 'root');
    assert.equal(m.stats().nodes, 1);
  },

  'a second root is an error naming both nodes'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    const error = assert.throws(() => m.registerNode(9, null, 'other'),
      "Cannot register node 9 named 'other' as a root: node 1 named '__root__' is already the " +
      'root (give a parent ID).');
    assert.ok(isNodeError(error));
    assert.equal(m.stats().nodes, 1);
  },

  'a duplicate ID is an error naming the ID and both names'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    m.registerNode(2, 1, 'master');
    const error = assert.throws(() => m.registerNode(2, 1, 'detail'),
      "Cannot register node 2 named 'detail': ID 2 is already registered (node 2 named " +
      "'master' at '/master').");
    assert.ok(isNodeError(error));
  },

  'a duplicate keyed ID is an error too'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    m.registerNode([1, 'table'], 1, 'table');
    assert.throws(() => m.registerNode([1, 'table'], 1, 'list'),
      "Cannot register node 1/table named 'list': ID 1/table is already registered (node " +
      "1/table named 'table' at '/table').");
  },

  'an unknown parent is an error naming the node and the parent'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    const error = assert.throws(() => m.registerNode(9, 4, 'cell'),
      "Cannot register node 9 named 'cell': its parent 4 is not registered.");
    assert.ok(isNodeError(error));
    assert.throws(() => m.registerNode(9, [4, 'table', 0], 'cell'),
      "Cannot register node 9 named 'cell': its parent 4/table/0 is not registered.");
    assert.equal(m.stats().nodes, 1);
  },

  'an unknown parent is an error even before there is a root'() {
    const m = manager();
    assert.throws(() => m.registerNode(2, 1, 'master'),
      "Cannot register node 2 named 'master': its parent 1 is not registered.");
  },

  'malformed IDs and names are errors'() {
    const m = manager();
    assert.throws(() => m.registerNode('abc', null, 'root'),
      "Cannot register a node named 'root': \"abc\" is not an ID (a number, or an array " +
      '[ownerID, key, ...] of a number and strings or numbers).');
    assert.throws(() => m.registerNode([], null, 'root'), /is not an ID/);
    assert.throws(() => m.registerNode(['a', 'b'], null, 'root'), /is not an ID/);
    assert.throws(() => m.registerNode([1, {}], null, 'root'), /is not an ID/);
    assert.throws(() => m.registerNode(NaN, null, 'root'), /is not an ID/);
    assert.throws(() => m.registerNode(1, null, ''),
      "Cannot register node 1: its name '' is not a non-empty string without '/'.");
    assert.throws(() => m.registerNode(1, null, 'a/b'),
      "Cannot register node 1: its name 'a/b' is not a non-empty string without '/'.");
    assert.throws(() => m.registerNode(1, null, 7), /its name 7 is not a non-empty string/);
    assert.throws(() => m.registerNode(1, null, 'root', 'first'),
      "Cannot register node 1 named 'root': its index \"first\" is not a number.");
    assert.throws(() => m.registerNode(1, null, 'root', 0, null, 'attrs'),
      "Cannot register node 1 named 'root': its attributes must be an object.");
    assert.throws(() => m.registerNode(1, 'x', 'root'),
      "Cannot register node 1 named 'root': its parent ID \"x\" is not an ID.");
    assert.equal(m.stats().nodes, 0);
  },

  'an event on an unregistered node is an error naming the event and the node ID'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    const error = assert.throws(() => m.recordEvent('did-select', {}, 42),
      "Cannot record event 'did-select' on node 42: the node is not registered.");
    assert.ok(isNodeError(error));
    assert.throws(() => m.recordEvent('ana-appeared', {}, [1, 'table', 3]),
      "Cannot record event 'ana-appeared' on node 1/table/3: the node is not registered.");
    assert.throws(() => m.recordEvent('', {}, 1),
      'Cannot record event "" on node 1: an event name is a non-empty string.');
    assert.throws(() => m.recordEvent('tap', 'props', 1),
      "Cannot record event 'tap' on node 1: its properties must be an object.");
  },

  'keyed IDs are nodes of their own'() {
    const { manager: m, results } = scripted((match) => match('tap', (node) => node.path));
    m.registerNode(1, null, '__root__');
    m.registerNode(5, 1, 'master');
    m.registerNode([5, 'table'], 5, 'table');
    m.registerNode([5, 'table', 0], [5, 'table'], 'cell', 0);
    m.registerNode([5, 0], 5, 'zero');
    m.registerNode([5, '0'], 5, 'zero-string');
    m.recordEvent('tap', null, [5, 'table', 0]);
    m.recordEvent('tap', null, [5, 0]);
    m.recordEvent('tap', null, [5, '0']);
    m.recordEvent('tap', null, [5]);
    assert.deepEqual(results.map((r) => r.result),
      ['/master/table/cell', '/master/zero', '/master/zero-string', '/master']);
  },

  '[owner] alone is the same ID as owner'() {
    const m = manager();
    m.registerNode([1], null, '__root__');
    assert.throws(() => m.registerNode(1, 1, 'again'), /ID 1 is already registered/);
    m.recordEvent('tap', null, 1);
  },

  'deregistering a number removes every keyed ID of that owner and all descendants'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    m.registerNode(5, 1, 'master');
    m.registerNode([5, 'table'], 5, 'table');
    m.registerNode([5, 'table', 'header'], [5, 'table'], 'header');
    m.registerNode(6, [5, 'table'], 'cell'); // another owner, below owner 5
    m.registerNode([6, 'label'], 6, 'label');
    m.registerNode(7, 1, 'detail'); // unrelated
    m.registerNode([7, 'button'], 7, 'button');
    assert.deepEqual([m.stats().nodes, m.stats().owners], [8, 4]);

    assert.equal(m.deregisterNodes(5), 5);
    assert.deepEqual([m.stats().nodes, m.stats().owners], [3, 2]);
    for (const gone of [5, [5, 'table'], [5, 'table', 'header'], 6, [6, 'label']]) {
      assert.throws(() => m.recordEvent('tap', null, gone), /the node is not registered/);
    }
    m.recordEvent('tap', null, 7);
    m.recordEvent('tap', null, [7, 'button']);
  },

  'deregistering an owner that has only keyed IDs removes them all'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    m.registerNode([8, 'a'], 1, 'a');
    m.registerNode([8, 'b'], 1, 'b');
    assert.equal(m.deregisterNodes(8), 2);
    assert.deepEqual([m.stats().nodes, m.stats().owners], [1, 1]);
  },

  'deregistering a keyed ID removes the IDs that start with it, and their descendants'() {
    const m = manager();
    m.registerNode(1, null, '__root__');
    m.registerNode(5, 1, 'master');
    m.registerNode([5, 'table'], 5, 'table');
    m.registerNode([5, 'table', 'header'], 5, 'header');
    m.registerNode([5, 'tables'], 5, 'tables');
    m.registerNode(6, [5, 'table'], 'cell');
    assert.equal(m.deregisterNodes([5, 'table']), 3);
    m.recordEvent('tap', null, 5);
    m.recordEvent('tap', null, [5, 'tables']);
    assert.throws(() => m.recordEvent('tap', null, 6), /not registered/);
    assert.deepEqual([m.stats().nodes, m.stats().owners], [3, 2]);
  },

  'deregistering an unknown ID does nothing and returns 0'() {
    const m = manager();
    assert.equal(m.deregisterNodes(3), 0);
    m.registerNode(1, null, '__root__');
    m.registerNode(2, 1, 'master');
    m.registerNode(3, 2, 'cell');
    m.deregisterNodes(2);
    assert.equal(m.deregisterNodes(3), 0, 'already gone with its parent');
    assert.equal(m.deregisterNodes([1, 'nothing']), 0);
  },

  'deregistering a malformed ID is an error'() {
    const m = manager();
    const error = assert.throws(() => m.deregisterNodes('x'),
      'Cannot deregister "x": it is not an ID (a number, or an array [ownerID, key, ...]).');
    assert.ok(isNodeError(error));
  },

  'after the root is deregistered a new root can be registered'() {
    const { manager: m, sent } = scripted((match) => match('tap', (node) => node.nodeName));
    m.registerNode(1, null, 'old');
    m.registerNode(2, 1, 'child');
    assert.equal(m.deregisterNodes(1), 2);
    assert.deepEqual([m.stats().nodes, m.stats().owners], [0, 0]);
    m.registerNode(3, null, 'new');
    m.registerNode(2, 3, 'child');
    m.recordEvent('tap', null, 3);
    m.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['new', 'child']);
  },

  'nodes are found by number while numbers climb, jump back, or stand far apart'() {
    const { manager: m, sent } = scripted((match) => match('tap', (node) => node.path));
    m.registerNode(1, null, '__root__');
    m.registerNode(2, 1, 'app');
    // Hosts come and go with ever larger numbers while the first ones stay.
    for (let number = 10; number < 20000; number += 1) {
      m.registerNode(number, 2, 'cell' + (number % 3));
      if (number % 1000 === 0) m.recordEvent('tap', null, number);
      m.deregisterNodes(number);
    }
    m.registerNode(50000, 2, 'far');
    m.registerNode(3, 2, 'back'); // below every number seen for a while
    m.registerNode(-4, 2, 'negative');
    for (const id of [1, 2, 50000, 3, -4]) m.recordEvent('tap', null, id);
    assert.deepEqual(sent().slice(-5), ['', '/app', '/app/far', '/app/back', '/app/negative']);
    assert.equal(sent().length, 19 + 5);
    assert.equal(m.stats().nodes, 5);
    assert.throws(() => m.recordEvent('tap', null, 19999), isNodeError);
  },

  'IDs may be reused after deregistration, with fresh state'() {
    const { manager: m, sent } = scripted((match) =>
      match('probe', (node) => [node.path, node.isVisible()]));
    m.registerNode(1, null, '__root__');
    m.registerNode(2, 1, 'master');
    m.recordEvent('ana-appeared', null, 2);
    m.deregisterNodes(2);
    m.registerNode(2, 1, 'detail');
    m.recordEvent('probe', null, 2);
    assert.deepEqual(sent(), [['/detail', false]]);
  },
};

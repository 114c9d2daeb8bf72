'use strict';
// The node API tasks see, the event object, the clock, the last 10 events, the constructor.

const assert = require('./support/assert');
const { open, scripted, clock } = require('./support/fixtures');

/** A manager whose `probe` event sends `look(node)`; with a tree root/master/table/cell#3. */
function probing(look, config) {
  const opened = scripted((match) => match('probe', look), config);
  const m = opened.manager;
  m.registerNode(1, null, '__root__');
  m.registerNode(2, 1, 'master', null, null, { title: 'Master' });
  m.registerNode([2, 'table'], 2, 'table');
  m.registerNode(4, [2, 'table'], 'cell', 3);
  return opened;
}

module.exports = {
  'nodeName, index, path and parentNode'() {
    const { manager, sent } = probing((node) => ({
      name: node.nodeName,
      index: node.index,
      path: node.path,
      parent: node.parentNode === null ? null : node.parentNode.nodeName,
    }));
    for (const id of [1, 2, [2, 'table'], 4]) manager.recordEvent('probe', null, id);
    assert.deepEqual(sent(), [
      { name: '__root__', index: null, path: '', parent: null },
      { name: 'master', index: null, path: '/master', parent: '__root__' },
      { name: 'table', index: null, path: '/master/table', parent: 'master' },
      { name: 'cell', index: 3, path: '/master/table/cell', parent: 'table' },
    ]);
  },

  'ancestor(distance): 0 is the node itself, null above the root'() {
    const { manager, sent } = probing((node) => [0, 1, 2, 3, 4, undefined].map((d) => {
      const found = node.ancestor(d);
      return found === null ? null : found.nodeName;
    }));
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent(), [['cell', 'table', 'master', '__root__', null, 'cell']]);
  },

  'ancestor with a negative or fractional distance fails the task'() {
    const { manager } = probing((node) => node.ancestor(-1));
    const error = assert.throws(() => manager.recordEvent('probe', null, 4),
      "Task 'probe' failed on node '/master/table/cell' for event 'probe': " +
      'ancestor(distance) needs a whole number >= 0, not -1.');
    assert.equal(error.name, 'TaskError');
  },

  'attributes are a copy of those given at registration'() {
    const { manager, sent } = probing((node) => {
      const attributes = node.attributes;
      attributes.title = 'changed by a task';
      return [attributes, node.attributes];
    });
    manager.recordEvent('probe', null, 2);
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent(), [
      [{ title: 'changed by a task' }, { title: 'Master' }],
      [{ title: 'changed by a task' }, {}],
    ]);
  },

  'latestEvent() is the event being handled, with nodeName and attributes (properties + time)'() {
    const { manager, sent } = probing((node) => {
      const event = node.latestEvent();
      return { nodeName: event.nodeName, attributes: event.attributes, time: event.time };
    }, { now: clock(1000) });
    manager.recordEvent('probe', { x: 1, label: 'first' }, 4);
    manager.recordEvent('probe', undefined, 4);
    // registrations used 1000..1003
    assert.deepEqual(sent(), [
      { nodeName: 'probe', attributes: { x: 1, label: 'first', time: 1004 }, time: 1004 },
      { nodeName: 'probe', attributes: { time: 1005 }, time: 1005 },
    ]);
  },

  'latestEvent() is null before any event, and an event turns into JSON as nodeName + attributes'() {
    let seen = 'not run';
    const { manager, sent } = probing((node) => {
      seen = node.parentNode.latestEvent();
      return JSON.parse(JSON.stringify(node.latestEvent()));
    }, { now: () => 7 });
    manager.recordEvent('probe', { a: 'b' }, 4);
    assert.equal(seen, null);
    assert.deepEqual(sent(), [{ nodeName: 'probe', attributes: { a: 'b', time: 7 } }]);
  },

  'latestValue(keyPath) follows ana-updated events'() {
    const { manager, sent } = probing((node) => [node.latestValue('title'), node.latestValue('count')]);
    manager.recordEvent('probe', null, 4);
    manager.recordEvent('ana-updated', { 'key-path': 'title', value: 'Hello' }, 4);
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 2 }, 4);
    manager.recordEvent('probe', null, 4);
    manager.recordEvent('ana-updated', { 'key-path': 'title', value: 'World' }, 4);
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: null }, 4);
    manager.recordEvent('ana-updated', { value: 'no key path: not a value update' }, 4);
    manager.recordEvent('probe', null, 4);
    // Results are JSON data: an array's undefined members are sent as null.
    assert.deepEqual(sent(), [[null, null], ['Hello', 2], ['World', null]]);
  },

  'config.now is the clock for createdAt and event times'() {
    let now = 5000;
    const { manager } = scripted(() => {}, { now: () => now });
    manager.registerNode(1, null, '__root__');
    now = 6000;
    manager.recordEvent('tap', { n: 1 }, 1);
    const root = JSON.parse(manager.snapshot('json')).root;
    assert.equal(root.createdAt, 5000);
    assert.deepEqual(root.events, [{ name: 'tap', time: 6000, properties: { n: 1 } }]);
  },

  'without config.now the clock is Date.now'() {
    const { manager } = scripted(() => {});
    const before = Date.now();
    manager.registerNode(1, null, '__root__');
    const createdAt = JSON.parse(manager.snapshot('json')).root.createdAt;
    assert.ok(createdAt >= before && createdAt <= Date.now(), `createdAt ${createdAt}`);
  },

  'a bad clock is an error'() {
    assert.throws(() => scripted(() => {}, { now: 12 }),
      'config.now must be a function returning milliseconds since 1970.');
    const { manager } = scripted(() => {}, { now: () => 'noon' });
    assert.throws(() => manager.registerNode(1, null, 'root'),
      'config.now() returned "noon", not a number of milliseconds.');
  },

  'each node keeps its last 10 events'() {
    const { manager } = scripted(() => {}, { now: clock(0) });
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'master');
    for (let i = 0; i < 12; i += 1) manager.recordEvent(`e${i}`, { i }, 2);
    manager.recordEvent('only', null, 1);
    const root = JSON.parse(manager.snapshot('json')).root;
    const names = root.children[0].events.map((e) => e.name);
    assert.deepEqual(names, ['e2', 'e3', 'e4', 'e5', 'e6', 'e7', 'e8', 'e9', 'e10', 'e11']);
    assert.deepEqual(root.events.map((e) => e.name), ['only']);
    for (let i = 12; i < 27; i += 1) manager.recordEvent(`e${i}`, { i }, 2);
    const later = JSON.parse(manager.snapshot('json')).root.children[0].events.map((e) => e.name);
    assert.deepEqual(later, ['e17', 'e18', 'e19', 'e20', 'e21', 'e22', 'e23', 'e24', 'e25', 'e26'], 'oldest first, past several wraps');
  },

  'latestValue keeps any number of key paths apart, compared as Map keys'() {
    const { manager, sent } = probing((node) => ['a', 'b', 'c', undefined, NaN].map((key) => node.latestValue(key)));
    manager.recordEvent('probe', null, 4);
    for (const [keyPath, value] of [['a', 1], ['b', 2], ['c', 3], [undefined, 'u'], [NaN, 'nan'], ['a', 10]]) {
      manager.recordEvent('ana-updated', { 'key-path': keyPath, value }, 4);
    }
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent(), [[null, null, null, null, null], [10, 2, 3, 'u', 'nan']]);
  },

  'the module constructor works with and without new'() {
    const Module = require('./fixtures/shop');
    const received = [];
    const a = new Module((result) => received.push(result));
    const b = Module((result) => received.push(result));
    for (const m of [a, b]) {
      assert.ok(m instanceof Module, 'instanceof the module constructor');
      m.registerNode(1, null, '__root__');
      m.recordEvent('ana-appeared', null, 1);
    }
    assert.deepEqual(received, [{ action: 'launched' }, { action: 'launched' }]);
  },

  'managers of one module are independent'() {
    const one = open('shop');
    const two = open('shop');
    one.manager.registerNode(1, null, '__root__');
    two.manager.registerNode(1, null, '__root__');
    one.manager.recordEvent('ana-appeared', null, 1);
    assert.equal(one.results.length, 1);
    assert.equal(two.results.length, 0);
    assert.equal(two.manager.stats().tasks, 3, 'the second manager loaded index.js too');
  },

  'the constructor checks its arguments'() {
    const Module = require('./fixtures/shop');
    const error = assert.throws(() => new Module(null),
      'The manager needs a function to receive results, not object.');
    assert.equal(error.name, 'AnnaError');
    assert.throws(() => new Module(() => {}, 'debug'), 'The manager config must be an object.');
    const { configured } = require('anna');
    assert.throws(() => configured({}),
      "configured() needs { task: '<absolute path of the task folder>' }.");
    assert.throws(() => configured({ task: 'task' }),
      "configured() needs an absolute task folder, not 'task' (write __dirname + '/task').");
  },
};

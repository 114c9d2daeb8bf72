'use strict';
// Running tasks: results, meta, load order, error isolation and the TaskError report.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

module.exports = {
  'a result of undefined is not sent; null, 0, false and "" are'() {
    const { manager, sent } = scripted((match) => {
      for (const value of [undefined, null, 0, false, '', 'text']) match('tap', () => value);
      match('tap', () => {});
    });
    manager.registerNode(1, null, 'root');
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), [null, 0, false, '', 'text']);
  },

  'receive gets each result with meta { task, path, event }'() {
    const { manager, results } = scripted((match) => {
      match('cell/did-select', (node) => ({ selected: node.index }));
      match(['/master/list/cell/did-select'], () => 'absolute');
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'master');
    manager.registerNode(3, 2, 'list');
    manager.registerNode(4, 3, 'cell', 7);
    manager.recordEvent('did-select', {}, 4);
    assert.deepEqual(results, [
      { result: { selected: 7 },
        meta: { task: 'cell/did-select', path: '/master/list/cell', event: 'did-select' } },
      { result: 'absolute',
        meta: { task: '/master/list/cell/did-select', path: '/master/list/cell', event: 'did-select' } },
    ]);
  },

  'results of one task on one path share one frozen meta; other paths and tasks have their own'() {
    const { manager, results } = scripted((match) => {
      match('cell/did-select', (node) => node.index);
      match('did-select', () => 'any');
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'list');
    manager.registerNode(3, 2, 'cell', 0);
    manager.registerNode(4, 2, 'cell', 1);
    manager.registerNode(5, 1, 'other');
    manager.registerNode(6, 5, 'cell', 2);
    for (const id of [3, 4, 6]) manager.recordEvent('did-select', null, id);
    const metas = results.map((r) => r.meta);
    assert.equal(metas.length, 6);
    assert.ok(metas.every((meta) => Object.isFrozen(meta)), 'frozen: no receiver can change what others see');
    assert.ok(metas[0] === metas[2], 'cells 0 and 1 of /list: one meta for cell/did-select');
    assert.ok(metas[1] === metas[3], 'and one for did-select');
    assert.ok(metas[0] !== metas[1], 'two tasks, two metas');
    assert.ok(metas[0] !== metas[4], 'another path, another meta');
    assert.deepEqual(metas[4], { task: 'cell/did-select', path: '/other/cell', event: 'did-select' });
  },

  'a task receives the node the event happened on'() {
    let seen = null;
    const { manager } = scripted((match) => match('tap', function (node) {
      seen = { count: arguments.length, name: node.nodeName };
    }));
    manager.registerNode(1, null, 'root');
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(seen, { count: 1, name: 'root' });
  },

  'tasks run in load order across files'() {
    const { manager, sent } = scripted({
      index: (match) => { match('tap', () => 'index 1'); match('cell/tap', () => 'index 2'); },
      'Lib.Alpha': (match) => { match('*/tap', () => 'alpha 1'); match('tap', () => 'alpha 2'); },
      'Lib.Beta': (match) => match('/cell/tap', () => 'beta'),
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'cell', null, 'Lib.Beta');
    manager.registerNode(3, 1, 'other', null, 'Lib.Alpha');
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['index 1', 'index 2', 'beta', 'alpha 1', 'alpha 2']);
  },

  'tasks loaded after nodes exist apply to those nodes, even after events were handled'() {
    const { manager, sent } = scripted({
      index: (match) => match('cell/tap', () => 'index'),
      'Lib.Alpha': (match) => {
        match('cell/tap', () => 'alpha');
        match('cell/scroll', () => 'alpha scroll');
      },
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'cell');
    manager.recordEvent('tap', null, 2); // caches the list for 'tap' on node 2
    manager.recordEvent('scroll', null, 2); // no task for 'scroll' yet
    manager.registerNode(3, 1, 'loader', null, 'Lib.Alpha');
    manager.recordEvent('tap', null, 2);
    manager.recordEvent('scroll', null, 2);
    assert.deepEqual(sent(), ['index', 'index', 'alpha', 'alpha scroll']);
  },

  'a throwing task does not stop the others; the error comes after all results were sent'() {
    const original = new Error('boom');
    const { manager, sent } = scripted((match) => {
      match('tap', () => 'first');
      match('b/tap', () => { throw original; });
      match('tap', () => 'third');
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'b');
    const error = assert.throws(() => manager.recordEvent('tap', null, 2),
      "Task 'b/tap' failed on node '/b' for event 'tap': boom");
    assert.deepEqual(sent(), ['first', 'third'], 'both other results were sent before the throw');
    assert.equal(error.name, 'TaskError');
    assert.ok(error instanceof Error);
    assert.equal(error.stack, original.stack, 'the stack is the original one');
    const [failure] = error.errors;
    assert.deepEqual([failure.task, failure.path, failure.event, failure.message, failure.stack],
      ['b/tap', '/b', 'tap', 'boom', original.stack]);
    assert.equal(failure.file, require.resolve('./fixtures/scripted/task/index.js'), 'the task file, absolute');
  },

  'several failures are listed one per line'() {
    const { manager, sent } = scripted((match) => {
      match('tap', () => { throw new TypeError('first failure'); });
      match('tap', () => 'survivor');
      match('/b/tap', (node) => node.missing.property);
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'b');
    const error = assert.throws(() => manager.recordEvent('tap', null, 2));
    const lines = error.message.split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[0], '2 tasks failed:');
    assert.equal(lines[1], "Task 'tap' failed on node '/b' for event 'tap': first failure");
    assert.ok(/^Task '\/b\/tap' failed on node '\/b' for event 'tap': .+/.test(lines[2]), lines[2]);
    assert.deepEqual(error.errors.map((e) => e.task), ['tap', '/b/tap']);
    assert.ok(typeof error.errors[1].stack === 'string', 'each failure keeps its stack');
    assert.deepEqual(sent(), ['survivor']);
  },

  'a thrown non-Error is reported by its text'() {
    const { manager } = scripted((match) => match('tap', () => { throw 'plain text'; }));
    manager.registerNode(1, null, 'root');
    const error = assert.throws(() => manager.recordEvent('tap', null, 1),
      "Task 'tap' failed on node '' for event 'tap': plain text");
    assert.equal(error.errors[0].stack, undefined);
  },

  'the event is recorded even when a task throws, and later events still work'() {
    const { manager, sent } = scripted((match) => {
      match('tap', () => { throw new Error('always'); });
      match('probe', (node) => node.parentNode === null && 'root probed');
    });
    manager.registerNode(1, null, 'root');
    assert.throws(() => manager.recordEvent('tap', null, 1), /always/);
    assert.throws(() => manager.recordEvent('tap', null, 1), /always/);
    manager.recordEvent('probe', null, 1);
    assert.deepEqual(sent(), ['root probed']);
    const events = JSON.parse(manager.snapshot('json')).root.events.map((e) => e.name);
    assert.deepEqual(events, ['tap', 'tap', 'probe']);
  },

  'an error thrown by receive is the failure of the task whose result it was; the others still run'() {
    scripted((match) => {
      match('tap', () => 'x');
      match('tap', () => 'y');
    });
    const Module = require('./fixtures/scripted');
    const received = [];
    const manager = Module((result) => {
      if (result === 'x') throw new Error('host refused x');
      received.push(result);
    });
    manager.registerNode(1, null, 'root');
    const error = assert.throws(() => manager.recordEvent('tap', null, 1), "Task 'tap' failed on node '' for event 'tap': host refused x");
    assert.equal(error.errors.length, 1);
    assert.deepEqual(received, ['y']);
  },

  'match kept after its file loaded cannot add tasks'() {
    let kept = null;
    const { manager } = scripted((match) => { kept = match; });
    manager.registerNode(1, null, 'root');
    const file = require.resolve('./fixtures/scripted/task/index.js');
    const error = assert.throws(() => kept('tap', () => 1),
      `match() was called after '${file}' finished loading; call it while the task file runs.`);
    assert.equal(error.name, 'AnnaError');
  },

  'events with no tasks send nothing'() {
    const { manager, results } = scripted(() => {});
    manager.registerNode(1, null, 'root');
    manager.recordEvent('tap', { a: 1 }, 1);
    assert.equal(results.length, 0);
  },
};

'use strict';
// Memory release on deregistration and the cost model: per path, the matching tasks of an
// event are computed once and cached (nodes with the same path share the list); loading
// tasks refreshes only the affected events.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

const EVENTS = ['did-select', 'ana-appeared', 'ana-updated', 'scroll'];

/**
 * root / 10 screens / 10 keyed lists / 10 rows: 1 + 10 + 100 + 1,000 = 1,111 nodes on
 * 1 + 10 + 10 + 10 = 31 paths (the lists of a screen share a path, and so do their rows).
 */
function forest(manager) {
  const ids = [1];
  manager.registerNode(1, null, 'app');
  let next = 2;
  for (let s = 0; s < 10; s += 1) {
    const screen = next++;
    manager.registerNode(screen, 1, `screen${s}`);
    ids.push(screen);
    for (let l = 0; l < 10; l += 1) {
      const list = [screen, 'list', l];
      manager.registerNode(list, screen, 'list', l);
      ids.push(list);
      for (let r = 0; r < 10; r += 1) {
        const row = next++;
        manager.registerNode(row, list, 'row', r);
        ids.push(row);
      }
    }
  }
  return ids;
}

function tasks(count) {
  return (match) => {
    match('list/row/did-select', (node) => node.index);
    match('/screen3/ana-appeared', () => 'screen3');
    for (let i = 2; i < count; i += 1) {
      match(`elsewhere${i}/row/${EVENTS[i % 4]}`, () => 'never');
    }
  };
}

module.exports = {
  'deregistering the root releases every node, owner entry and cached list'() {
    const { manager } = scripted(tasks(101));
    const ids = forest(manager);
    for (const id of ids) for (const event of EVENTS) manager.recordEvent(event, {}, id);
    const full = manager.stats();
    assert.deepEqual([full.nodes, full.owners, full.cachedLists], [1111, 1011, 31 * 4], 'one list per path and event');
    assert.equal(full.paths, 30, 'one shared string per path below the root');
    assert.equal(manager.deregisterNodes(1), 1111);
    const empty = manager.stats();
    assert.deepEqual([empty.nodes, empty.owners, empty.cachedLists, empty.paths], [0, 0, 0, 0]);
    assert.equal(empty.tasks, 101, 'tasks belong to the module, not to nodes');
  },

  'deregistering a subtree shrinks the node tables by exactly its nodes and its paths\' lists'() {
    const { manager } = scripted(tasks(10));
    const ids = forest(manager);
    for (const id of ids) manager.recordEvent('did-select', null, id);
    const before = manager.stats();
    assert.equal(manager.deregisterNodes(2), 111, 'screen0, its 10 keyed lists and 100 rows');
    const after = manager.stats();
    assert.equal(after.nodes, before.nodes - 111);
    assert.equal(after.owners, before.owners - 101, 'owner 2 and its 100 rows');
    assert.equal(after.paths, before.paths - 3, "screen0's own three paths go, the others stay");
    assert.equal(before.cachedLists, 31, 'did-select lists: one per path');
    assert.equal(after.cachedLists, before.cachedLists - 3, "screen0's paths take their lists along");
    manager.recordEvent('did-select', null, ids[ids.length - 1]);
    assert.equal(manager.stats().cachedLists, after.cachedLists, 'the other paths keep theirs');
  },

  'an event reuses its cached list: one computation per path and event name'() {
    let calls = 0;
    const { manager, results } = scripted((match) => {
      match('list/row/did-select', () => { calls += 1; return 'row'; });
      for (let i = 0; i < 10000; i += 1) match(`other${i}/row/${EVENTS[i % 4]}`, () => 'never');
    });
    forest(manager);
    const start = manager.stats().listsComputed;
    for (let i = 0; i < 4000; i += 1) manager.recordEvent(EVENTS[i % 4], null, 500);
    assert.equal(manager.stats().listsComputed - start, 4, 'one list per event name');
    assert.equal(calls, 1000);
    assert.equal(results.length, 1000);
  },

  'loading tasks for one event refreshes only that event\'s lists'() {
    const { manager } = scripted({
      index: (match) => { match('row/did-select', () => 1); match('row/scroll', () => 2); },
      'Lib.Alpha': (match) => match('row/scroll', () => 3),
    });
    forest(manager);
    for (const event of ['did-select', 'scroll']) manager.recordEvent(event, null, 500);
    const before = manager.stats().listsComputed;
    manager.registerNode(5000, 1, 'late', null, 'Lib.Alpha');
    for (const event of ['did-select', 'scroll']) manager.recordEvent(event, null, 500);
    assert.equal(manager.stats().listsComputed - before, 1, "only 'scroll' was recomputed");
  },

  'debug reloading releases the cached lists that held the dropped tasks'() {
    const { manager } = scripted((match) => match('tap', () => 1), { debug: true });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'a');
    manager.recordEvent('tap', null, 1);
    manager.recordEvent('tap', null, 2);
    assert.equal(manager.stats().cachedLists, 2);
    manager.registerNode(3, 1, 'b'); // reloads index.js, dropping its old task
    assert.equal(manager.stats().cachedLists, 0);
    assert.equal(manager.stats().tasks, 1);
  },

  'an event that takes over a dropped event\'s place in the cache gets its own tasks'() {
    let event = 'tap';
    const { manager, sent } = scripted((match) => { const e = event; match(e, () => e); }, { debug: true });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'a');
    manager.recordEvent('tap', null, 2);
    event = 'press';
    manager.registerNode(3, 1, 'b'); // reloads index.js: 'tap' has no tasks now, 'press' has
    manager.recordEvent('tap', null, 2);
    manager.recordEvent('press', null, 2);
    assert.deepEqual(sent(), ['tap', 'press']);
    assert.equal(manager.stats().cachedLists, 1, "only press's list");
  },

  'dropped tasks stop running: a reload that fails drops the file\'s cached tasks'() {
    let alphaLoads = 0;
    const { manager, sent } = scripted({
      index: (match) => match('other', () => 'other'),
      'Lib.Beta': (match) => match('tap', () => 'beta'),
      'Lib.Alpha': (match) => {
        alphaLoads += 1;
        if (alphaLoads > 1) throw new Error('alpha is broken now');
        match('tap', () => 'alpha');
      },
    }, { debug: true });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'b', null, 'Lib.Beta');
    manager.registerNode(3, 1, 'a', null, 'Lib.Alpha');
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['beta', 'alpha']);
    assert.throws(() => manager.registerNode(4, 1, 'a', null, 'Lib.Alpha'), /alpha is broken now/);
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['beta', 'alpha', 'beta'], "alpha's task went with its file");
    assert.equal(manager.stats().tasks, 2, "index's and Lib.Beta's");
  },

  'a benchmark-shaped workload gives the expected results'() {
    const { manager, results } = scripted(tasks(10000));
    const ids = forest(manager);
    for (let i = 0; i < 44440; i += 1) manager.recordEvent(EVENTS[i & 3], null, ids[i % ids.length]);
    const rows = results.filter((r) => r.meta.task === 'list/row/did-select').length;
    const screens = results.filter((r) => r.result === 'screen3').length;
    assert.equal(results.length, rows + screens);
    assert.ok(rows > 0 && screens > 0, `${rows} row results, ${screens} screen3 results`);
    assert.equal(manager.stats().cachedLists, 31 * 4);
  },

  'nodes on the same path share one computation'() {
    const { manager, sent } = scripted((match) => {
      match('/a/b/tap', () => 'anchored a/b');
      match('b/tap', () => 'b');
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'a');
    for (let n = 0; n < 50; n += 1) manager.registerNode(100 + n, 2, 'b');
    manager.registerNode(3, 1, 'b');
    const start = manager.stats().listsComputed;
    for (let n = 0; n < 50; n += 1) manager.recordEvent('tap', null, 100 + n);
    assert.equal(manager.stats().listsComputed - start, 1, 'fifty nodes, one path');
    manager.recordEvent('tap', null, 3);
    assert.equal(manager.stats().listsComputed - start, 2, '/b is another path');
    assert.equal(sent().length, 101);
    assert.equal(sent()[100], 'b', 'the anchored task does not fire on /b');
  },

};

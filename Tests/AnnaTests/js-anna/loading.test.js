'use strict';
// Loading task files: index.js, namespaces, missing and failing files, the global `match`,
// and debug reloading.

const assert = require('./support/assert');
const { open, scripted } = require('./support/fixtures');

const G = typeof globalThis !== 'undefined' ? globalThis : global;
const SHOP = require.resolve('./fixtures/shop/task/index.js').replace(/\/index\.js$/, '');

module.exports = {
  'index.js is loaded once, before the first node, and its tasks apply to the root'() {
    const { manager, loads, sent } = scripted((match) => match('/ana-appeared', () => 'root shown'));
    assert.deepEqual(loads(), {}, 'nothing is loaded by the constructor');
    manager.registerNode(1, null, '__root__');
    assert.deepEqual(loads(), { index: 1 });
    manager.registerNode(2, 1, 'master');
    manager.registerNode(3, 2, 'detail');
    assert.deepEqual(loads(), { index: 1 });
    manager.recordEvent('ana-appeared', null, 1);
    assert.deepEqual(sent(), ['root shown']);
  },

  'a namespace loads its file once: Lib.Alpha -> task/Lib/Alpha.js'() {
    const { manager, loads, sent } = scripted({
      'Lib.Alpha': (match) => match('cell/tap', () => 'alpha'),
      'Lib.Beta': (match) => match('cell/tap', () => 'beta'),
    });
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'cell', 0, 'Lib.Alpha');
    manager.registerNode(3, 1, 'cell', 1, 'Lib.Alpha');
    assert.deepEqual(loads(), { index: 1, 'Lib.Alpha': 1 });
    manager.registerNode(4, 1, 'cell', 2, 'Lib.Beta');
    assert.deepEqual(loads(), { index: 1, 'Lib.Alpha': 1, 'Lib.Beta': 1 });
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['alpha', 'beta']);
  },

  'a namespace without a file has no tasks and is no error'() {
    const { manager, sent } = scripted((match) => match('tap', () => 'index'));
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'cell', null, 'Lib.Gamma');
    manager.registerNode(3, 1, 'cell', null, 'Nowhere');
    manager.registerNode(4, 1, 'cell', null, '');
    manager.registerNode(5, 1, 'cell', null, null);
    manager.registerNode(6, 1, 'cell', null, undefined);
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['index']);
    assert.equal(manager.stats().tasks, 1);
  },

  'a namespace starting or ending with "." is an error and the node is not registered'() {
    const { manager } = scripted(() => {});
    manager.registerNode(1, null, '__root__');
    const cases = [
      ['.Lib', "invalid namespace '.Lib': it starts with '.'."],
      ['Lib.', "invalid namespace 'Lib.': it ends with '.'."],
      ['.', "invalid namespace '.': it starts with '.'."],
      ['Lib..Alpha', "invalid namespace 'Lib..Alpha': it has an empty part ('..')."],
      ['Lib/x.Alpha', "invalid namespace 'Lib/x.Alpha': a part contains '/'."],
    ];
    for (const [namespace, reason] of cases) {
      const error = assert.throws(() => manager.registerNode(2, 1, 'cell', null, namespace),
        `Cannot register node 2 named 'cell': ${reason}`);
      assert.equal(error.name, 'LoadError');
    }
    assert.throws(() => manager.registerNode(2, 1, 'cell', null, 42),
      "Cannot register node 2 named 'cell': invalid namespace 42: a namespace is a string such " +
      "as 'Lib.Alpha'.");
    assert.equal(manager.stats().nodes, 1);
  },

  'task files can require helpers; a pattern list runs once per event'() {
    const { manager, results } = open('shop');
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'cart', null, 'Shop.Cart');
    manager.registerNode([2, 'line', 0], 2, 'line', 0);
    manager.recordEvent('did-select', { cents: 1250 }, [2, 'line', 0]);
    assert.deepEqual(results, [
      { result: { action: 'cart-line', price: '$12.50' },
        meta: { task: 'cart/line/did-select', path: '/cart/line', event: 'did-select' } },
    ]);
  },

  'a task file that throws: LoadError naming the file, node registered, other tasks unaffected'() {
    const { manager, sent } = open('shop');
    manager.registerNode(1, null, '__root__');
    const tasks = manager.stats().tasks;
    const error = assert.throws(() => manager.registerNode(2, 1, 'anything', null, 'Broken.Throws'),
      `Cannot load tasks from ${SHOP}/Broken/Throws.js: the cart service is down`);
    assert.equal(error.name, 'LoadError');
    assert.equal(error.file, `${SHOP}/Broken/Throws.js`);
    assert.equal(error.cause.message, 'the cart service is down');
    assert.equal(error.stack, error.cause.stack, 'the stack points into the task file');
    assert.equal(manager.stats().tasks, tasks, 'the file added no tasks');
    manager.recordEvent('tap', null, 2); // the node was registered
    manager.recordEvent('ana-appeared', null, 1);
    assert.deepEqual(sent(), [{ action: 'launched' }]);
  },

  'outside debug mode a failed file is reported once, not retried'() {
    const { manager } = open('shop');
    manager.registerNode(1, null, '__root__');
    assert.throws(() => manager.registerNode(2, 1, 'a', null, 'Broken.Throws'), /cart service/);
    manager.registerNode(3, 1, 'b', null, 'Broken.Throws');
  },

  'a task file requiring a missing module reports that, it is not taken as missing'() {
    const { manager } = open('shop');
    manager.registerNode(1, null, '__root__');
    const file = `${SHOP}/Broken/NeedsHelper.js`;
    const error = assert.throws(() => manager.registerNode(2, 1, 'a', null, 'Broken.NeedsHelper'),
      `Cannot load tasks from ${file}: Cannot find module './no-such-helper' from ${file}:3`);
    assert.equal(error.name, 'LoadError');
    assert.equal(error.cause.code, 'MODULE_NOT_FOUND');
    assert.equal(error.cause.requireStack[0], file, "Node's require stack: the requiring file first");
    assert.ok(error.cause.requireStack[1].endsWith('/anna/task-loader.js'), 'then who required it: the core');
    assert.deepEqual([error.sourceURL, error.line, error.column], [file, 3, 8], 'the require call, in the task file');
  },

  'a malformed pattern fails its file with a LoadError naming the file and line; other files keep their tasks'() {
    const { manager, sent } = open('shop');
    manager.registerNode(1, null, '__root__');
    const error = assert.throws(() => manager.registerNode(2, 1, 'cart', null, 'Broken.Pattern'),
      "task file Broken/Pattern.js was not loaded: malformed pattern 'cart//tap' at Broken/Pattern.js:3:6: " +
      "it has an empty node name ('//').");
    assert.equal(error.name, 'LoadError');
    assert.deepEqual([error.file, error.line, error.column], [`${SHOP}/Broken/Pattern.js`, 3, 6]);
    assert.equal(manager.stats().tasks, 3, "only index.js's tasks");
    manager.registerNode(3, 2, 'checkout', null, 'Shop.Cart');
    manager.recordEvent('tap', null, 3);
    assert.deepEqual(sent(), [{ action: 'checkout', from: '/cart' }]);
  },

  'a failing index.js still registers the node and is reported'() {
    const { manager, loads } = scripted(() => { throw new Error('index broke'); });
    assert.throws(() => manager.registerNode(1, null, '__root__'), /index broke/);
    assert.equal(manager.stats().nodes, 1);
    manager.registerNode(2, 1, 'cell');
    assert.deepEqual(loads(), { index: 1 });
  },

  'the global match is a function only while a task file runs, and the previous value comes back'() {
    const hadMatch = Object.prototype.hasOwnProperty.call(G, 'match');
    const saved = G.match;
    try {
      let during = null;
      delete G.match;
      const first = scripted({
        index: () => { during = typeof G.match; },
        'Lib.Alpha': () => { throw new Error('fails'); },
      });
      first.manager.registerNode(1, null, '__root__');
      assert.equal(during, 'function');
      // Loads change the value of an own property only (its shape stays cacheable).
      const after = Object.getOwnPropertyDescriptor(G, 'match');
      assert.deepEqual(after, { value: undefined, writable: true, enumerable: false, configurable: true },
        'an undefined, non-enumerable global match after loading');

      const sentinel = { mine: true };
      G.match = sentinel;
      const second = scripted({ 'Lib.Alpha': () => { throw new Error('fails'); } });
      second.manager.registerNode(1, null, '__root__');
      assert.equal(G.match, sentinel, 'restored after a load');
      assert.throws(() => second.manager.registerNode(2, 1, 'x', null, 'Lib.Alpha'), /fails/);
      assert.equal(G.match, sentinel, 'restored after a failing load');
    } finally {
      if (hadMatch) G.match = saved;
      else delete G.match;
    }
  },

  'debug: task files are re-required on every load and their old tasks dropped'() {
    let version = 1;
    const { manager, loads, sent } = scripted({
      index: (match) => { const v = version; match('tap', () => `index v${v}`); },
      'Lib.Alpha': (match) => { const v = version; match('cell/tap', () => `alpha v${v}`); },
    }, { debug: true });
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'cell', null, 'Lib.Alpha');
    manager.recordEvent('tap', null, 2);
    version = 2;
    manager.registerNode(3, 1, 'cell', null, 'Lib.Alpha');
    assert.deepEqual(loads(), { index: 3, 'Lib.Alpha': 2 });
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['index v1', 'alpha v1', 'index v2', 'alpha v2']);
    assert.equal(manager.stats().tasks, 2, 'no task is kept twice');
  },

  'debug: a file that fails on reload loses its old tasks and reports the error'() {
    let broken = false;
    const { manager, sent } = scripted({
      index: (match) => match('tap', () => 'index'),
      'Lib.Alpha': (match) => {
        if (broken) throw new Error('edited badly');
        match('tap', () => 'alpha');
      },
    }, { debug: true });
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'cell', null, 'Lib.Alpha');
    broken = true;
    assert.throws(() => manager.registerNode(3, 1, 'cell', null, 'Lib.Alpha'), /edited badly/);
    assert.throws(() => manager.registerNode(4, 1, 'cell', null, 'Lib.Alpha'), /edited badly/,
      'in debug mode a failed file is retried');
    manager.recordEvent('tap', null, 2);
    assert.deepEqual(sent(), ['index']);
  },

  'debug: the shop module reloads from disk without duplicating tasks'() {
    const { manager, sent } = open('shop', { debug: true });
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'home');
    manager.registerNode(3, 1, 'cart', null, 'Shop.Cart');
    manager.registerNode(4, 3, 'checkout', null, 'Shop.Cart');
    manager.recordEvent('ana-appeared', null, 2);
    manager.recordEvent('tap', null, 4);
    assert.deepEqual(sent(), [
      { action: 'viewed', screen: '/home' },
      { action: 'checkout', from: '/cart' },
    ]);
    assert.equal(manager.stats().tasks, 6);
  },
};

'use strict';
// The bridge's JavaScript half (Sources/Anna/Bridge/module-bridge.js), driven as the engine
// drives it: installed with the wire table, handed batches of numbers, asked for what they
// produced. The harness provides the global `moduleBridge` ({ install, wire, parts }).

const assert = require('./support/assert');

const { wire, parts } = moduleBridge;
/** Installs the bridge as the engine does: with the wire table, a marker (or none) and its pieces. */
const install = (table, marker) => moduleBridge.install(table, marker === undefined ? null : marker, parts);
const op = wire.operation, tag = wire.valueTag, idKind = wire.idKind, header = wire.objectHeader;

/** A bridge over a recording manager; `tasks(name, properties, id, receive)` answers events. */
function bridged(tasks) {
  const bridge = install(wire);
  const calls = [];
  const receive = bridge.receive;
  bridge.attach({
    registerNode(id, parent, name, index, namespace, attributes) {
      calls.push(['register', id, parent, name, index, namespace, attributes]);
    },
    recordEvent(name, properties, id) {
      calls.push(['event', name, properties, id]);
      if (tasks) tasks(name, properties, id, receive);
    },
    deregisterNodes(id) {
      calls.push(['deregister', id]);
      return 1;
    },
  });
  return { bridge, calls };
}

/** The operation and meta numbers of the values `bridge.finish()` last wrote (its resultIndex). */
function indexed(bridge) {
  const index = bridge.resultIndex();
  return Array.from(index.subarray(1, 1 + 2 * index[0]));
}

/** Sends `count` operations encoded as `numbers` with the interned `strings` (a fresh table 0) and `literals`. */
function send(bridge, count, numbers, strings, literals) {
  const batch = new Float64Array(numbers);
  return bridge.apply(batch, numbers.length, count, 0, strings, literals || null, 0, true);
}

exports['installs only with every name of the wire table, and reports the names it read'] = () => {
  const bridge = install(wire);
  const names = [];
  for (const group of Object.keys(wire)) for (const name of Object.keys(wire[group])) names.push(group + '.' + name);
  assert.deepEqual(bridge.wireNames.slice().sort(), names.sort(), 'the script reads exactly the table');
  const missing = JSON.parse(JSON.stringify(wire));
  delete missing.valueTag.json;
  assert.throws(() => install(missing), /valueTag\.json/);
};

exports['operations reach the manager decoded from numbers, strings and literals'] = () => {
  const { bridge, calls } = bridged();
  // strings: 0 '__root__', 1 'tap', 2 'key', 3 'v'; literal -1 '{"a":[1]}'
  send(bridge, 4, [
    op.register, 1000, idKind.plain, 1, idKind.absent, 0, 0, NaN, NaN, header.null,
    op.event, 1001, idKind.plain, 1, 1, 2, 2, tag.string, 3, 3, tag.json, -1,
    op.event, 1002, idKind.plain, 1, 1, header.value, tag.number, 7,
    op.deregister, 1003, idKind.plain, 1,
  ], ['__root__', 'tap', 'key', 'v'], ['{"a":[1]}']);
  assert.deepEqual(calls, [
    ['register', 1, null, '__root__', null, null, null],
    ['event', 'tap', { key: 'v', v: { a: [1] } }, 1],
    ['event', 'tap', 7, 1],
    ['deregister', 1],
  ]);
};

exports['finish hands back results, metas and errors once, then nothing'] = () => {
  const { bridge } = bridged((name, properties, id, receive) => {
    if (properties === true) throw new Error('task threw');
    receive({ seen: name }, { task: 'tap', path: '/root', event: name });
  });
  assert.equal(send(bridge, 3, [
    op.event, 1, idKind.plain, 1, 0, header.null,
    op.event, 2, idKind.plain, 1, 0, header.value, tag.true,
    op.event, 3, idKind.plain, 1, 0, header.null,
  ], ['tap']), false, 'no collection is due');
  const [text, metas, errors] = bridge.finish();
  assert.deepEqual(JSON.parse(text), [{ seen: 'tap' }, { seen: 'tap' }]);
  assert.deepEqual(indexed(bridge), [0, 0, 2, 0], 'each value\'s operation and meta number');
  assert.deepEqual(JSON.parse(metas), ['tap', '/root', 'tap']);
  assert.equal(errors.length, 2);
  assert.equal(errors[0], 1, 'the failing operation is named by its offset');
  assert.equal(errors[1].message, 'task threw');
  assert.ok(errors[1] instanceof Error && errors[1].stack.includes('module-bridge.test.js'), 'a plain error keeps its stack');
  assert.equal(bridge.finish(), '[]', 'nothing left: just the (empty) results text');
};

exports['a batch with results only comes back as the results text alone'] = () => {
  const { bridge } = bridged((name, properties, id, receive) => receive(name, { task: 't', path: '/p', event: name }));
  send(bridge, 1, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
  assert.equal(bridge.finish()[1], JSON.stringify(['t', '/p', 'tap']), 'the first batch brings its meta');
  send(bridge, 1, [op.event, 2, idKind.plain, 1, 0, header.null], ['tap']);
  assert.equal(bridge.finish(), '["tap"]', 'the meta is known: text alone');
  assert.deepEqual(indexed(bridge), [0, 0]);
};

exports['a value JSON cannot write is reported with its task; the others are kept; none passes for framing'] = () => {
  const cycle = { name: 'loop' };
  cycle.self = cycle;
  const lookalike = { '\u0000anna-slow': 0 };
  const meta = { task: 'tap', path: '/root', event: 'tap' };
  const { bridge } = bridged((name, properties, id, receive) => {
    receive(lookalike, meta);
    receive(cycle, meta);
    receive({ get broken() { throw new Error('getter threw'); } }, meta);
    receive(10n, meta);
    receive('last', meta);
  });
  send(bridge, 1, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
  const [text, , errors] = bridge.finish();
  assert.deepEqual(JSON.parse(text), [lookalike, 'last']);
  assert.deepEqual(indexed(bridge), [0, 0, 0, 0], 'the numbers of the values kept, in order');
  assert.equal(errors.length, 6);
  assert.deepEqual([errors[0], errors[2], errors[4]], [0, 0, 0]);
  assert.equal(errors[1].name, 'ResultError');
  assert.ok(/^The result of task 'tap' on node '\/root' for event 'tap' cannot be written as JSON \(.*cyclic/i.test(errors[1].message), errors[1].message);
  assert.ok(errors[3].message.includes('(getter threw)'), errors[3].message);
  assert.ok(/BigInt/.test(errors[5].message), errors[5].message);
};

exports['what a script throws crosses as a plain error, even when it cannot be read'] = () => {
  const hostile = new Proxy({}, { get() { throw new Error('no'); }, ownKeys() { throw new Error('no'); }, getPrototypeOf() { throw new Error('no'); } });
  const thrown = [Object.create(null), hostile, { message: 'plain object', code: 7, nested: { ok: true } }, 'text'];
  const { bridge } = bridged((name, properties, id) => { throw thrown[id]; });
  send(bridge, 4, [
    op.event, 1, idKind.plain, 0, 0, header.null,
    op.event, 1, idKind.plain, 1, 0, header.null,
    op.event, 1, idKind.plain, 2, 0, header.null,
    op.event, 1, idKind.plain, 3, 0, header.null,
  ], ['tap']);
  const errors = bridge.finish()[2];
  assert.deepEqual([errors[0], errors[2], errors[4], errors[6]], [0, 1, 2, 3]);
  assert.equal(errors[1].message, 'a thrown object whose message cannot be read');
  assert.equal(errors[3].message, 'a thrown object whose message cannot be read');
  assert.deepEqual([errors[5].message, errors[5].code, errors[5].nested], ['plain object', 7, { ok: true }]);
  assert.ok(errors[5] instanceof Error, 'a plain Error');
  assert.equal(errors[7], 'text', 'a thrown primitive stays as it is');
};

exports['built-ins a task replaced are put back after the batch and reported; results still arrive'] = () => {
  const originals = [JSON.stringify, Array.prototype.push, Function.prototype.call];
  const { bridge } = bridged((name, properties, id, receive) => {
    JSON.stringify = () => 'forged';
    Array.prototype.push = function push() { return 0; };
    Function.prototype.call = function call() { return undefined; };
    Object.prototype.toJSON = function toJSON() { return undefined; };
    Object.defineProperty(Array.prototype, '0', { set() {}, get() { return 'forged'; }, configurable: true });
    receive({ kept: true }, { task: 't', path: '/p', event: name });
  });
  try {
    send(bridge, 1, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
    assert.deepEqual([JSON.stringify, Array.prototype.push, Function.prototype.call], originals, 'put back');
    assert.equal(Object.prototype.hasOwnProperty('toJSON'), false, 'the added toJSON is gone');
    assert.equal(Array.prototype.hasOwnProperty('0'), false, 'the added index is gone');
    const [text, , errors] = bridge.finish();
    assert.deepEqual(JSON.parse(text), [{ kept: true }]);
    assert.deepEqual(indexed(bridge), [0, 0]);
    assert.equal(errors[1].name, 'BuiltInError');
    assert.ok(errors[1].message.startsWith('A task script replaced built-ins while the operations up to this one ran: ' +
      'Object.prototype.toJSON, Array.prototype[0], Array.prototype.push and 2 more. The core relies on them, so they were put back'),
    errors[1].message);
  } finally {
    [JSON.stringify, Array.prototype.push, Function.prototype.call] = originals;
    delete Object.prototype.toJSON;
    delete Array.prototype[0];
  }
};

exports['each operation marks a new number, and so does what runs after the batch'] = () => {
  const marker = new Float64Array(1);
  const bridge = install(wire, marker);
  const marks = [];
  bridge.attach({
    registerNode() {},
    recordEvent(name, properties, id) {
      marks.push(marker[0]);
    },
    deregisterNodes() { return 1; },
  });
  const answer = send(bridge, 2, [
    op.event, 1, idKind.plain, 1, 0, header.null,
    op.event, 1, idKind.plain, 2, 0, header.null,
  ], ['tap']);
  assert.equal(answer, false, 'no collection is due');
  assert.ok(marks[1] > marks[0], `a new mark per operation: ${marks}`);
  assert.ok(marker[0] > marks[1], 'what runs after the batch has a mark of its own');
  assert.equal(bridge.progress(), -3, 'after two operations');
};

exports['an unknown operation code is an error of that operation; the next one runs'] = () => {
  const { bridge, calls } = bridged();
  send(bridge, 2, [99, 1, op.event, 2, idKind.plain, 1, 0, header.null], ['tap']);
  const errors = bridge.finish()[2];
  assert.equal(errors[0], 0);
  assert.ok(/unknown operation code 99/.test(errors[1].message), errors[1].message);
  assert.deepEqual(calls, [['event', 'tap', null, 1]]);
};

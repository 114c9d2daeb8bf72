'use strict';
// The bridge's JavaScript half (Sources/Anna/Bridge/module-bridge.js), driven as the engine
// drives it: installed with the wire table, handed batches of numbers, asked for what they
// produced. The harness provides the global `moduleBridge` ({ install, wire }).

const assert = require('./support/assert');

const { install, wire } = moduleBridge;
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

/** Sends `numbers` with the interned `strings` (a fresh table 0) and `literals`. */
function send(bridge, numbers, strings, literals) {
  const batch = new Float64Array(numbers);
  return bridge.apply(batch, numbers.length, 0, strings, literals || null, 0, true);
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
  send(bridge, [
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
  send(bridge, [
    op.event, 1, idKind.plain, 1, 0, header.null,
    op.event, 2, idKind.plain, 1, 0, header.value, tag.true,
    op.event, 3, idKind.plain, 1, 0, header.null,
  ], ['tap']);
  const [text, metas, errors, slow] = bridge.finish();
  assert.deepEqual(JSON.parse(text), [0, 0, { seen: 'tap' }, 2, 0, { seen: 'tap' }]);
  assert.deepEqual(JSON.parse(metas), ['tap', '/root', 'tap']);
  assert.equal(errors.length, 2);
  assert.equal(errors[0], 1, 'the failing operation is named by its offset');
  assert.equal(errors[1].message, 'task threw');
  assert.deepEqual(slow, []);
  assert.equal(bridge.finish(), '[]', 'nothing left: just the (empty) results text');
};

exports['a batch with results only comes back as the results text alone'] = () => {
  const { bridge } = bridged((name, properties, id, receive) => receive(name, { task: 't', path: '/p', event: name }));
  send(bridge, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
  assert.equal(bridge.finish()[1], JSON.stringify(['t', '/p', 'tap']), 'the first batch brings its meta');
  send(bridge, [op.event, 2, idKind.plain, 1, 0, header.null], ['tap']);
  assert.equal(bridge.finish(), '[0,0,"tap"]', 'the meta is known: text alone');
};

exports['a value JSON cannot write goes out of band; no value passes for framing'] = () => {
  const cycle = { name: 'loop' };
  cycle.self = cycle;
  const lookalike = { '\u0000anna-slow': 0 };
  const { bridge } = bridged((name, properties, id, receive) => {
    receive(lookalike, null);
    receive(cycle, null);
    receive(10n, null);
  });
  send(bridge, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
  const [text, , , slow] = bridge.finish();
  assert.deepEqual(JSON.parse(text), [0, -1, lookalike, 0, -1, null, 0, -1, null]);
  assert.equal(slow.length, 4);
  assert.equal(slow[0], 1, 'result 1 is the cycle');
  assert.equal(slow[1], cycle);
  assert.equal(slow[2], 2, 'result 2 is the BigInt');
};

exports['takeRaw hands back the unconverted results when finish could not'] = () => {
  const { bridge } = bridged((name, properties, id, receive) => receive([name], { task: 't', path: '/p', event: name }));
  send(bridge, [op.event, 1, idKind.plain, 1, 0, header.null], ['tap']);
  const [results, metas, errors] = bridge.takeRaw();
  assert.deepEqual(results, [0, 0, ['tap']]);
  assert.deepEqual(JSON.parse(metas), ['t', '/p', 'tap']);
  assert.equal(errors.length, 0);
  assert.equal(bridge.finish(), '[]', 'taken once');
};

exports['an unknown operation code is an error of that operation; the next one runs'] = () => {
  const { bridge, calls } = bridged();
  send(bridge, [99, 1, op.event, 2, idKind.plain, 1, 0, header.null], ['tap']);
  const errors = bridge.finish()[2];
  assert.equal(errors[0], 0);
  assert.ok(/unknown operation code 99/.test(errors[1].message), errors[1].message);
  assert.deepEqual(calls, [['event', 'tap', null, 1]]);
};

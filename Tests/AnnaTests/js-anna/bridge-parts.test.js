'use strict';
// The pieces of the bridge's JavaScript half (Sources/Anna/Bridge/Scripts), each alone: the
// metas, the results, the plain errors, the operation decoder and the promise jobs. The
// harness provides the global `moduleBridge` ({ wire, parts }); module-bridge.test.js tests
// them together.

const assert = require('./support/assert');

const { wire, parts } = moduleBridge;

/** A record of what runs now, as the bridge keeps it. */
function currentRecord() {
  return { manager: null, batch: 1, operation: 0, last: 0, afterOperations: false, time: NaN };
}

exports['metas are numbered once each, and cross once, until they are forgotten'] = () => {
  const metas = parts.makeMetas();
  const a = { task: 'tap', path: '/root', event: 'tap' };
  const b = { task: 'tap', path: '/root/list', event: 'tap' };
  assert.equal(metas.id(a), 0);
  assert.equal(metas.id(b), 1);
  assert.equal(metas.id({ task: 'tap', path: '/root', event: 'tap' }), 0, 'the same fields, another object');
  assert.equal(metas.id(null), -1);
  assert.deepEqual(JSON.parse(metas.takeNew()), ['tap', '/root', 'tap', 'tap', '/root/list', 'tap']);
  assert.equal(metas.takeNew(), '', 'each crosses once');
  assert.deepEqual(metas.of(1), ['tap', '/root/list', 'tap']);
  assert.equal(metas.of(7), null);
  metas.forget();
  assert.equal(metas.id(b), 0, 'numbered anew');
};

/** The operation and meta numbers a results index holds for the values last written. */
function indexed(index) {
  return Array.from(index.subarray(1, 1 + 2 * index[0]));
}

exports['results are written at once; one that cannot be written is reported with its task'] = () => {
  const current = currentRecord();
  const metas = parts.makeMetas();
  const failed = [];
  const results = parts.makeResults(current, () => {}, metas, parts.errors, (offset, error) => failed.push([offset, error]));
  results.receive({ a: 1 }, { task: 'tap', path: '/root', event: 'tap' });
  assert.equal(results.write(), '[{"a":1}]');
  assert.deepEqual(indexed(results.index()), [0, 0], 'its operation and meta number');
  assert.equal(results.write(), '[]', 'written once');
  assert.deepEqual(indexed(results.index()), []);
  current.last = 1;
  const cyclic = {};
  cyclic.self = cyclic;
  results.receive(cyclic, { task: 'tap', path: '/root', event: 'tap' });
  current.operation = 1;
  results.receive(2, null);
  assert.equal(results.write(), '[2]');
  assert.deepEqual(indexed(results.index()), [1, -1], 'the numbers of the result kept, moved to the first place');
  assert.equal(failed.length, 1);
  assert.equal(failed[0][0], 0, 'the operation of the result');
  assert.equal(failed[0][1].name, 'ResultError');
  assert.ok(/^The result of task 'tap' on node '\/root' for event 'tap' cannot be written as JSON/.test(failed[0][1].message),
    failed[0][1].message);
};

exports['the results index grows past its first size and keeps every number'] = () => {
  const current = currentRecord();
  const metas = parts.makeMetas();
  const results = parts.makeResults(current, () => {}, metas, parts.errors, () => { throw new Error('no result fails'); });
  const count = 5000;
  current.last = count - 1;
  for (let k = 0; k < count; k++) {
    current.operation = k;
    results.receive(k, { task: 'tap', path: '/root/' + (k % 3), event: 'tap' });
  }
  assert.equal(results.write(), JSON.stringify(Array.from({ length: count }, (_, k) => k)));
  const numbers = indexed(results.index());
  assert.equal(numbers.length, 2 * count);
  for (let k = 0; k < count; k++) {
    if (numbers[2 * k] !== k || numbers[2 * k + 1] !== k % 3) assert.fail(`result ${k}: ${numbers[2 * k]}, ${numbers[2 * k + 1]}`);
  }
};

exports['plain errors are read once, each field apart, even from hostile values'] = () => {
  const { plainError, describeThrown } = parts.errors;
  const thrown = new TypeError('bad');
  thrown.extra = { deep: [1] };
  thrown.lost = () => 1;
  const plain = plainError(thrown);
  assert.equal(Object.getPrototypeOf(plain), Error.prototype);
  assert.equal(plain.name, 'TypeError');
  assert.equal(plain.message, 'bad');
  assert.deepEqual(plain.extra, { deep: [1] });
  assert.equal('lost' in plain, false, 'only JSON data crosses');
  assert.equal(plainError('text'), 'text', 'a primitive stays as it is');
  const hostile = new Proxy({}, { get() { throw new Error('trap'); }, ownKeys() { throw new Error('trap'); } });
  assert.equal(plainError(hostile).message, 'a thrown object whose message cannot be read');
  assert.equal(describeThrown(null), 'null');
};

exports['the decoder calls the manager once per operation, and counts nodes for a collection'] = () => {
  const current = currentRecord();
  const thrown = [];
  let marks = 0;
  const decoder = parts.makeDecoder(wire, current, () => { marks += 1; }, (error) => thrown.push(error.message));
  const calls = [];
  const manager = {
    registerNode(id, parent, name) { calls.push(['register', id, parent, name]); },
    recordEvent(name, properties, id) { calls.push(['event', name, properties, id, current.time]); },
    deregisterNodes() { return 1500; },
  };
  const op = wire.operation, idKind = wire.idKind, header = wire.objectHeader;
  const numbers = [
    op.register, 10, idKind.plain, 1, idKind.absent, 0, 0, NaN, NaN, header.null,
    op.event, 20, idKind.plain, 1, 1, 0,
    99, 30,
    op.deregister, 40, idKind.plain, 1,
  ];
  decoder.run(manager, new Float64Array(numbers), numbers.length, 0, ['__root__', 'tap'], null, 0, true);
  assert.deepEqual(calls, [['register', 1, null, '__root__'], ['event', 'tap', {}, 1, 20]]);
  assert.deepEqual(thrown, ['unknown operation code 99']);
  assert.equal(current.operation, 4, 'every operation counted');
  assert.equal(marks, 4, 'each operation marked');
  assert.equal(decoder.collectionDue(), true, 'more than 1,000 removed, more than alive');
  assert.equal(decoder.collectionDue(), false, 'counted again from none');
};

exports['promise jobs: nothing is stopped when no task queued one'] = () => {
  const current = currentRecord();
  const reported = [];
  const jobs = parts.trackPromiseJobs(current, parts.errors.setHidden, (offset, error) => reported.push([offset, error]));
  jobs.startBatch();
  assert.equal(jobs.stopped(), null);
  jobs.abandon();
  assert.deepEqual(reported, []);
};

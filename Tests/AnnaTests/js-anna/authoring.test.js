'use strict';
// What a task author sees of their mistakes: where each task is, where a failure threw,
// which task is running, coverage, reloading one file, and results that cannot be sent.
// fixtures/located/task/index.js has its tasks at known lines and columns (a call's column
// is its opening parenthesis, as JavaScriptCore places calls).

const assert = require('./support/assert');
const { open, scripted } = require('./support/fixtures');
const { toSendable, droppedByLast, THENABLE, MAX_VALUES } = require('anna/sendable');

const TASK = require.resolve('./fixtures/located/task/index.js');
const FOLDER = TASK.slice(0, -'/index.js'.length);
const FORMAT = require.resolve('./fixtures/located/task/helpers/format.js');

/** A manager of the `located` fixture with nodes root(1) > cell(2), warnings collected. */
function located(config) {
  const warnings = [];
  const opened = open('located', Object.assign({ report: (warning) => warnings.push(warning) }, config));
  opened.manager.registerNode(1, null, 'root');
  opened.manager.registerNode(2, 1, 'cell', 4);
  opened.warnings = warnings;
  return opened;
}

function failureOf(manager, event) {
  const error = assert.throws(() => manager.recordEvent(event, null, 2));
  assert.equal(error.name, 'TaskError');
  assert.equal(error.errors.length, 1);
  return error.errors[0];
}

module.exports = {
  'every task keeps the file, line and column of its match() call'() {
    const { manager } = located();
    const places = manager.coverage().tasks.map((t) => [t.task, t.file === TASK, t.line, t.column]);
    assert.deepEqual(places, [
      ['tap', true, 4, 6],
      ['cell/tap', true, 5, 6],
      ['row/tap', true, 5, 6],
      ['fail', true, 6, 6],
      ['misuse', true, 7, 8],
      ['helper-fail', true, 8, 6],
      ['fn', true, 9, 6],
      ['node', true, 10, 6],
      ['running', true, 11, 6],
    ]);
  },

  'a failure names the task and where it threw, in the task file'() {
    const { manager } = located();
    const failure = failureOf(manager, 'fail');
    assert.deepEqual(Object.keys(failure), ['task', 'path', 'event', 'file', 'line', 'column', 'message',
      'stack', 'errorFile', 'errorLine', 'errorColumn']);
    assert.deepEqual(
      [failure.task, failure.path, failure.event, failure.file, failure.line, failure.column, failure.message],
      ['fail', '/cell', 'fail', TASK, 6, 6, 'boom cell']);
    assert.deepEqual([failure.errorFile, failure.errorLine], [TASK, 6]);
    assert.equal(failure.errorColumn, 42, "the Error call's parenthesis, where JavaScriptCore places it");
  },

  'a failure inside a helper of the task folder is located in the helper'() {
    const { manager } = located();
    const failure = failureOf(manager, 'helper-fail');
    assert.deepEqual([failure.file, failure.line, failure.errorFile, failure.errorLine], [TASK, 8, FORMAT, 3]);
  },

  "an error the core throws for a misused API is located at the task's call, not in the core"() {
    const { manager } = located();
    const failure = failureOf(manager, 'misuse');
    assert.equal(failure.message, 'ancestor(distance) needs a whole number >= 0, not -1.');
    assert.deepEqual([failure.errorFile, failure.errorLine], [TASK, 7]);
  },

  'a thrown non-error has no throwing place: the fields are left out'() {
    const { manager } = scripted((match) => match('tap', () => { throw 'plain'; }));
    manager.registerNode(1, null, 'root');
    const error = assert.throws(() => manager.recordEvent('tap', null, 1));
    const failure = error.errors[0];
    assert.ok(!('errorFile' in failure) && !('errorLine' in failure) && !('errorColumn' in failure));
    assert.equal(failure.file, require.resolve('./fixtures/scripted/task/index.js'));
  },

  'runningTask() names the task whose function runs, and null otherwise'() {
    const { manager, sent } = located();
    globalThis.annaTestManager = manager;
    assert.equal(manager.runningTask(), null);
    manager.recordEvent('running', null, 2);
    assert.deepEqual(sent(), [{ task: 'running', file: TASK, line: 11, column: 6, path: '/cell', event: 'running' }]);
    assert.equal(manager.runningTask(), null, 'cleared after the call');
    assert.throws(() => manager.recordEvent('fail', null, 2));
    assert.equal(manager.runningTask(), null, 'cleared after a failure');
  },

  'coverage(): tasks with their runs and failures, files tried, namespaces seen'() {
    const { manager } = located();
    manager.registerNode(3, 1, 'alpha', null, 'Lib.Alpha');
    manager.registerNode(4, 1, 'other', null, 'Lib.Missing');
    manager.registerNode(5, 1, 'again', null, 'Lib.Alpha');
    manager.recordEvent('tap', null, 2);
    manager.recordEvent('tap', null, 2);
    manager.recordEvent('tap', null, 1);
    assert.throws(() => manager.recordEvent('fail', null, 2));
    const coverage = manager.coverage();
    assert.equal(coverage.taskFolder, FOLDER);
    const runs = {};
    for (const t of coverage.tasks) runs[t.task] = [t.matches, t.failures];
    assert.deepEqual(runs, {
      tap: [3, 0], 'cell/tap': [2, 0], 'row/tap': [2, 0], fail: [1, 1], misuse: [0, 0], 'helper-fail': [0, 0],
      fn: [0, 0], node: [0, 0], running: [0, 0], alpha: [0, 0],
    });
    assert.deepEqual(coverage.files, [
      { file: TASK, status: 'loaded', tasks: 9 },
      { file: `${FOLDER}/Lib/Alpha.js`, status: 'loaded', tasks: 1 },
      { file: `${FOLDER}/Lib/Missing.js`, status: 'missing', tasks: 0 },
    ]);
    assert.deepEqual(coverage.namespaces, [
      { namespace: 'Lib.Alpha', file: `${FOLDER}/Lib/Alpha.js`, hasTaskFile: true },
      { namespace: 'Lib.Missing', file: `${FOLDER}/Lib/Missing.js`, hasTaskFile: false },
    ]);
    assert.deepEqual(coverage.modules.slice().sort(), [TASK, FORMAT, `${FOLDER}/Lib/Alpha.js`].sort(),
      'every module loaded from the task folder: task files and the helper they required');
    assert.deepEqual(JSON.parse(JSON.stringify(coverage)), coverage, 'JSON-able');
  },

  'in debug mode, coverage counts across the reloads every registration makes'() {
    const { manager } = located({ debug: true });
    manager.recordEvent('tap', null, 2);
    manager.registerNode(3, 1, 'other'); // reloads task/index.js
    manager.recordEvent('tap', null, 2);
    assert.throws(() => manager.recordEvent('fail', null, 2));
    manager.registerNode(4, 1, 'more');
    const runs = {};
    for (const t of manager.coverage().tasks) runs[t.task] = [t.matches, t.failures];
    assert.deepEqual([runs.tap, runs.fail], [[2, 0], [1, 1]]);
  },

  'coverage() lists a failed file with its error'() {
    const { manager } = scripted({ index: () => { throw new Error('broken file'); } });
    assert.throws(() => manager.registerNode(1, null, 'root'), /broken file/);
    const files = manager.coverage().files;
    assert.deepEqual(files, [{
      file: require.resolve('./fixtures/scripted/task/index.js'), status: 'failed', tasks: 0, error: 'broken file',
    }]);
  },

  'reloadTaskFile() runs a tried file again, its old tasks dropped; taskFiles() lists the files to watch'() {
    let version = 0;
    const { manager, sent, loads } = scripted((match) => {
      version += 1;
      const mine = version;
      match('tap', () => `v${mine}`);
    });
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'x', null, 'Lib.Nothing');
    const index = require.resolve('./fixtures/scripted/task/index.js');
    const files = manager.taskFiles();
    assert.equal(files.length, 3, 'a name without a file is watched as .js and as .ts');
    assert.equal(files[0], index);
    assert.ok(files[1].endsWith('/task/Lib/Nothing.js'), files[1]);
    assert.ok(files[2].endsWith('/task/Lib/Nothing.ts'), files[2]);
    manager.recordEvent('tap', null, 1);
    assert.equal(manager.reloadTaskFile(index), true);
    assert.equal(manager.reloadTaskFile(files[1]), true, 'a missing file is tried again');
    assert.equal(manager.reloadTaskFile('/elsewhere/index.js'), false);
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), ['v1', 'v2'], 'the old task was dropped');
    assert.equal(loads().index, 2);
    assert.equal(manager.stats().tasks, 1);
  },

  'reloadTaskFile() of a file that now fails throws as a load does and leaves no tasks'() {
    let fail = false;
    const { manager, sent } = scripted((match) => {
      if (fail) throw new Error('now broken');
      match('tap', () => 'ok');
    });
    manager.registerNode(1, null, 'root');
    fail = true;
    const index = require.resolve('./fixtures/scripted/task/index.js');
    const error = assert.throws(() => manager.reloadTaskFile(index), /^Cannot load tasks from .*: now broken$/);
    assert.equal(error.name, 'LoadError');
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), []);
    assert.equal(manager.coverage().files[0].status, 'failed');
  },

  'a node in a result is sent as its public face { name, index, path }'() {
    const { manager, sent, warnings } = located();
    manager.recordEvent('node', null, 2);
    assert.equal(JSON.stringify(sent()[0]), '{"node":{"name":"cell","index":4,"path":"/cell"},' +
      '"parent":{"name":"root","index":null,"path":""}}');
    assert.equal(warnings.length, 0);
  },

  'functions and symbols are dropped from results, with one ResultWarning per task'() {
    const { manager, sent, warnings } = located();
    manager.recordEvent('fn', null, 2);
    manager.recordEvent('fn', null, 2);
    assert.deepEqual(sent(), [{ kept: 1, list: [1, null, {}] }, { kept: 1, list: [1, null, {}] }]);
    assert.equal(warnings.length, 1, 'once per task');
    const warning = warnings[0];
    assert.equal(warning.name, 'ResultWarning');
    assert.ok(warning instanceof require('anna').AnnaError);
    assert.equal(warning.message, "Task 'fn' (task/index.js:9:6) returned a function at .onTap: " +
      'functions and symbols cannot be sent; it was dropped.');
    assert.deepEqual([warning.task, warning.path, warning.event, warning.location],
      ['fn', '/cell', 'fn', { file: TASK, line: 9, column: 6 }]);
  },

  'a result that is a function is not sent; without config.report nothing is reported'() {
    const { manager, sent } = scripted((match) => {
      match('tap', () => () => 1);
      match('tap', () => ({ [Symbol('key')]: 1, s: Symbol('value') }));
    });
    manager.registerNode(1, null, 'root');
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), [{}]);
  },

  'config.report must be a function'() {
    assert.throws(() => open('located', { report: 'yes' }), 'config.report must be a function taking a ResultWarning.');
  },

  'a result becomes plain data: paths of what is dropped, cycles, toJSON, BigInt, numbers'() {
    const flat = { a: 1, b: 'two' };
    assert.equal(toSendable(flat), flat, 'a flat plain object is sent as it is');
    assert.equal(droppedByLast(), null);
    const cyclic = { name: 'loop', when: new Date(0), big: 10n, nan: NaN, list: [0, { 'odd key': () => 1 }] };
    cyclic.self = cyclic;
    const value = toSendable(cyclic);
    assert.deepEqual(droppedByLast(), { path: '.list[1]["odd key"]', kind: 'function' });
    assert.deepEqual(value, {
      name: 'loop', when: '1970-01-01T00:00:00.000Z', big: '10', nan: null, list: [0, {}], self: '[Circular]',
    });
    assert.ok(typeof cyclic.list[1]['odd key'] === 'function', "the task's own object is not changed");
    assert.equal(toSendable(Symbol('s')), undefined);
    assert.deepEqual(droppedByLast(), { path: '', kind: 'symbol' });
    assert.deepEqual(toSendable({ toJSON() { return { shown: 1 }; }, f() {} }), { shown: 1 }, 'toJSON speaks for its object');
    assert.deepEqual(toSendable([undefined, () => 1]), [null, null]);
    assert.equal(toSendable(Promise.resolve(1)), THENABLE, 'a promise is waited for');
  },

  'reading a result runs its getters, proxies and toJSON once, and what they throw propagates'() {
    let reads = 0;
    const counted = { get value() { reads += 1; return reads; }, nested: {} };
    assert.deepEqual(toSendable(counted), { value: 1, nested: {} });
    assert.equal(reads, 1, 'the getter ran once');
    assert.throws(() => toSendable({ nested: {}, get bad() { throw new Error('getter threw'); } }), 'getter threw');
    assert.throws(() => toSendable({ nested: { toJSON() { throw new TypeError('toJSON threw'); } } }), 'toJSON threw');
    const trap = new Proxy({}, { ownKeys() { throw new Error('ownKeys threw'); } });
    assert.throws(() => toSendable(trap), 'ownKeys threw');
  },

  'a result of more values than a result may hold is refused before it is read'() {
    const sparse = [];
    sparse.length = 4294967295;
    const error = assert.throws(() => toSendable({ list: sparse }));
    assert.equal(error.name, 'RangeError');
    assert.ok(error.message.includes(`more than ${MAX_VALUES} values (4294967295 at .list)`), error.message);
  },

  'a flat plain result is sent as it is; a nested one is copied, each member read once'() {
    // The walk's cost is measured in the benchmarks; here, its shape: a flat result is only
    // checked (no copy), a nested one is copied, and neither reads a member twice.
    let reads = 0;
    const flat = { index: 1, title: 'row', get selected() { reads += 1; return true; } };
    assert.equal(toSendable(flat), flat, 'the same object');
    assert.equal(reads, 1, 'its getter read once');
    assert.equal(droppedByLast(), null);
    reads = 0;
    const nested = { index: 1, get title() { reads += 1; return 'row'; }, tags: ['a', 'b'] };
    const copied = toSendable(nested);
    assert.ok(copied !== nested, 'a copy');
    assert.deepEqual(copied, { index: 1, title: 'row', tags: ['a', 'b'] });
    assert.equal(reads, 1, 'its getter read once');
  },
};

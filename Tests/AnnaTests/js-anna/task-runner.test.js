'use strict';
// The task runner (js/anna/task-runner.js) alone: tasks and metas as the registry gives
// them, a loader standing in for the manager's. tasks.test.js drives it through the manager.

const assert = require('./support/assert');
const { TaskRunner } = require('anna/task-runner');

const loader = { directory: '/module/task', loadingFile: () => null };

/** A task as the registry holds it, running `fn`. */
function task(text, fn) {
  return { text, fn, file: '/module/task/index.js', line: 1, column: 1, group: text, matches: 0, failures: 0, warned: false };
}

function meta(text) {
  return Object.freeze({ task: text, path: '/root', event: 'tap' });
}

exports['runs the tasks in order, sends their results and throws their failures together'] = () => {
  const received = [];
  const runner = new TaskRunner((result, sentMeta) => received.push([result, sentMeta.task]), null, null, loader);
  const tasks = [task('a', () => 1), task('b', () => { throw new Error('broke'); }), task('c', () => ({ n: 3 }))];
  assert.throws(() => runner.run({}, tasks, tasks.map((each) => meta(each.text))), (error) =>
    error.name === 'TaskError' && error.errors.length === 1 && error.errors[0].task === 'b' && error.errors[0].message === 'broke');
  assert.deepEqual(received, [[1, 'a'], [{ n: 3 }, 'c']]);
  assert.deepEqual(tasks.map((each) => [each.matches, each.failures]), [[1, 0], [1, 1], [1, 0]]);
  assert.equal(runner.running(), null, 'nothing runs after the event');
};

exports['names the task running now, and resumes after a stopped one'] = () => {
  const received = [];
  let runner = null;
  let named = null;
  const tasks = [task('a', () => { named = runner.running(); return 'a'; }), task('b', () => 'b')];
  const metas = tasks.map((each) => meta(each.text));
  runner = new TaskRunner((result) => received.push(result), null, null, loader);
  runner.run({}, tasks, metas);
  assert.deepEqual(named, { task: 'a', file: '/module/task/index.js', line: 1, column: 1, path: '/root', event: 'tap' });
  assert.equal(runner.resume(), false, 'no task was stopped');
  // As the host's time limit leaves it: task 'a' stopped while its function ran.
  runner._task = tasks[0];
  runner._node = {};
  assert.equal(runner.resume(), true);
  assert.deepEqual(received, ['a', 'b', 'b'], 'the tasks after the stopped one ran');
  assert.equal(tasks[0].failures, 1, 'the stopped task counts as failed');
};

exports['an async task sends when its promise settles; the core marks its own then'] = () => {
  const received = [];
  const runner = new TaskRunner((result) => received.push(result), null, () => ['batch', 0], loader);
  let coreThen = null;
  // A promise-like of a class (a plain object's `then` is data), settled at once.
  class Later {
    then(onFulfilled) {
      coreThen = runner.coreThen;
      onFulfilled('later');
    }
  }
  const thenable = new Later();
  const tasks = [task('a', () => thenable)];
  runner.run({}, tasks, [meta('a')]);
  assert.equal(coreThen, true, 'coreThen is set while the core calls then');
  assert.equal(runner.coreThen, false);
  assert.deepEqual(received, ['later']);
  assert.equal(runner.abandonPending(), 0, 'nothing pending');
};

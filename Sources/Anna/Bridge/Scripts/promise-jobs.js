// The promise jobs of the bridge's JavaScript half (module-bridge.js). Promise jobs a task
// queues with `then` (a callback, not code after `await`, which the core follows itself) run
// after the batch's operations, when the call into JavaScript ends. To name the task and the
// operation that queued one the time limit stopped, and to report those dropped with it,
// `then` is wrapped (before the guard's snapshot, so it is the built-in from now on) while a
// task's function runs: each callback remembers its task and operation, and says while it
// runs. A job leaves the tracked ones when its promise settles either way; one still tracked
// after a stop was dropped (or waits for its promise). Each batch starts with none tracked,
// and at most MAX_TRACKED_JOBS are tracked (the oldest forgotten), so promises that never
// settle cost nothing lasting.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns
// trackPromiseJobs(current, setHidden, reportAt): `current` is the
// bridge's record of what runs now (`manager`, `batch`, `operation`, `last`,
// `afterOperations`); `reportAt(offset, error)` reports an error of an operation. Each call
// wraps the built-in `then` (as it was when this file was evaluated, before any module code
// ran) anew, and returns { startBatch, abandon, stopped }:
// - startBatch(): forgets the jobs of earlier batches (they wait for a promise: not this
//   batch's loss);
// - abandon(): after a stop, reports each tracked callback that did not run as a TaskError
//   of the operation that queued it;
// - stopped(afterStoppedOperation): the job the time limit stopped, as JSON text
//   `{ operation, task }` (the batch offset of the operation that queued it, or -1; the core's
//   description of its task), or null. A tracked `then` callback first; else code after
//   `await` of the core's oldest async task (which the core marks with the place it was
//   queued): its running one, or, when the job ran as a stopped operation's call ended (the
//   core still names that operation's task as running), its waiting one.
(function (builtIns) {
  'use strict';
  const { stringify, apply: callWith, define, isArray, ErrorType } = builtIns;
  const PROMISE_PROTOTYPE = Promise.prototype;
  const nativeThen = PROMISE_PROTOTYPE.then;
  const MAX_TRACKED_JOBS = 1000;

  return function trackPromiseJobs(current, setHidden, reportAt) {
    let runningJob = null; // the tracked job whose callback runs now (left set by a stop)
    let trackedJobs = new Map(); // job -> true, in the order queued
    function trackedJob(owner) {
      const job = { owner: owner, batch: current.batch, operation: current.operation <= current.last ? current.operation : -1 };
      if (trackedJobs.size >= MAX_TRACKED_JOBS) trackedJobs.delete(trackedJobs.keys().next().value);
      trackedJobs.set(job, true);
      return job;
    }

    function runAs(job, callback) {
      return function (value) {
        trackedJobs.delete(job);
        const previous = runningJob;
        runningJob = job;
        let result;
        try {
          result = callWith(callback, this, [value]);
        } catch (error) {
          runningJob = previous; // (a stop by the host is not caught: runningJob stays set)
          throw error;
        }
        runningJob = previous;
        return result;
      };
    }

    define(PROMISE_PROTOTYPE, 'then', {
      value: function then(onFulfilled, onRejected) {
        // Only while a task's own function runs (the core names it, not as async).
        let owner = null;
        const manager = current.manager;
        if (manager !== null && current.afterOperations === false && manager.coreThen !== true &&
          typeof manager.runningTask === 'function') {
          try {
            owner = manager.runningTask();
          } catch (unnamed) {
            owner = null; // tracked only when the core names the task
          }
        }
        if (owner === null || typeof owner !== 'object' || owner.async === true || typeof owner.task !== 'string') {
          return callWith(nativeThen, this, [onFulfilled, onRejected]);
        }
        const job = trackedJob(owner);
        // The side given no callback passes the settlement on as the built-in does, and
        // forgets the job, so a promise settled the other way leaves nothing tracked.
        return callWith(nativeThen, this, [
          typeof onFulfilled === 'function' ? runAs(job, onFulfilled) : function (value) { trackedJobs.delete(job); return value; },
          typeof onRejected === 'function' ? runAs(job, onRejected) : function (reason) { trackedJobs.delete(job); throw reason; },
        ]);
      },
      writable: true,
      configurable: true,
      enumerable: false,
    });

    function startBatch() {
      trackedJobs = new Map();
    }

    function abandon() {
      const stoppedJob = runningJob;
      runningJob = null;
      const dropped = trackedJobs;
      trackedJobs = new Map();
      for (const job of dropped.keys()) {
        if (job === stoppedJob) continue;
        // As the core reports a failed task (a TaskError listing it), so it is counted as one.
        const owner = job.owner;
        const failure = { message: 'its promise job (a then callback) did not run: the time limit stopped a promise job ' +
          'queued before it, and the jobs queued after that one were dropped.' };
        for (const key of ['task', 'path', 'event', 'file', 'line', 'column']) {
          if (typeof owner[key] === 'string' || typeof owner[key] === 'number') failure[key] = owner[key];
        }
        const error = new ErrorType(`Task '${owner.task}' failed on node '${owner.path}' for event '${owner.event}': ${failure.message}`);
        setHidden(error, 'name', 'TaskError');
        error.errors = [failure];
        reportAt(job.batch === current.batch && job.operation >= 0 ? job.operation : current.last, error);
      }
    }

    function stopped(afterStoppedOperation) {
      let owner = null;
      let at = -1;
      const ask = afterStoppedOperation === true ? 'waitingTask' : 'runningTask';
      if (runningJob !== null) {
        owner = runningJob.owner;
        if (runningJob.batch === current.batch) at = runningJob.operation;
      } else if (current.manager !== null && typeof current.manager[ask] === 'function') {
        try {
          owner = current.manager[ask]();
        } catch (error) {
          owner = null;
        }
        const queued = owner !== null && typeof owner === 'object' ? owner.queuedAt : undefined;
        if (isArray(queued) && queued[0] === current.batch && typeof queued[1] === 'number') at = queued[1];
      }
      if (owner === null || typeof owner !== 'object') return null;
      const task = {};
      for (const key of ['task', 'file', 'line', 'column', 'path', 'event']) {
        const value = owner[key];
        if (typeof value === 'string' || typeof value === 'number') task[key] = value;
      }
      return stringify({ operation: at, task: task });
    }

    return { startBatch: startBatch, abandon: abandon, stopped: stopped };
  };
})

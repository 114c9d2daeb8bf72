// The JavaScript half of the bridge between the host (Swift's ModuleBridge) and a module's
// manager. It relies only on the module protocol, so it drives any core.
//
// Swift hands it batches of operations as numbers in one reused Float64Array, the strings
// they add to an interned table (one per Swift encoder) and their literals. It calls the
// manager once per operation, catching errors per operation, and collects results (with
// their meta, interned) until Swift takes them, with the metas and errors, in one call. It
// counts the nodes registered and removed, so the engine knows when removed nodes are worth
// a full garbage collection.
//
// This file orchestrates: a batch's lifecycle, the errors, a stop by the time limit and what
// the host calls. Its pieces lie beside it, each evaluated once per engine (ModuleBridge.Scripts)
// and handed over in `parts`, each called here to make this bridge's own state:
// builtIns (built-ins.js: the built-ins captured before any module code ran), makeDecoder
// (operation-decoder.js: the wire format and the per-operation loop), makeMetas
// (bridge-metas.js), makeResults (bridge-results.js), errors (bridge-errors.js: errors as
// plain data), trackPromiseJobs (promise-jobs.js) and guardBuiltIns (built-ins-guard.js).
//
// `wire` is Swift's BridgeWire.table. `marker` is the context's operation marker: a new number
// there as each operation starts makes the host's time limit apply to each operation, not
// the batch.
//
// Task scripts share this context and may replace built-ins (JSON.stringify,
// Array.prototype.push, Function.prototype.call, ...): everything here uses the built-ins it
// captured when it was installed, before any module code ran; the containers it hands to the
// host have no prototype; and after each batch (and around each task file, through
// config.checkBuiltIns) the built-ins guard puts back what a script replaced.
(function (wire, marker, parts) {
  'use strict';
  const NAMES = ['builtIns', 'makeDecoder', 'makeMetas', 'makeResults', 'errors', 'trackPromiseJobs', 'guardBuiltIns'];
  for (let index = 0; index < NAMES.length; index++) {
    const part = parts === null || typeof parts !== 'object' ? undefined : parts[NAMES[index]];
    if (part === undefined || part === null) throw new TypeError(`the bridge needs its piece ${NAMES[index]} (ModuleBridge.Scripts)`);
  }
  const { isArray, now, StringType, bareArray } = parts.builtIns;
  const { plainError, setHidden } = parts.errors;

  // What runs now, read and written by the pieces.
  const current = {
    manager: null,
    batch: 0, // the number of the batch running now or last
    operation: 0, // its operation running now (after them: their count)
    last: 0, // its last operation
    afterOperations: false, // whether its operations are over (promise jobs may run)
    time: NaN, // the time of the operation running now
  };
  let errors = bareArray(); // [operation, error, ...]
  const marks = marker !== null && marker !== undefined;
  let serial = 0;
  /** Marks the start of an operation (or of what runs after the batch). */
  function mark() {
    if (marks) marker[0] = ++serial;
  }

  // An error of the current operation (of the last one, for a promise job run after the
  // batch), as plain data: what a script threw is read here, once, and never by the host.
  function addError(thrown) {
    const queued = queuedAtOf(thrown);
    addErrorAt(queued >= 0 ? queued : current.operation <= current.last ? current.operation : current.last, thrown);
  }

  function addErrorAt(offset, thrown) {
    pushError(offset, plainError(thrown));
  }

  function pushError(offset, plain) {
    const at = errors.length;
    errors[at] = offset;
    errors[at + 1] = plain;
  }

  // The batch offset of the operation that queued what reports `thrown` (an async task's
  // failure the core marks with `queuedAt`), when it is of this batch; else -1.
  function queuedAtOf(thrown) {
    if (current.operation <= current.last || thrown === null || typeof thrown !== 'object') return -1;
    try {
      const queued = thrown.queuedAt;
      return isArray(queued) && queued[0] === current.batch && typeof queued[1] === 'number' ? queued[1] : -1;
    } catch (unreadable) {
      return -1;
    }
  }

  const decoder = parts.makeDecoder(wire, current, mark, addError);
  const metas = parts.makeMetas();
  const results = parts.makeResults(current, mark, metas, parts.errors, pushError);

  const config = {
    debug: false,
    // Where an async task is queued from: [batch, operation offset], for the place of what
    // its promise jobs do after the batch (see stoppedJob).
    position: function position() {
      return [current.batch, current.operation <= current.last ? current.operation : -1];
    },
    now: function now() { return current.time === current.time ? current.time : Date.now(); },
    // A problem that is not the operation's failure (a result that lost a function): the
    // host reports it as a warning, in its place among the operation's results.
    report: function report(warning) { addError(warning); },
    // Puts back the built-ins a script replaced; returns the error that says so (`when` they
    // were replaced, e.g. 'while task file X loaded'), or null when none was.
    checkBuiltIns: function checkBuiltIns(when) {
      return restoreBuiltIns(StringType(when));
    },
  };

  // Values that JSON.stringify would turn into {} cross as what a reader expects: a Map as an
  // object of its entries, a Set as an array, an Error as its name and message. Installed
  // once in the module's own context, unless the module defined its own.
  function defineToJSON(prototype, toJSON) {
    if (!Object.prototype.hasOwnProperty.call(prototype, 'toJSON')) {
      Object.defineProperty(prototype, 'toJSON', { value: toJSON, writable: true, configurable: true });
    }
  }
  defineToJSON(Map.prototype, function toJSON() {
    const object = {};
    for (const [key, value] of this) object[String(key)] = value;
    return object;
  });
  defineToJSON(Set.prototype, function toJSON() { return Array.from(this); });
  defineToJSON(Error.prototype, function toJSON() { return { name: String(this.name), message: String(this.message) }; });
  // `then` wrapped before the guard's snapshot, so it is the built-in from now on.
  const jobs = parts.trackPromiseJobs(current, setHidden, addErrorAt);

  // The built-ins as they are now, before any module code ran (see built-ins-guard.js):
  // restoreBuiltIns(when) puts back what a script replaced and returns the error saying so.
  const restoreBuiltIns = parts.guardBuiltIns();
  const GUARD_INTERVAL = 100;
  let lastGuardCheck = -Infinity;

  // Runs `count` operations of a batch (see the decoder's run for the arguments). Returns
  // whether the nodes removed since the last true call make a full collection worth its cost.
  function apply(batch, length, count, table, interned, batchLiterals, literalBase, reset) {
    current.operation = 0; // before anything that can be stopped, so progress() counts this call
    current.afterOperations = false;
    current.batch++;
    jobs.startBatch();
    current.last = count - 1;
    decoder.run(current.manager, batch, length, table, interned, batchLiterals, literalBase, reset);
    mark(); // promise jobs run after the batch: not the last operation's time
    current.time = NaN;
    // After each batch a quick check (what reading results depends on), and a full one at
    // most every GUARD_INTERVAL ms: it costs a few microseconds (task files are checked
    // fully as they load, whatever the time).
    const checked = now();
    const full = checked - lastGuardCheck >= GUARD_INTERVAL;
    if (full) lastGuardCheck = checked;
    const replaced = restoreBuiltIns('while the operations up to this one ran', !full);
    if (replaced !== null) addError(replaced);

    current.afterOperations = true; // what runs now (promise jobs) belongs to the last operation
    return decoder.collectionDue();
  }

  // What the last batch produced, then cleared: [results, metas, errors], or just the
  // results text when the batch brought no metas or errors (the usual case).
  // - results: [value, ...] as JSON text, each value's operation and meta number in
  //   resultIndex() (bridge-results.js);
  // - metas: the metas interned since the last call, [task, path, event, ...] as JSON text;
  // - errors: [operation, error, ...], each error plain data.
  // A stop by the time limit while results are written ends the call: the host calls it again.
  function finish() {
    const text = results.write();
    const newMetas = metas.takeNew();
    const taken = newMetas === '' && errors.length === 0 ? text : [text, newMetas, errors];
    if (errors.length !== 0) errors = bareArray();
    return taken;
  }

  /**
   * Puts back the built-ins a script replaced before the host's time limit stopped it (the
   * batch's own check never ran), reported as an error of the stopped operation.
   */
  function restoreAfterStop() {
    const replaced = restoreBuiltIns('before the time limit stopped an operation');
    if (replaced !== null) addError(replaced);
  }

  // After the time limit stopped an operation: the rest of its event's tasks, where the core
  // can (resumeEvent), as part of that operation. Returns whether the core found the task.
  function resume() {
    restoreAfterStop();
    current.afterOperations = false;
    mark();
    const manager = current.manager;
    if (manager === null || typeof manager.resumeEvent !== 'function') return false;
    try {
      return manager.resumeEvent() === true;
    } catch (error) {
      addError(error);
      return true;
    } finally {
      current.afterOperations = true;
    }
  }

  // After the time limit stopped a promise job: the async tasks whose jobs were dropped with
  // it, reported by the core where it can (abandonPendingTasks), and the tracked `then`
  // callbacks that had not run, each reported as an error of the operation that queued it.
  // After a stopped operation (its call ended by running the jobs queued before it), what is
  // reported belongs to the operations that queued it, at most the stopped one.
  function abandonPending() {
    const [operation, last] = [current.operation, current.last];
    if (operation <= last) [current.operation, current.last] = [operation + 1, operation];
    try {
      jobs.abandon();
      const manager = current.manager;
      if (manager === null || typeof manager.abandonPendingTasks !== 'function') return;
      try {
        manager.abandonPendingTasks();
      } catch (error) {
        addError(error);
      }
    } finally {
      [current.operation, current.last] = [operation, last];
    }
  }

  return {
    config: config,
    resume: resume,
    abandonPending: abandonPending,
    // The promise job the time limit stopped, as JSON text { operation, task }, or null.
    stoppedJob: jobs.stopped,
    receive: results.receive,
    attach: function attach(constructed) { current.manager = constructed; },
    apply: apply,
    // The operation running now, or -1 - the number that ran when what runs now (promise jobs)
    // came after them.
    progress: function progress() {
      restoreAfterStop();
      return current.afterOperations ? -1 - current.operation : current.operation;
    },
    finish: finish,
    // The Float64Array of what finish() last wrote: the count, then operation and meta number
    // for each value.
    resultIndex: results.index,
    forgetMetas: metas.forget,
    // The names of the wire table the decoder read, for the test that both sides agree.
    wireNames: decoder.wireNames,
  };
})

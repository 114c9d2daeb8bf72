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
// The codes of the wire format come from `wire` (Swift's BridgeWire.table): no number of the
// format is written here. `marker` is the context's operation marker: a new number there as
// each operation starts makes the host's time limit apply to each operation, not the batch.
//
// Task scripts share this context and may replace built-ins (JSON.stringify,
// Array.prototype.push, Function.prototype.call, ...): everything here uses the built-ins it
// captured when it was installed, before any module code ran; the containers it hands to the
// host have no prototype; and after each batch (and around each task file, through
// config.checkBuiltIns) `guardBuiltIns`'s guard puts back what a script replaced.
(function (wire, marker, guardBuiltIns) {
  'use strict';
  if (typeof guardBuiltIns !== 'function') throw new TypeError('the bridge needs the built-ins guard (built-ins-guard.js)');
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const callWith = Reflect.apply;
  const define = Reflect.defineProperty;
  const hasOwn = Object.prototype.hasOwnProperty;
  const setPrototypeOf = Object.setPrototypeOf;
  const keysOf = Object.keys;
  const ErrorType = Error;
  const StringType = String;
  /** An empty array without a prototype: no replaced built-in reaches it. */
  function bareArray() { return setPrototypeOf([], null); }
  const wireNames = [];
  function code(group, name) {
    const value = wire !== null && typeof wire === 'object' && wire[group] !== null && typeof wire[group] === 'object'
      ? wire[group][name] : undefined;
    if (typeof value !== 'number') throw new TypeError('the bridge wire table has no number ' + group + '.' + name);
    wireNames.push(group + '.' + name);
    return value;
  }
  const OP_REGISTER = code('operation', 'register');
  const OP_EVENT = code('operation', 'event');
  const OP_DEREGISTER = code('operation', 'deregister');
  const ID_ABSENT = code('idKind', 'absent');
  const ID_PLAIN = code('idKind', 'plain');
  const ID_KEYED = code('idKind', 'keyed');
  const TAG_NUMBER = code('valueTag', 'number');
  const TAG_STRING = code('valueTag', 'string');
  const TAG_TRUE = code('valueTag', 'true');
  const TAG_FALSE = code('valueTag', 'false');
  const TAG_NULL = code('valueTag', 'null');
  const TAG_JSON = code('valueTag', 'json');
  const OBJECT_NULL = code('objectHeader', 'null');
  const OBJECT_VALUE = code('objectHeader', 'value');

  let manager = null;
  let time = NaN;
  let operation = 0;
  const tables = bareArray(); // by table slot: one per Swift encoder
  let strings = [];
  let literals = [];
  let base = 0; // the batch index of literals[0]
  let numbers = null;
  let at = 0;
  let results = bareArray(); // [operation, metaID, value, ...]
  let errors = bareArray(); // [operation, error, ...]
  let lastOperation = 0; // the last operation of the last batch
  let afterOperations = false; // whether the batch's operations are over (promise jobs may run)
  const marks = marker !== null && marker !== undefined;
  let serial = 0;
  /** Marks the start of an operation (or of what runs after the batch). */
  function mark() {
    if (marks) marker[0] = ++serial;
  }
  // Meta IDs by path, then task, then event. Results in a row mostly share a few metas
  // (cells of a list share one path), so the last RECENT metas ([task, path, event, id, ...])
  // are checked first and the last path's map is kept at hand: once paths are many, each
  // lookup in the map of paths is a cache miss.
  let metaIDs = new Map();
  let newMetas = bareArray();
  let metaCount = 0;
  const RECENT = 4;
  let recentMetas = [];
  let recentNext = 0;
  let lastPath = null;
  let lastPathMetas = null;
  // The properties (or attributes) of every operation that has none: a node keeps its last
  // events' properties, and one shared object for the empty ones is that much less garbage.
  const NO_MEMBERS = Object.freeze({});
  // Event properties of one or two members whose values are interned strings, booleans or
  // null recur (an `ana-updated` of a key path and a value seen before): one frozen object
  // each, per table, found by the numbers that encode it. Dropped when their table starts
  // over, or all at once when SHARED_LIMIT are kept.
  const SHARED_LIMIT = 4096;
  const sharedTables = bareArray(); // by table slot: [one member, two]
  let currentTable = 0;
  let shared = [new Map(), new Map()];
  let sharedCount = 0;
  // Nodes removed since the engine last collected garbage, and nodes alive. Once removed
  // nodes (closed screens) have outlived a young collection, only a full one frees them,
  // and the collector's own timers never run on the engine's queue (no run loop).
  const COLLECT_AFTER_REMOVING = 1000; // at least; and at least as many as are alive
  let liveNodes = 0;
  let removedNodes = 0;
  const config = {
    debug: false,
    // Where an async task is queued from: [batch, operation offset], for the place of what
    // its promise jobs do after the batch (see stoppedJob).
    position: function position() { return [batchNumber, operation <= lastOperation ? operation : -1]; },
    now: function now() { return time === time ? time : Date.now(); },
    // A problem that is not the operation's failure (a result that lost a function): the
    // host reports it as a warning, in its place among the operation's results.
    report: function report(warning) { addError(warning); },
    // Puts back the built-ins a script replaced; returns the error that says so (`when` they
    // were replaced, e.g. 'while task file X loaded'), or null when none was.
    checkBuiltIns: function checkBuiltIns(when) {
      return restoreBuiltIns(StringType(when));
    },
  };

  // An error of the current operation (of the last one, for a promise job run after the
  // batch), as plain data: what a script threw is read here, once, and never by the host.
  function addError(thrown) {
    const queued = queuedAtOf(thrown);
    addErrorAt(queued >= 0 ? queued : operation <= lastOperation ? operation : lastOperation, thrown);
  }

  function addErrorAt(offset, thrown) {
    const at = errors.length;
    errors[at] = offset;
    errors[at + 1] = plainError(thrown);
  }

  // The batch offset of the operation that queued what reports `thrown` (an async task's
  // failure the core marks with `queuedAt`), when it is of this batch; else -1.
  function queuedAtOf(thrown) {
    if (operation <= lastOperation || thrown === null || typeof thrown !== 'object') return -1;
    try {
      const queued = thrown.queuedAt;
      return Array.isArray(queued) && queued[0] === batchNumber && typeof queued[1] === 'number' ? queued[1] : -1;
    } catch (unreadable) {
      return -1;
    }
  }

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
  // Promise jobs a task queues with `then` (a callback, not code after `await`, which the
  // core follows itself) run after the batch's operations, when the call into JavaScript
  // ends. To name the task and the operation that queued one the time limit stopped, and to
  // report those dropped with it, `then` is wrapped (before the guard's snapshot, so it is
  // the built-in from now on) while a task's function runs: each callback remembers its
  // task and operation, and says while it runs. A job leaves the tracked ones when its
  // promise settles either way; one still tracked after a stop was dropped (or waits for
  // its promise). Each batch starts with none tracked, and at most MAX_TRACKED_JOBS are
  // tracked (the oldest forgotten), so promises that never settle cost nothing lasting.
  const MAX_TRACKED_JOBS = 1000;
  let batchNumber = 0;
  let runningJob = null; // the tracked job whose callback runs now (left set by a stop)
  let trackedJobs = new Map(); // job -> true, in the order queued
  const nativeThen = Promise.prototype.then;
  function trackedJob(owner) {
    const job = { owner: owner, batch: batchNumber, operation: operation <= lastOperation ? operation : -1 };
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
  define(Promise.prototype, 'then', {
    value: function then(onFulfilled, onRejected) {
      // Only while a task's own function runs (the core names it, not as async).
      let owner = null;
      if (manager !== null && afterOperations === false && manager.coreThen !== true && typeof manager.runningTask === 'function') {
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

  // The built-ins as they are now, before any module code ran (see built-ins-guard.js):
  // restoreBuiltIns(when) puts back what a script replaced and returns the error saying so.
  const restoreBuiltIns = guardBuiltIns();
  const now = Date.now;
  const GUARD_INTERVAL = 100;
  let lastGuardCheck = -Infinity;

  function metaID(meta) {
    if (meta === null || typeof meta !== 'object') return -1;
    const task = String(meta.task), path = String(meta.path), event = String(meta.event);
    for (let slot = 0; slot < recentMetas.length; slot += 4) {
      if (recentMetas[slot] === task && recentMetas[slot + 1] === path && recentMetas[slot + 2] === event) {
        return recentMetas[slot + 3];
      }
    }
    let byTask = lastPathMetas;
    if (path !== lastPath) {
      byTask = metaIDs.get(path);
      if (byTask === undefined) { byTask = new Map(); metaIDs.set(path, byTask); }
      lastPath = path;
      lastPathMetas = byTask;
    }
    let byEvent = byTask.get(task);
    if (byEvent === undefined) { byEvent = new Map(); byTask.set(task, byEvent); }
    let id = byEvent.get(event);
    if (id === undefined) {
      id = metaCount++;
      byEvent.set(event, id);
      const at = newMetas.length;
      newMetas[at] = task;
      newMetas[at + 1] = path;
      newMetas[at + 2] = event;
    }
    recentMetas[recentNext] = task;
    recentMetas[recentNext + 1] = path;
    recentMetas[recentNext + 2] = event;
    recentMetas[recentNext + 3] = id;
    recentNext = (recentNext + 4) % (RECENT * 4);
    return id;
  }

  function receive(result, meta) {
    const at = results.length;
    results[at] = operation <= lastOperation ? operation : lastOperation;
    results[at + 1] = metaID(meta);
    results[at + 2] = result;
  }

  function string(index) { return index >= 0 ? strings[index] : literals[-index - 1 - base]; }

  function id() {
    const kind = numbers[at++], value = numbers[at++];
    if (kind === ID_PLAIN) return value;
    if (kind === ID_KEYED) return parse(string(value));
    if (kind === ID_ABSENT) return null;
    throw new TypeError('unknown ID kind ' + kind);
  }

  function value() {
    const tag = numbers[at++];
    switch (tag) {
      case TAG_NUMBER: return numbers[at++];
      case TAG_STRING: return string(numbers[at++]);
      case TAG_TRUE: return true;
      case TAG_FALSE: return false;
      case TAG_NULL: return null;
      case TAG_JSON: return parse(string(numbers[at++]));
      default: throw new TypeError('unknown value tag ' + tag);
    }
  }

  // A number for the member at `from` (key, tag, payload) if its value can be shared,
  // else -1: the key's index times MEMBER_SPAN plus the value's code (1, 2 and 3 for true,
  // false and null; its string index plus 8 for a string). The table starts over at 2^16
  // strings; a batch that adds past MEMBER_SPAN is not shared.
  const MEMBER_SPAN = 67108864; // 2^26: two codes stay below 2^53
  function memberCode(from) {
    const key = numbers[from], tag = numbers[from + 1];
    if (key < 0 || key >= MEMBER_SPAN) return -1;
    if (tag === TAG_STRING) {
      const index = numbers[from + 2];
      return index < 0 || index >= MEMBER_SPAN - 8 ? -1 : key * MEMBER_SPAN + index + 8;
    }
    const constant = tag === TAG_TRUE ? 1 : tag === TAG_FALSE ? 2 : tag === TAG_NULL ? 3 : -1;
    return constant < 0 ? -1 : key * MEMBER_SPAN + constant;
  }

  // An object of `count` members; shared when `share` and its members allow (events only:
  // registrations are few, and their attributes stay the core's to keep).
  function object(share) {
    const count = numbers[at++];
    if (count === OBJECT_NULL) return null;
    if (count === OBJECT_VALUE) return value();
    if (!(count >= 0)) throw new TypeError('unknown object header ' + count);
    if (count === 0) return NO_MEMBERS;
    if (share && count <= 2) {
      const first = memberCode(at);
      if (first >= 0) {
        const firstSize = memberSize(at);
        if (count === 1) return sharedObject(first, -1, firstSize);
        const second = memberCode(at + firstSize);
        if (second >= 0) return sharedObject(first, second, firstSize + memberSize(at + firstSize));
      }
    }
    return members(count);
  }

  // How many numbers encode a shareable member (key, tag[, string]).
  function memberSize(from) { return numbers[from + 1] === TAG_STRING ? 3 : 2; }

  // The shared object of member codes `first` and `second` (-1: one member), made from the
  // next `size` numbers when missing.
  function sharedObject(first, second, size) {
    let found;
    if (second < 0) {
      found = shared[0].get(first);
    } else {
      const bySecond = shared[1].get(first);
      found = bySecond === undefined ? undefined : bySecond.get(second);
    }
    if (found !== undefined) {
      at += size;
      return found;
    }
    if (sharedCount >= SHARED_LIMIT) clearShared();
    const made = Object.freeze(members(second < 0 ? 1 : 2));
    if (second < 0) {
      shared[0].set(first, made);
    } else {
      let bySecond = shared[1].get(first);
      if (bySecond === undefined) { bySecond = new Map(); shared[1].set(first, bySecond); }
      bySecond.set(second, made);
    }
    sharedCount++;
    return made;
  }

  function clearShared() {
    for (let slot = 0; slot < sharedTables.length; slot++) sharedTables[slot] = [new Map(), new Map()];
    shared = sharedTables[currentTable];
    sharedCount = 0;
  }

  function members(count) {
    const result = {};
    for (let index = 0; index < count; index++) {
      const key = string(numbers[at++]);
      // '__proto__' would set the object's prototype: a stream's key is a member like any other.
      if (key === '__proto__') define(result, key, { value: value(), writable: true, enumerable: true, configurable: true });
      else result[key] = value();
    }
    return result;
  }

  // `batch` is reused from call to call: only its first `length` numbers belong to this one,
  // which encode `count` operations.
  // `table` is the slot of the interned table the batch's strings index; `interned` the
  // strings to add to it first (after emptying it when `reset`). `batchLiterals` are the
  // call's literals; string -1 - literalBase is the first. Returns whether the nodes removed
  // since the last true call make a full collection worth its cost.
  function apply(batch, length, count, table, interned, batchLiterals, literalBase, reset) {
    operation = 0; // before anything that can be stopped, so progress() counts this call
    afterOperations = false;
    batchNumber++;
    trackedJobs = new Map(); // a job of an earlier batch waits for a promise: not this batch's loss
    currentTable = table;
    while (tables.length <= table) {
      tables[tables.length] = bareArray();
      sharedTables[sharedTables.length] = [new Map(), new Map()];
    }
    if (reset) {
      tables[table] = bareArray();
      clearShared();
    }
    strings = tables[table];
    shared = sharedTables[table];
    if (interned !== null) for (let index = 0; index < interned.length; index++) strings[strings.length] = interned[index];
    literals = batchLiterals === null ? [] : batchLiterals;
    base = literalBase;
    numbers = batch;
    at = 0;
    lastOperation = count - 1;
    while (at < length) {
      mark();
      const code = numbers[at++];
      time = numbers[at++];
      try {
        if (code === OP_EVENT) {
          const node = id(), name = string(numbers[at++]), properties = object(true);
          manager.recordEvent(name, properties, node);
        } else if (code === OP_REGISTER) {
          const node = id(), parent = id(), name = string(numbers[at++]);
          const index = numbers[at++], namespace = numbers[at++];
          const attributes = object(false);
          manager.registerNode(node, parent, name, index === index ? index : null,
            namespace === namespace ? string(namespace) : null, attributes);
          liveNodes++;
        } else if (code === OP_DEREGISTER) {
          const removed = manager.deregisterNodes(id());
          // The count the protocol returns; a core that returns none removed one at least.
          const count = typeof removed === 'number' && removed >= 0 ? removed : 1;
          liveNodes = Math.max(0, liveNodes - count);
          removedNodes += count;
        } else {
          throw new TypeError('unknown operation code ' + code);
        }
      } catch (error) {
        addError(error);
      }
      operation++;
    }
    mark(); // promise jobs run after the batch: not the last operation's time
    numbers = null;
    literals = [];
    time = NaN;
    // After each batch a quick check (what reading results depends on), and a full one at
    // most every GUARD_INTERVAL ms: it costs a few microseconds (task files are checked
    // fully as they load, whatever the time).
    const checked = now();
    const full = checked - lastGuardCheck >= GUARD_INTERVAL;
    if (full) lastGuardCheck = checked;
    const replaced = restoreBuiltIns('while the operations up to this one ran', !full);
    if (replaced !== null) addError(replaced);

    afterOperations = true; // what runs now (promise jobs) belongs to the last operation
    if (removedNodes < COLLECT_AFTER_REMOVING || removedNodes < liveNodes) return false;
    removedNodes = 0;
    return true;
  }

  // Empties what a batch collected, keeping the results array's storage for the next one.
  function clear() {
    results.length = 0;
    if (errors.length !== 0) errors = bareArray();
    if (newMetas.length !== 0) newMetas = bareArray();
  }

  // Results are written all at once; when that fails (a value JSON cannot write, a getter
  // that throws), or the time limit stops it (a getter that loops), they are written one at
  // a time, each timed as an operation of its own. A result that cannot be written is
  // reported with its task and the others are kept. A stop ends the call: the host calls
  // finish() again, and the result being written then is reported and skipped.
  const WRITE_ALL = 0;
  const TRIED_ALL = 1;
  let writing = WRITE_ALL;
  let next = 0; // the next result to write one at a time
  let inResult = false; // whether writing result `next` began (and did not end)
  let written = ''; // the results written one at a time, as JSON members

  // What the last batch produced, then cleared: [results, metas, errors], or just the
  // results text when the batch brought no metas or errors (the usual case).
  // - results: [operation, metaID, value, ...] as JSON text;
  // - metas: the metas interned since the last call, [task, path, event, ...] as JSON text;
  // - errors: [operation, error, ...], each error plain data.
  function finish() {
    let text;
    if (writing === WRITE_ALL) {
      writing = TRIED_ALL;
      mark();
      try {
        text = stringify(results);
      } catch (unwritable) {
        text = undefined;
      }
    }
    if (typeof text !== 'string') text = writeEach();
    writing = WRITE_ALL;
    const taken = newMetas.length === 0 && errors.length === 0
      ? text : [text, newMetas.length === 0 ? '' : stringify(newMetas), errors];
    clear();
    return taken;
  }

  function writeEach() {
    if (inResult) {
      inResult = false;
      resultFailed(next, 'the time limit stopped reading it');
      next += 1;
    }
    for (; next * 3 < results.length; next += 1) {
      mark();
      inResult = true;
      let json;
      try {
        json = stringify(results[next * 3 + 2]);
      } catch (error) {
        inResult = false;
        resultFailed(next, describeThrown(error));
        continue;
      }
      inResult = false;
      written += (written === '' ? '' : ',') + results[next * 3] + ',' + results[next * 3 + 1] + ',' +
        (typeof json === 'string' ? json : 'null');
    }
    const text = '[' + written + ']';
    written = '';
    next = 0;
    return text;
  }

  /** Reports result `index` as not written: an error of its operation naming its task. */
  function resultFailed(index, reason) {
    const meta = metaOf(results[index * 3 + 1]);
    const error = plainError(null);
    const whose = meta === null ? 'a task' : `task '${meta[0]}' on node '${meta[1]}' for event '${meta[2]}'`;
    setHidden(error, 'name', 'ResultError');
    setHidden(error, 'message', `The result of ${whose} cannot be written as JSON (${reason}); it was dropped.`);
    const at = errors.length;
    errors[at] = results[index * 3];
    errors[at + 1] = error;
  }

  /** [task, path, event] of meta `id`, or null (a rare path: results that failed). */
  function metaOf(id) {
    for (const [path, byTask] of metaIDs) {
      for (const [task, byEvent] of byTask) {
        for (const [event, found] of byEvent) if (found === id) return [task, path, event];
      }
    }
    return null;
  }

  // Errors cross to the host as plain data: what a script threw is read here, each field in
  // its own try, so a hostile value (a proxy, a throwing getter, an object without a
  // prototype) is described instead of breaking the batch.
  const ERROR_PROTOTYPE = ErrorType.prototype;
  const ERROR_FIELDS = ['name', 'message', 'stack', 'sourceURL', 'line', 'column'];
  const MAX_ERROR_FIELDS = 64;

  function setHidden(object, key, value) {
    define(object, key, { value: value, writable: true, configurable: true, enumerable: false });
  }

  function read(object, key) {
    try {
      return { value: object[key] };
    } catch (unreadable) {
      return null;
    }
  }

  function describeThrown(thrown) {
    const message = thrown !== null && typeof thrown === 'object' ? read(thrown, 'message') : null;
    if (message !== null && typeof message.value === 'string') return message.value;
    try {
      return StringType(thrown);
    } catch (unreadable) {
      return `a thrown ${thrown === null ? 'null' : typeof thrown} whose message cannot be read`;
    }
  }

  /** `thrown` as a plain Error (a primitive stays as it is). */
  function plainError(thrown) {
    const type = typeof thrown;
    if (thrown !== null && type !== 'object' && type !== 'function') return thrown;
    const plain = setPrototypeOf({}, ERROR_PROTOTYPE);
    if (thrown === null) return plain;
    for (let index = 0; index < ERROR_FIELDS.length; index++) {
      const key = ERROR_FIELDS[index];
      const found = read(thrown, key);
      if (found === null || found.value === undefined) continue;
      const value = found.value;
      const kind = typeof value;
      if (kind === 'string' || kind === 'number') setHidden(plain, key, value);
    }
    setHidden(plain, 'message', describeThrown(thrown));
    let keys = [];
    try {
      keys = keysOf(thrown);
    } catch (unreadable) {
      keys = [];
    }
    for (let index = 0; index < keys.length && index < MAX_ERROR_FIELDS; index++) {
      const key = keys[index];
      if (callWith(hasOwn, plain, [key])) continue;
      const found = read(thrown, key);
      if (found === null) continue;
      try {
        const json = stringify(found.value);
        if (typeof json === 'string') define(plain, key, { value: parse(json), writable: true, configurable: true, enumerable: true });
      } catch (unwritable) {
        // A field that is not JSON data: the message and the place still say what happened.
      }
    }
    return plain;
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
    afterOperations = false;
    mark();
    if (manager === null || typeof manager.resumeEvent !== 'function') return false;
    try {
      return manager.resumeEvent() === true;
    } catch (error) {
      addError(error);
      return true;
    } finally {
      afterOperations = true;
    }
  }

  // After the time limit stopped a promise job: the async tasks whose jobs were dropped with
  // it, reported by the core where it can (abandonPendingTasks), and the tracked `then`
  // callbacks that had not run, each reported as an error of the operation that queued it.
  function abandonPending() {
    const stopped = runningJob;
    runningJob = null;
    const dropped = trackedJobs;
    trackedJobs = new Map();
    for (const job of dropped.keys()) {
      if (job === stopped) continue;
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
      addErrorAt(job.batch === batchNumber && job.operation >= 0 ? job.operation : lastOperation, error);
    }
    if (manager === null || typeof manager.abandonPendingTasks !== 'function') return;
    try {
      manager.abandonPendingTasks();
    } catch (error) {
      addError(error);
    }
  }

  // The promise job the time limit stopped, as far as it is known: `{ operation, task }`
  // (the batch offset of the operation that queued it, or -1; the core's description of its
  // task), or null. A tracked `then` callback first; else code after `await` of the core's
  // oldest async task (which the core marks with the place it was queued).
  function stoppedJob() {
    let owner = null;
    let at = -1;
    if (runningJob !== null) {
      owner = runningJob.owner;
      if (runningJob.batch === batchNumber) at = runningJob.operation;
    } else if (manager !== null && typeof manager.runningTask === 'function') {
      try {
        owner = manager.runningTask();
      } catch (error) {
        owner = null;
      }
      const queued = owner !== null && typeof owner === 'object' ? owner.queuedAt : undefined;
      if (Array.isArray(queued) && queued[0] === batchNumber && typeof queued[1] === 'number') at = queued[1];
    }
    if (owner === null || typeof owner !== 'object') return null;
    const task = {};
    for (const key of ['task', 'file', 'line', 'column', 'path', 'event']) {
      const value = owner[key];
      if (typeof value === 'string' || typeof value === 'number') task[key] = value;
    }
    return stringify({ operation: at, task: task });
  }

  return {
    config: config,
    resume: resume,
    abandonPending: abandonPending,
    stoppedJob: stoppedJob,
    receive: receive,
    attach: function attach(constructed) { manager = constructed; },
    apply: apply,
    // The operation running now, or -1 - the number that ran when what runs now (promise jobs)
    // came after them.
    progress: function progress() {
      restoreAfterStop();
      return afterOperations ? -1 - operation : operation;
    },
    finish: finish,
    forgetMetas: function forgetMetas() {
      metaIDs = new Map();
      metaCount = 0;
      newMetas = bareArray();
      recentMetas = [];
      recentNext = 0;
      lastPath = null;
      lastPathMetas = null;
    },
    // The names of the wire table this script read, for the test that both sides agree.
    wireNames: wireNames.slice(),
  };
})

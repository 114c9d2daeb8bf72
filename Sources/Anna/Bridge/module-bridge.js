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
// format is written here.
(function (wire) {
  'use strict';
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
  const tables = []; // by table slot: one per Swift encoder
  let strings = [];
  let literals = [];
  let base = 0; // the batch index of literals[0]
  let numbers = null;
  let at = 0;
  let results = [];
  let errors = [];
  // Meta IDs by path, then task, then event. Results in a row mostly share a few metas
  // (cells of a list share one path), so the last RECENT metas ([task, path, event, id, ...])
  // are checked first and the last path's map is kept at hand: once paths are many, each
  // lookup in the map of paths is a cache miss.
  let metaIDs = new Map();
  let newMetas = [];
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
  const sharedTables = []; // by table slot: [one member, two]
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
    now: function now() { return time === time ? time : Date.now(); },
    // A problem that is not the operation's failure (a result that lost a function): the
    // host reports it as a warning, in its place among the operation's results.
    report: function report(warning) { errors.push(operation, warning); },
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
      newMetas.push(task, path, event);
    }
    recentMetas[recentNext] = task;
    recentMetas[recentNext + 1] = path;
    recentMetas[recentNext + 2] = event;
    recentMetas[recentNext + 3] = id;
    recentNext = (recentNext + 4) % (RECENT * 4);
    return id;
  }

  function receive(result, meta) {
    results.push(operation, metaID(meta), result);
  }

  function string(index) { return index >= 0 ? strings[index] : literals[-index - 1 - base]; }

  function id() {
    const kind = numbers[at++], value = numbers[at++];
    if (kind === ID_PLAIN) return value;
    if (kind === ID_KEYED) return JSON.parse(string(value));
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
      case TAG_JSON: return JSON.parse(string(numbers[at++]));
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
      result[key] = value();
    }
    return result;
  }

  // `batch` is reused from call to call: only its first `length` numbers belong to this one.
  // `table` is the slot of the interned table the batch's strings index; `interned` the
  // strings to add to it first (after emptying it when `reset`). `batchLiterals` are the
  // call's literals; string -1 - literalBase is the first. Returns whether the nodes removed
  // since the last true call make a full collection worth its cost.
  function apply(batch, length, table, interned, batchLiterals, literalBase, reset) {
    operation = 0; // before anything that can be stopped, so progress() counts this call
    currentTable = table;
    while (tables.length <= table) {
      tables.push([]);
      sharedTables.push([new Map(), new Map()]);
    }
    if (reset) {
      tables[table] = [];
      clearShared();
    }
    strings = tables[table];
    shared = sharedTables[table];
    if (interned !== null) for (let index = 0; index < interned.length; index++) strings.push(interned[index]);
    literals = batchLiterals === null ? [] : batchLiterals;
    base = literalBase;
    numbers = batch;
    at = 0;
    while (at < length) {
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
        errors.push(operation, error);
      }
      operation++;
    }
    numbers = null;
    literals = [];
    time = NaN;
    if (removedNodes < COLLECT_AFTER_REMOVING || removedNodes < liveNodes) return false;
    removedNodes = 0;
    return true;
  }

  // Empties what a batch collected, keeping the results array's storage for the next one.
  function clear() {
    results.length = 0;
    if (errors.length !== 0) errors = [];
    if (newMetas.length !== 0) newMetas = [];
  }

  // What the last batch produced, then cleared: [results, metas, errors, slow], or just the
  // results text when the batch brought no metas, errors or slow values (the usual case).
  // - results: [operation, metaID, value, ...] as JSON text. A value JSON.stringify cannot
  //   write (a cycle, a BigInt) is written as null, and slow lists it out of band as
  //   [result number, value, ...] for Swift's general conversion: no value can pass for
  //   framing.
  // - metas: the metas interned since the last call, [task, path, event, ...] as JSON text.
  // - errors: [operation, error, ...].
  // Nothing is cleared until the text is written, so a call stopped by the time limit
  // loses nothing: takeRaw() still has it all.
  function finish() {
    let text;
    const slow = [];
    try {
      text = JSON.stringify(results);
    } catch (unwritable) {
      const all = results.slice();
      for (let index = 2; index < all.length; index += 3) {
        try {
          JSON.stringify(all[index]);
        } catch (error) {
          slow.push((index - 2) / 3, all[index]);
          all[index] = null;
        }
      }
      text = JSON.stringify(all);
    }
    const taken = newMetas.length === 0 && errors.length === 0 && slow.length === 0
      ? text : [text, newMetas.length === 0 ? '' : JSON.stringify(newMetas), errors, slow];
    clear();
    return taken;
  }

  // What the last batch produced, unconverted, then cleared: [results, metas, errors], for
  // Swift to read result by result when finish() could not write them.
  function takeRaw() {
    const taken = [results.slice(), newMetas.length === 0 ? '' : JSON.stringify(newMetas), errors];
    clear();
    return taken;
  }

  return {
    config: config,
    receive: receive,
    attach: function attach(constructed) { manager = constructed; },
    apply: apply,
    progress: function progress() { return operation; },
    finish: finish,
    takeRaw: takeRaw,
    forgetMetas: function forgetMetas() {
      metaIDs = new Map();
      metaCount = 0;
      newMetas = [];
      recentMetas = [];
      recentNext = 0;
      lastPath = null;
      lastPathMetas = null;
    },
    // The names of the wire table this script read, for the test that both sides agree.
    wireNames: wireNames.slice(),
  };
})

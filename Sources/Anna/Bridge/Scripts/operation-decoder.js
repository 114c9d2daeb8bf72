// The operation decoder of the bridge's JavaScript half (module-bridge.js): it reads the
// batches Swift encodes (OperationEncoder) and calls the manager once per operation. A batch
// is numbers in one reused Float64Array, the strings it adds to an interned table (one per
// Swift encoder) and its literals; the codes of the format come from `wire` (Swift's
// BridgeWire.table): no number of the format is written here. This is the hot path: the
// loop and the readers it calls share one closure, with no call layer between them.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns
// makeDecoder(wire, current, mark, failed): `current` is the bridge's
// record of what runs now (its `operation` and `time`, written here per
// operation), `mark()` marks the start of each operation for the host's time limit, and
// `failed(error)` takes what an operation threw. It returns { wireNames, run, collectionDue }.
(function (builtIns) {
  'use strict';
  const { parse, define, freeze, max, bareArray } = builtIns;

  return function makeDecoder(wire, current, mark, failed) {
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

    const tables = bareArray(); // by table slot: one per Swift encoder
    let strings = [];
    let literals = [];
    let base = 0; // the batch index of literals[0]
    let numbers = null;
    let at = 0;
    // The properties (or attributes) of every operation that has none: a node keeps its last
    // events' properties, and one shared object for the empty ones is that much less garbage.
    const NO_MEMBERS = freeze({});
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
      const made = freeze(members(second < 0 ? 1 : 2));
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

    // Runs the operations of a batch on `manager`. `batch` is reused from call to call: only
    // its first `length` numbers belong to this one. `table` is the slot of the interned table
    // the batch's strings index; `interned` the strings to add to it first (after emptying it
    // when `reset`). `batchLiterals` are the call's literals; string -1 - literalBase is the
    // first. Each operation's error goes to `failed`, and the next one runs.
    function run(manager, batch, length, table, interned, batchLiterals, literalBase, reset) {
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
      while (at < length) {
        mark();
        const code = numbers[at++];
        current.time = numbers[at++];
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
            liveNodes = max(0, liveNodes - count);
            removedNodes += count;
          } else {
            throw new TypeError('unknown operation code ' + code);
          }
        } catch (error) {
          failed(error);
        }
        current.operation++;
      }
      numbers = null;
      literals = [];
    }

    // Whether the nodes removed since the last true answer make a full collection worth its cost.
    function collectionDue() {
      if (removedNodes < COLLECT_AFTER_REMOVING || removedNodes < liveNodes) return false;
      removedNodes = 0;
      return true;
    }

    return { wireNames: wireNames.slice(), run: run, collectionDue: collectionDue };
  };
})

'use strict';
// Results go to the host as JSON data. A task's result is made into plain data here, while
// the task still counts as running: a getter, a proxy trap or a `toJSON` method runs once,
// inside the task's failure handling and time limit, so what it throws (or a loop it never
// leaves) is reported as that task's failure, with its file and line.
//
// A plain object of primitive members (most results) is sent as it is; each member, and each
// key list, is read once. Any other value is
// copied by JSON.stringify's rules plus the host's (docs/corejs.md): `toJSON` is honoured,
// functions and symbols are left out of objects and `null` in arrays, `NaN` and `±Infinity`
// become `null`, a BigInt its decimal string, a value met again inside itself the string
// `"[Circular]"`, a container deeper than MAX_DEPTH the string `"[Too deep]"`. A result of
// more than MAX_VALUES values (a sparse array claiming billions of elements) is refused.

const MAX_VALUES = 1000000;
const MAX_DEPTH = 512;
const PLAIN = Object.prototype;
const getPrototypeOf = Object.getPrototypeOf;
const keysOf = Object.keys;
const isArray = Array.isArray;
const defineProperty = Object.defineProperty;
const apply = Reflect.apply;
const RangeErrorType = RangeError;
/** What an object leaves out and an array writes as null. */
const MISSING = Symbol('missing');

/** The members a flatness check read, reused from check to check (each is read once). */
const scratch = [];

/**
 * Whether `object`'s `keys` are all primitive members (most results), read into `scratch`:
 * the index of the first that is not, or -1 when the object can be sent as it is.
 */
function firstNested(object, keys) {
  for (let i = 0; i < keys.length; i += 1) {
    const member = object[keys[i]];
    scratch[i] = member;
    const type = typeof member;
    if (type === 'object' ? member !== null : type === 'function' || type === 'symbol' || type === 'bigint') return i;
  }
  return -1;
}

/** How a key is written in a path: `.name`, or `["odd key"]`. */
function step(key) {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Where the last toSendable call left something out, or null (see toSendable). */
let lastDropped = null;

/** What toSendable returns for a promise (or promise-like): the caller waits for it. */
const THENABLE = Symbol('thenable');

/**
 * The result as plain data: what to send (`undefined` for nothing), or THENABLE for a
 * promise. `droppedByLast()` then says where the first function or symbol was left out
 * (`{ path, kind }`, path `''` for the value itself, such as `.onTap` or
 * `.list[2].format`), or null. A flat result is returned as it is, nothing allocated.
 * @throws whatever a getter, proxy trap or `toJSON` throws; a RangeError for a result of
 *   more than MAX_VALUES values
 */
function toSendable(value) {
  lastDropped = null;
  const type = typeof value;
  if (type === 'function' || type === 'symbol') {
    lastDropped = { path: '', kind: type };
    return undefined;
  }
  if (value === null || type !== 'object') return type === 'bigint' ? String(value) : value;
  let keys = null;
  let read = -1;
  if (getPrototypeOf(value) === PLAIN) {
    keys = keysOf(value);
    read = firstNested(value, keys);
    if (read === -1) return value;
  }
  if (keys === null && typeof value.then === 'function') return THENABLE;
  const walk = { remaining: MAX_VALUES, ancestors: [], path: [], dropped: null };
  let copied;
  if (keys === null || typeof value.toJSON === 'function') {
    copied = copy(value, '', walk);
  } else {
    // A plain object with a member to copy: its members read so far are not read again.
    walk.ancestors.push(value);
    copied = copyObject(value, walk, keys, read);
    walk.ancestors.pop();
  }
  lastDropped = walk.dropped;
  return copied === MISSING ? undefined : copied;
}

/** Where the last toSendable call left a function or symbol out, or null. */
function droppedByLast() {
  return lastDropped;
}

function copy(value, key, walk) {
  const type = typeof value;
  if (type === 'string' || type === 'boolean') return value;
  if (type === 'number') return value - value === 0 ? value : null; // NaN and ±Infinity
  if (type === 'bigint') return String(value);
  if (type === 'undefined') return MISSING;
  if (type === 'function' || type === 'symbol') {
    if (walk.dropped === null) walk.dropped = { path: walk.path.join(''), kind: type };
    return MISSING;
  }
  if (value === null) return null;
  if (walk.ancestors.length >= MAX_DEPTH) return '[Too deep]';
  if (walk.ancestors.indexOf(value) !== -1) return '[Circular]';
  const toJSON = value.toJSON;
  if (typeof toJSON === 'function') {
    const replaced = apply(toJSON, value, [key]);
    if (replaced !== value) {
      walk.ancestors.push(value);
      const result = copy(replaced, key, walk);
      walk.ancestors.pop();
      return result;
    }
  }
  walk.ancestors.push(value);
  const result = isArray(value) ? copyArray(value, walk) : copyObject(value, walk, keysOf(value), -1);
  walk.ancestors.pop();
  return result;
}

function copyArray(array, walk) {
  const length = array.length;
  spend(walk, length);
  const result = [];
  for (let i = 0; i < length; i += 1) {
    walk.path.push(`[${i}]`);
    const member = copy(array[i], String(i), walk);
    walk.path.pop();
    result[i] = member === MISSING ? null : member;
  }
  return result;
}

/** Copies `object`'s `keys`; members up to index `read` are taken from `scratch`. */
function copyObject(object, walk, keys, read) {
  spend(walk, keys.length);
  const result = {};
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    let value;
    if (i <= read) {
      value = scratch[i];
      scratch[i] = undefined;
    } else {
      value = object[key];
    }
    walk.path.push(step(key));
    const member = copy(value, key, walk);
    walk.path.pop();
    if (member === MISSING) continue;
    if (key === '__proto__') defineProperty(result, key, { value: member, enumerable: true, writable: true, configurable: true });
    else result[key] = member;
  }
  return result;
}

/** Counts `count` values against the budget, refusing a result past it. */
function spend(walk, count) {
  if (count > walk.remaining) {
    throw new RangeErrorType(`its result holds more than ${MAX_VALUES} values ` +
      `(${count} at ${walk.path.join('') || 'the top'}); a result is at most ${MAX_VALUES} values.`);
  }
  walk.remaining -= count;
}

module.exports = { toSendable, droppedByLast, THENABLE, MAX_VALUES };

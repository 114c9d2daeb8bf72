'use strict';
// Results go to the host as JSON-like data, where functions and symbols cannot go. Before a
// result is sent, `unsendableIn` looks for one (the common clean result costs one walk; the
// only allocation is each object's key list) and `withoutUnsendable` makes a copy without
// them (only when one was found): left out of objects, `null` in arrays, as JSON.stringify does.
//
// Objects with a `toJSON` method (Node, Event, Date; Map, Set and Error once the host gave
// them one) speak for themselves and are not entered, nor are typed arrays; only own
// enumerable keys are walked (JSON's). A value met again inside itself (a cycle) is not
// entered again.

/** The objects being walked, outermost first: reused from walk to walk. */
const ancestors = [];

const PLAIN = Object.prototype;


function isUnsendable(value) {
  const type = typeof value;
  return type === 'function' || type === 'symbol';
}

/**
 * Whether `object` is a plain object of primitive members (most results): then nothing is
 * to be dropped, and the walk's bookkeeping is skipped.
 */
function isFlat(object) {
  if (Object.getPrototypeOf(object) !== PLAIN) return false;
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i += 1) {
    const member = object[keys[i]];
    const type = typeof member;
    if (type === 'object' ? member !== null : type === 'function' || type === 'symbol') return false;
  }
  return true;
}

/** Lets the objects of the last walk go (its entries start at 0 and follow each other). */
function release() {
  for (let i = 0; i < ancestors.length && ancestors[i] !== undefined; i += 1) ancestors[i] = undefined;
}

/** Whether the walk does not enter `object` (it speaks for itself, or is a cycle). */
function isLeaf(object, depth) {
  if (typeof object.toJSON === 'function' || ArrayBuffer.isView(object)) return true;
  for (let i = 0; i < depth; i += 1) if (ancestors[i] === object) return true;
  ancestors[depth] = object;
  return false;
}

/** How a key is written in a path: `.name`, or `["odd key"]`. */
function step(key) {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/**
 * Where the first function or symbol in `value` is: `{ path, kind }` with a path such as
 * `.onTap` or `.list[2].format` (`''` for the value itself), or null when there is none.
 */
function unsendableIn(value) {
  if (typeof value !== 'object') return isUnsendable(value) ? { path: '', kind: typeof value } : null;
  if (value === null || isFlat(value)) return null;
  const found = find(value, 0);
  release();
  return found;
}

function find(object, depth) {
  if (isLeaf(object, depth)) return null;
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i += 1) {
      const member = object[i];
      const type = typeof member;
      if (type === 'object') {
        if (member === null) continue;
        const found = find(member, depth + 1);
        if (found !== null) return { path: `[${i}]${found.path}`, kind: found.kind };
      } else if (type === 'function' || type === 'symbol') {
        return { path: `[${i}]`, kind: type };
      }
    }
    return null;
  }
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const member = object[key];
    const type = typeof member;
    if (type === 'object') {
      if (member === null) continue;
      const found = find(member, depth + 1);
      if (found !== null) return { path: step(key) + found.path, kind: found.kind };
    } else if (type === 'function' || type === 'symbol') {
      return { path: step(key), kind: type };
    }
  }
  return null;
}

/** A copy of `value` without functions and symbols (`undefined` when it is one). */
function withoutUnsendable(value) {
  if (isUnsendable(value)) return undefined;
  if (value === null || typeof value !== 'object') return value;
  const result = copy(value, 0);
  release();
  return result;
}

function copy(object, depth) {
  if (isLeaf(object, depth)) return object;
  if (Array.isArray(object)) {
    return object.map((member) => (isUnsendable(member) ? null : copyMember(member, depth)));
  }
  const result = {};
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (!isUnsendable(member)) result[key] = copyMember(member, depth);
  }
  return result;
}

function copyMember(member, depth) {
  return member !== null && typeof member === 'object' ? copy(member, depth + 1) : member;
}

module.exports = { unsendableIn, withoutUnsendable };

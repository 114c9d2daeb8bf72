'use strict';
// A tiny assertion module for the JS tests (run by the Swift harness inside JavaScriptCore).
// Every failure throws an Error named 'AssertionError' whose message shows both sides.

class AssertionError extends Error {}
AssertionError.prototype.name = 'AssertionError';

function show(value) {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  try {
    return JSON.stringify(value);
  } catch (e) {
    return String(value);
  }
}

function fail(message, detail) {
  throw new AssertionError(message ? `${message}\n${detail}` : detail);
}

/** Fails unless `value` is truthy. */
function ok(value, message) {
  if (!value) fail(message, `expected a truthy value, got ${show(value)}`);
}

/** Fails unless `actual === expected` (NaN equals NaN). */
function equal(actual, expected, message) {
  if (actual === expected || (actual !== actual && expected !== expected)) return;
  fail(message, `expected ${show(expected)}\n     got ${show(actual)}`);
}

/** Where two values first differ (a key path such as `.a[2].b`), or null when equal. */
function difference(actual, expected, path) {
  if (actual === expected || (actual !== actual && expected !== expected)) return null;
  if (actual === null || expected === null || typeof actual !== 'object' || typeof expected !== 'object') {
    return path || '(top)';
  }
  if (Array.isArray(actual) !== Array.isArray(expected)) return path || '(top)';
  if (Array.isArray(actual)) {
    if (actual.length !== expected.length) return `${path}.length`;
    for (let i = 0; i < actual.length; i += 1) {
      const inner = difference(actual[i], expected[i], `${path}[${i}]`);
      if (inner !== null) return inner;
    }
    return null;
  }
  const keys = Object.keys(actual).filter((k) => actual[k] !== undefined).sort();
  const expectedKeys = Object.keys(expected).filter((k) => expected[k] !== undefined).sort();
  if (keys.join('\u0000') !== expectedKeys.join('\u0000')) {
    return `${path || '(top)'} keys ${show(keys)} vs ${show(expectedKeys)}`;
  }
  for (const key of keys) {
    const inner = difference(actual[key], expected[key], `${path}.${key}`);
    if (inner !== null) return inner;
  }
  return null;
}

/** Fails unless arrays and plain objects are equal element by element (undefined keys ignored). */
function deepEqual(actual, expected, message) {
  const at = difference(actual, expected, '');
  if (at === null) return;
  fail(message, `values differ at ${at}\nexpected ${show(expected)}\n     got ${show(actual)}`);
}

/**
 * Fails unless `fn` throws. `check` may be a RegExp tested against the message, a string
 * the message must equal, or a predicate on the error. Returns the error.
 */
function throws(fn, check, message) {
  let error;
  let threw = false;
  try {
    fn();
  } catch (e) {
    threw = true;
    error = e;
  }
  if (!threw) fail(message, 'expected the function to throw, it returned normally');
  const text = error && typeof error.message === 'string' ? error.message : String(error);
  if (check instanceof RegExp) {
    if (!check.test(text)) fail(message, `expected an error matching ${check}\n     got ${show(text)}`);
  } else if (typeof check === 'string') {
    if (text !== check) fail(message, `expected the error message ${show(check)}\n     got ${show(text)}`);
  } else if (typeof check === 'function') {
    if (!check(error)) fail(message, `the error did not pass the check: ${show(text)}`);
  }
  return error;
}

module.exports = { ok, equal, deepEqual, throws, AssertionError };

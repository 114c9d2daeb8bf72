'use strict';
// The analytics calls a task may return: track, screen and identify, the vocabulary of
// Segment's spec that PostHog, Amplitude and RudderStack share. Each returns a plain result
// tagged with its `type`, which the host maps to each destination's format:
//
//   match('home/products/cell/did-select', (node) => track('Product Viewed', { index: node.index }));
//   match('detail/ana-appeared', () => screen('Product Detail'));
//   match('login/done/touch-up-inside', (node) => identify(node.latestValue('user'), { plan: 'pro' }));
//
// They are globals of the realm (not only while a task file loads, as `match` is): a task
// calls them when its event comes. They only build values; a task that returns nothing sends
// nothing. A result that is not tagged maps by the rule in docs/destinations.md.

const { AnnaError } = require('./errors');

const GLOBAL = typeof globalThis !== 'undefined' ? globalThis : global;

/** `properties` as given, `{}` when undefined or null; throws unless it is a plain object. */
function fields(call, what, value) {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new AnnaError(`${call}() needs its ${what} as an object, not ${Array.isArray(value) ? 'an array' : typeof value}.`);
  }
  return value;
}

/** Throws unless `value` is a non-empty string. */
function named(call, what, value) {
  if (typeof value !== 'string' || value.length === 0) {
    const given = typeof value === 'string' ? '""' : value === null ? 'null' : typeof value;
    throw new AnnaError(`${call}() needs ${what} as a non-empty string, not ${given}.`);
  }
  return value;
}

/** A track call: that `event` happened, with `properties`. */
function track(event, properties) {
  return { type: 'track', event: named('track', 'the event name', event), properties: fields('track', 'properties', properties) };
}

/** A screen call: screen `name` was shown, with `properties`. */
function screen(name, properties) {
  return { type: 'screen', name: named('screen', 'the screen name', name), properties: fields('screen', 'properties', properties) };
}

/** An identify call: the user is `userId` from now on, with `traits`. */
function identify(userId, traits) {
  return { type: 'identify', userId: named('identify', 'the user ID', userId), traits: fields('identify', 'traits', traits) };
}

/**
 * Makes the three functions globals (not enumerable), unless the realm already has its own:
 * made when the core loads, before an engine records its realm for resets (a task that
 * replaces one changes only its own realm until the next reset).
 */
function installGlobals() {
  for (const [name, fn] of [['track', track], ['screen', screen], ['identify', identify]]) {
    if (Object.prototype.hasOwnProperty.call(GLOBAL, name)) continue;
    Object.defineProperty(GLOBAL, name, { value: fn, writable: true, enumerable: false, configurable: true });
  }
}
installGlobals();

module.exports = { track, screen, identify };

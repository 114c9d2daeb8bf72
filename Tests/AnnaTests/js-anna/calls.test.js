'use strict';
// track, screen and identify: the tagged results a task returns to name an analytics call.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');
const anna = require('anna');

/** A manager whose one task answers `tap` on root(1) with `fn(node)`. */
function tapping(fn) {
  const opened = scripted((match) => match('tap', fn));
  opened.manager.registerNode(1, null, 'root');
  return opened;
}

module.exports = {
  'track, screen and identify are globals a task calls when its event comes, tagged by type'() {
    const { manager, sent } = tapping((node) => [
      track('Tapped', { node: node.nodeName, nested: { list: [1, null, 'é'] } }),
      screen('Home'),
      identify('user-1', { plan: 'pro' }),
    ]);
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), [[
      { type: 'track', event: 'Tapped', properties: { node: 'root', nested: { list: [1, null, 'é'] } } },
      { type: 'screen', name: 'Home', properties: {} },
      { type: 'identify', userId: 'user-1', traits: { plan: 'pro' } },
    ]]);
  },

  'the same functions are exports of the core, and the globals are not enumerable'() {
    assert.equal(anna.track, globalThis.track);
    assert.equal(anna.screen, globalThis.screen);
    assert.equal(anna.identify, globalThis.identify);
    assert.ok(!Object.keys(globalThis).some((name) => ['track', 'screen', 'identify'].includes(name)));
  },

  'a name that is not a non-empty string, or fields that are not an object, fail the task with what to write'() {
    const cases = [
      [() => track(''), 'track() needs the event name as a non-empty string, not "".'],
      [() => track(3), 'track() needs the event name as a non-empty string, not number.'],
      [() => screen(null), 'screen() needs the screen name as a non-empty string, not null.'],
      [() => identify(undefined), 'identify() needs the user ID as a non-empty string, not undefined.'],
      [() => track('Tapped', [1]), 'track() needs its properties as an object, not an array.'],
      [() => identify('u', 'pro'), 'identify() needs its traits as an object, not string.'],
    ];
    for (const [fn, message] of cases) {
      const { manager } = tapping(fn);
      const error = assert.throws(() => manager.recordEvent('tap', null, 1));
      assert.equal(error.name, 'TaskError');
      assert.equal(error.errors[0].message, message);
    }
  },

  'a task that returns a plain result still sends it unchanged'() {
    const { manager, sent } = tapping(() => ({ event: 'cart_badge', count: 2 }));
    manager.recordEvent('tap', null, 1);
    assert.deepEqual(sent(), [{ event: 'cart_badge', count: 2 }]);
  },
};

'use strict';
// The realm walk the host's scripts share (Sources/Anna/Bridge/Scripts/realm-walk.js), on
// plain objects standing in for built-ins, and the engine's reset script on top of it. The
// harness provides the global `moduleBridge` ({ walk, builtIns, engineReset }).

const assert = require('./support/assert');

const { walk, builtIns, engineReset } = moduleBridge;

/** What restore() noted, as [name, restored] pairs. */
function restoreNoting(snapshot, exact) {
  const noted = [];
  walk.restore(snapshot, exact, (name, restored) => noted.push([name, restored]));
  return noted;
}

exports['a quick restore puts back replaced values and accessors, and keeps additions'] = () => {
  const getter = () => 1;
  const object = { value: 1 };
  Object.defineProperty(object, 'reader', { get: getter, configurable: true });
  const snapshot = walk.record([['Thing', object]]);
  assert.deepEqual(restoreNoting(snapshot, false), [], 'nothing changed');
  object.value = 2;
  Object.defineProperty(object, 'reader', { get: () => 2, configurable: true });
  object.added = true;
  assert.deepEqual(restoreNoting(snapshot, false), [['Thing.value', true], ['Thing.reader', true]]);
  assert.equal(object.value, 1);
  assert.equal(Object.getOwnPropertyDescriptor(object, 'reader').get, getter);
  assert.equal(object.added, true, 'an addition is not the quick check\'s business');
};

exports['an exact restore deletes additions, and puts back attributes and prototypes'] = () => {
  const prototype = {};
  const object = Object.create(prototype);
  object.value = 1;
  const key = Symbol('marked');
  const snapshot = walk.record([['Thing', object]]);
  object.added = 1;
  object[key] = 2;
  Object.defineProperty(object, 'value', { value: 1, writable: false, configurable: true });
  Object.setPrototypeOf(object, null);
  assert.deepEqual(restoreNoting(snapshot, true), [['Thing.added', true], ['Thing.marked', true], ['Thing.value', true]]);
  assert.deepEqual(Reflect.ownKeys(object), ['value']);
  assert.equal(Object.getOwnPropertyDescriptor(object, 'value').writable, true);
  assert.equal(Object.getPrototypeOf(object), prototype);
};

exports['what an exact restore cannot put back is noted as not restored'] = () => {
  const object = { value: 1 };
  const snapshot = walk.record([['Thing', object]]);
  Object.defineProperty(object, 'stuck', { value: 1 });
  Object.preventExtensions(object);
  assert.deepEqual(restoreNoting(snapshot, true), [['Thing.stuck', false], ['Thing (made non-extensible)', false]]);
};

exports['the walk works after a script replaced the built-ins it uses'] = () => {
  const object = { value: 1 };
  const snapshot = walk.record([['Thing', object]]);
  const saved = [Reflect.ownKeys, Reflect.defineProperty, Reflect.getOwnPropertyDescriptor];
  try {
    Reflect.ownKeys = () => [];
    Reflect.defineProperty = () => false;
    Reflect.getOwnPropertyDescriptor = () => undefined;
    object.value = 2;
    object.added = 1;
    restoreNoting(snapshot, true);
  } finally {
    [Reflect.ownKeys, Reflect.defineProperty, Reflect.getOwnPropertyDescriptor] = saved;
  }
  assert.deepEqual(object, { value: 1 });
};

exports['the reset script puts back a global and the module cache on the walk'] = () => {
  const cache = Object.create(null);
  cache['/core/index.js'] = { exports: { kept: true } };
  const restore = engineReset(walk, builtIns)(cache, '/core/');
  globalThis.leftBehind = 1;
  cache['/module/index.js'] = { exports: {} };
  const prototype = Object.getPrototypeOf(function* () {}().__proto__);
  prototype.extra = 1;
  assert.deepEqual(restore(), []);
  assert.equal('leftBehind' in globalThis, false);
  assert.equal(prototype.extra, undefined, 'an intrinsic reachable only through an instance');
  assert.deepEqual(Object.keys(cache), ['/core/index.js']);
};

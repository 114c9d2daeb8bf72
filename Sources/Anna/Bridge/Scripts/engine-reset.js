// The host's reset of an engine between sessions (AnalyticsEngine.reset() in Swift); not a
// part of the core's API, and no module requires it. The file evaluates to a function of the
// realm walk (realm-walk.js) and the captured built-ins (built-ins.js); called once per
// engine, before any module code runs, it returns snapshot(cache, core): that records the own properties of
// the global object, of every object and function a global holds, of their prototypes and
// of the intrinsics reachable only through instances (iterators, typed arrays, generators);
// and the modules of the module cache `cache` below the folder `core` (the bundled core,
// loaded already, or none), with their exports, what the exports hold and their prototypes.
// It returns restore(): that deletes what scripts added to all those objects since, puts
// back what they replaced or removed, empties the module cache but for the recorded core
// modules (so the module, its task files and what they require run again on their next
// require, while the core keeps its compiled, warm code: it holds no state of its own
// between calls), and returns the names of what it could not put back (a frozen
// prototype, a property made non-configurable): empty when all is as it was.
(function (walk, builtIns) {
  'use strict';
  const { ownKeys, describe, deleteProperty, getPrototypeOf, StringType, apply } = builtIns;
  const nameOf = walk.nameOf;
  const exec = RegExp.prototype.exec;

  /** The objects whose own properties are recorded, each with a name for messages. */
  function reachable(coreModules) {
    const found = new Map();
    const add = (object, name) => {
      if (object === null || (typeof object !== 'object' && typeof object !== 'function')) return;
      if (!found.has(object)) found.set(object, name);
    };
    // Object.prototype first: restoring the others reads descriptors, which inherit from it.
    add(Object.prototype, 'Object.prototype');
    add(globalThis, 'globalThis');
    const globals = ownKeys(globalThis);
    for (let index = 0; index < globals.length; index++) {
      const key = globals[index];
      const descriptor = describe(globalThis, key);
      if (descriptor === undefined || !('value' in descriptor)) continue;
      const value = descriptor.value;
      const name = StringType(typeof key === 'symbol' ? key.description : key);
      add(value, name);
      if (typeof value === 'function') {
        const prototype = describe(value, 'prototype');
        if (prototype !== undefined) add(prototype.value, name + '.prototype');
      }
      if (value !== null && (typeof value === 'object' || typeof value === 'function')) add(getPrototypeOf(value), name + '.[[Prototype]]');
    }
    const instances = [
      ['ArrayIterator', [][Symbol.iterator]()], ['MapIterator', new Map()[Symbol.iterator]()],
      ['SetIterator', new Set()[Symbol.iterator]()], ['StringIterator', ''[Symbol.iterator]()],
      ['RegExpStringIterator', ''.matchAll(/(?:)/g)],
      ['Generator', (function* () {})()], ['AsyncGenerator', (async function* () {})()],
      ['GeneratorFunction', function* () {}], ['AsyncFunction', async function () {}],
      ['AsyncGeneratorFunction', async function* () {}], ['TypedArray', new Int8Array(0)],
    ];
    for (let index = 0; index < instances.length; index++) {
      let object = getPrototypeOf(instances[index][1]);
      let depth = 0;
      while (object !== null && depth < 3) {
        add(object, '%' + instances[index][0] + '%' + (depth === 0 ? '' : '.[[Prototype]]'.repeat(depth)));
        const constructor = describe(object, 'constructor');
        if (constructor !== undefined) add(constructor.value, '%' + instances[index][0] + '%.constructor');
        object = getPrototypeOf(object);
        depth++;
      }
    }
    for (let index = 0; index < coreModules.length; index += 2) {
      const module = coreModules[index + 1];
      const name = 'module ' + coreModules[index];
      add(module, name);
      const exported = module.exports;
      add(exported, name + ' exports');
      if (exported === null || (typeof exported !== 'object' && typeof exported !== 'function')) continue;
      const keys = ownKeys(exported);
      for (let position = 0; position < keys.length; position++) {
        const descriptor = describe(exported, keys[position]);
        if (descriptor === undefined || !('value' in descriptor)) continue;
        const value = descriptor.value;
        add(value, nameOf(name, keys[position]));
        if (typeof value === 'function') {
          const prototype = describe(value, 'prototype');
          if (prototype !== undefined) add(prototype.value, nameOf(name, keys[position]) + '.prototype');
        }
      }
    }
    return found;
  }

  // restore() runs after scripts that may have replaced any built-in: it uses only what it
  // captured here, plain property reads and index writes.
  return function snapshot(cache, core) {
    const coreModules = []; // [path, module, ...]
    const cached = ownKeys(cache);
    for (let index = 0; index < cached.length; index++) {
      const path = cached[index];
      if (typeof core === 'string' && typeof path === 'string' && path.startsWith(core)) {
        coreModules[coreModules.length] = path;
        coreModules[coreModules.length] = cache[path];
      }
    }
    const named = [];
    for (const [object, name] of reachable(coreModules)) named[named.length] = [name, object];
    const recorded = walk.record(named);
    const restoreChanged = walk.restore;

    return function restore() {
      const failed = [];
      restoreChanged(recorded, true, (name, restored) => {
        if (!restored) failed[failed.length] = name;
      });
      // RegExp's legacy statics (RegExp.$1, lastMatch) hold the last match: a match of
      // nothing clears them.
      apply(exec, /(?:)/, ['']);
      const now = ownKeys(cache);
      for (let index = 0; index < now.length; index++) deleteProperty(cache, now[index]);
      for (let index = 0; index < coreModules.length; index += 2) cache[coreModules[index]] = coreModules[index + 1];
      return failed;
    };
  };
})

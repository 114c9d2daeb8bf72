// The built-ins the host's scripts use, captured once per engine when this file is evaluated,
// before any module code runs: a task script that replaces one later (JSON.stringify,
// Reflect.apply, ...) does not reach the host's scripts, which take them from here. Evaluates
// to a frozen object without a prototype; `setPrototypeOf` returns the object (as Object's
// does), `setPrototype` whether it could (as Reflect's does), and bareArray() makes an empty
// array without a prototype, which no replaced built-in reaches.
(function () {
  'use strict';
  const setPrototypeOf = Object.setPrototypeOf;
  const builtIns = {
    ownKeys: Reflect.ownKeys, describe: Reflect.getOwnPropertyDescriptor, define: Reflect.defineProperty,
    deleteProperty: Reflect.deleteProperty, getPrototypeOf: Reflect.getPrototypeOf, setPrototype: Reflect.setPrototypeOf,
    isExtensible: Reflect.isExtensible, apply: Reflect.apply, setPrototypeOf: setPrototypeOf, createObject: Object.create,
    freeze: Object.freeze, keysOf: Object.keys, hasOwn: Object.prototype.hasOwnProperty, stringify: JSON.stringify,
    parse: JSON.parse, isArray: Array.isArray, max: Math.max, now: Date.now, StringType: String, ErrorType: Error,
    Float64ArrayType: Float64Array,
    bareArray: function bareArray() { return setPrototypeOf([], null); },
  };
  setPrototypeOf(builtIns, null);
  return Object.freeze(builtIns);
})()

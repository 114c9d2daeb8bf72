// Errors of the bridge's JavaScript half (module-bridge.js) as they cross to the host: plain
// data. What a script threw is read here, each field in its own try, so a hostile value (a
// proxy, a throwing getter, an object without a prototype) is described instead of breaking
// the batch; the host never reads a script's object itself.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns a
// frozen object without a prototype: { plainError, describeThrown,
// setHidden }.
// - plainError(thrown): `thrown` as a plain Error (a primitive stays as it is; null makes an
//   empty one): its name, message, stack and place, and its other own fields that are JSON
//   data (at most MAX_ERROR_FIELDS);
// - describeThrown(thrown): its message, or what it reads as;
// - setHidden(object, key, value): a non-enumerable data property.
(function (builtIns) {
  'use strict';
  const { stringify, parse, apply: callWith, define, hasOwn, setPrototypeOf, keysOf, freeze, StringType } = builtIns;
  const ERROR_PROTOTYPE = Error.prototype;
  const ERROR_FIELDS = ['name', 'message', 'stack', 'sourceURL', 'line', 'column'];
  const MAX_ERROR_FIELDS = 64;

  function setHidden(object, key, value) {
    define(object, key, { value: value, writable: true, configurable: true, enumerable: false });
  }

  function read(object, key) {
    try {
      return { value: object[key] };
    } catch (unreadable) {
      return null;
    }
  }

  function describeThrown(thrown) {
    const message = thrown !== null && typeof thrown === 'object' ? read(thrown, 'message') : null;
    if (message !== null && typeof message.value === 'string') return message.value;
    try {
      return StringType(thrown);
    } catch (unreadable) {
      return `a thrown ${thrown === null ? 'null' : typeof thrown} whose message cannot be read`;
    }
  }

  /** `thrown` as a plain Error (a primitive stays as it is). */
  function plainError(thrown) {
    const type = typeof thrown;
    if (thrown !== null && type !== 'object' && type !== 'function') return thrown;
    const plain = setPrototypeOf({}, ERROR_PROTOTYPE);
    if (thrown === null) return plain;
    for (let index = 0; index < ERROR_FIELDS.length; index++) {
      const key = ERROR_FIELDS[index];
      const found = read(thrown, key);
      if (found === null || found.value === undefined) continue;
      const value = found.value;
      const kind = typeof value;
      if (kind === 'string' || kind === 'number') setHidden(plain, key, value);
    }
    setHidden(plain, 'message', describeThrown(thrown));
    let keys = [];
    try {
      keys = keysOf(thrown);
    } catch (unreadable) {
      keys = [];
    }
    for (let index = 0; index < keys.length && index < MAX_ERROR_FIELDS; index++) {
      const key = keys[index];
      if (callWith(hasOwn, plain, [key])) continue;
      const found = read(thrown, key);
      if (found === null) continue;
      try {
        const json = stringify(found.value);
        if (typeof json === 'string') define(plain, key, { value: parse(json), writable: true, configurable: true, enumerable: true });
      } catch (unwritable) {
        // A field that is not JSON data: the message and the place still say what happened.
      }
    }
    return plain;
  }

  const errors = setPrototypeOf({}, null);
  errors.plainError = plainError;
  errors.describeThrown = describeThrown;
  errors.setHidden = setHidden;
  return freeze(errors);
})

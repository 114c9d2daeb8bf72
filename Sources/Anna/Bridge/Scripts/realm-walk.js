// The realm walk the host's scripts share: the built-ins guard (built-ins-guard.js) and the
// engine's reset (engine-reset.js) record the own properties of objects of the realm and put
// back what scripts changed, with this one walk. The file evaluates to a function of the
// built-ins captured before any module code ran (built-ins.js), so the walk works after a
// script replaced any of them; it returns a frozen object without a prototype:
// - record(named): `named` is [[name, object], ...]; returns a snapshot of the objects' own
//   properties (their descriptors), prototypes and extensibility, as they are now;
// - restore(snapshot, exact, note): puts back what changed since, calling
//   note(name, restored, object, key) for each property it put back (restored: whether it
//   could). Not `exact` (the guard, every few batches): a data property is checked by reading
//   it (no allocation), an accessor by its getter and setter. `exact` (a reset): every
//   attribute is compared, the properties added since are deleted, and a changed prototype
//   or lost extensibility is put back (noted as `name.[[Prototype]]`, `name (made
//   non-extensible)`);
// - nameOf(owner, key).
(function (builtIns) {
  'use strict';
  const { ownKeys, describe, define, deleteProperty, getPrototypeOf, isExtensible, createObject, freeze } = builtIns;
  const { StringType, bareArray, setPrototype } = builtIns;

  /** `owner.key`, a symbol key by its description. */
  function nameOf(owner, key) {
    return owner + '.' + StringType(typeof key === 'symbol' ? key.description : key);
  }

  function sameDescriptor(a, b) {
    return a.configurable === b.configurable && a.enumerable === b.enumerable && a.writable === b.writable &&
      a.value === b.value && a.get === b.get && a.set === b.set;
  }

  function record(named) {
    // objects: [object, name, prototype, extensible, known keys, ...];
    // data and accessors: [object, key, descriptor, name, ...], in the order of `named`.
    const objects = bareArray();
    const data = bareArray();
    const accessors = bareArray();
    for (let index = 0; index < named.length; index++) {
      const name = named[index][0];
      const object = named[index][1];
      const keys = ownKeys(object);
      const known = createObject(null);
      for (let position = 0; position < keys.length; position++) {
        const key = keys[position];
        known[key] = true;
        const descriptor = describe(object, key);
        const list = 'value' in descriptor ? data : accessors;
        const at = list.length;
        list[at] = object;
        list[at + 1] = key;
        list[at + 2] = descriptor;
        list[at + 3] = nameOf(name, key);
      }
      const at = objects.length;
      objects[at] = object;
      objects[at + 1] = name;
      objects[at + 2] = getPrototypeOf(object);
      objects[at + 3] = isExtensible(object);
      objects[at + 4] = known;
    }
    return freeze({ objects: objects, data: data, accessors: accessors });
  }

  function restore(snapshot, exact, note) {
    const objects = snapshot.objects;
    if (exact) {
      for (let at = 0; at < objects.length; at += 5) {
        const object = objects[at];
        if (getPrototypeOf(object) !== objects[at + 2] && !setPrototype(object, objects[at + 2])) {
          note(objects[at + 1] + '.[[Prototype]]', false, object, undefined);
        }
        const known = objects[at + 4];
        const keys = ownKeys(object);
        for (let position = 0; position < keys.length; position++) {
          const key = keys[position];
          if (known[key] !== true) note(nameOf(objects[at + 1], key), deleteProperty(object, key), object, key);
        }
      }
    }
    const data = snapshot.data;
    for (let at = 0; at < data.length; at += 4) {
      const object = data[at];
      const key = data[at + 1];
      const descriptor = data[at + 2];
      let same;
      if (exact) {
        const now = describe(object, key);
        same = now !== undefined && sameDescriptor(now, descriptor);
      } else {
        try {
          same = object[key] === descriptor.value; // a property deleted reads another value
        } catch (unreadable) {
          same = false;
        }
      }
      if (!same) note(data[at + 3], define(object, key, descriptor), object, key);
    }
    const accessors = snapshot.accessors;
    for (let at = 0; at < accessors.length; at += 4) {
      const object = accessors[at];
      const key = accessors[at + 1];
      const descriptor = accessors[at + 2];
      const now = describe(object, key);
      const same = now !== undefined && (exact ? sameDescriptor(now, descriptor) : now.get === descriptor.get && now.set === descriptor.set);
      if (!same) note(accessors[at + 3], define(object, key, descriptor), object, key);
    }
    if (exact) {
      for (let at = 0; at < objects.length; at += 5) {
        if (objects[at + 3] && !isExtensible(objects[at])) note(objects[at + 1] + ' (made non-extensible)', false, objects[at], undefined);
      }
    }
  }

  const walk = createObject(null);
  walk.record = record;
  walk.restore = restore;
  walk.nameOf = nameOf;
  return freeze(walk);
})

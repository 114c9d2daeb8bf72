// The realm walk the host's scripts share: the built-ins guard (built-ins-guard.js) and the
// engine's reset (engine-reset.js) record the own properties of objects of the realm and put
// back what scripts changed, with this one walk. The file evaluates to a function of the
// built-ins captured before any module code ran (built-ins.js), so the walk works after a
// script replaced any of them; it returns a frozen object without a prototype:
// - record(named): `named` is [[name, object], ...]; returns a snapshot of the objects' own
//   properties (their descriptors), prototypes and extensibility, as they are now;
// - restore(snapshot, exact, note): puts back what changed since, calling
//   note(name, restored, object, key) for each property it put back (restored: whether it
//   could). Not `exact` (the guard, every few batches): the data properties are checked by
//   reading them (no allocation), then the accessors by their getter and setter. `exact` (a
//   reset), object by object: a changed prototype is put back, the properties added since
//   are deleted, every attribute of the others is compared, and lost extensibility is
//   noted (`name.[[Prototype]]`, `name (made non-extensible)`);
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

  // The objects, each as 7 entries: [object, name, prototype, extensible, known keys, keys,
  // descriptors]; their data properties and accessors (for the quick check), each as 4:
  // [object, key, descriptor, name].
  const OBJECT_SPAN = 7;

  function record(named) {
    const objects = bareArray();
    const data = bareArray();
    const accessors = bareArray();
    for (let index = 0; index < named.length; index++) {
      const name = named[index][0];
      const object = named[index][1];
      const keys = ownKeys(object);
      const known = createObject(null);
      const descriptors = bareArray();
      for (let position = 0; position < keys.length; position++) {
        const key = keys[position];
        known[key] = true;
        const descriptor = describe(object, key);
        descriptors[position] = descriptor;
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
      objects[at + 5] = keys;
      objects[at + 6] = descriptors;
    }
    return freeze({ objects: objects, data: data, accessors: accessors });
  }

  function restore(snapshot, exact, note) {
    if (exact) restoreExactly(snapshot.objects, note);
    else restoreQuickly(snapshot.data, snapshot.accessors, note);
  }

  // Object by object, in the order recorded: its prototype, the keys added, each recorded
  // property (in its key order), its extensibility.
  function restoreExactly(objects, note) {
    for (let at = 0; at < objects.length; at += OBJECT_SPAN) {
      const object = objects[at];
      const name = objects[at + 1];
      if (getPrototypeOf(object) !== objects[at + 2] && !setPrototype(object, objects[at + 2])) {
        note(name + '.[[Prototype]]', false, object, undefined);
      }
      const known = objects[at + 4];
      const now = ownKeys(object);
      for (let position = 0; position < now.length; position++) {
        const key = now[position];
        if (known[key] !== true) note(nameOf(name, key), deleteProperty(object, key), object, key);
      }
      const keys = objects[at + 5];
      const descriptors = objects[at + 6];
      for (let position = 0; position < keys.length; position++) {
        const key = keys[position];
        const descriptor = descriptors[position];
        const current = describe(object, key);
        if (current !== undefined && sameDescriptor(current, descriptor)) continue;
        note(nameOf(name, key), define(object, key, descriptor), object, key);
      }
      if (objects[at + 3] && !isExtensible(object)) note(name + ' (made non-extensible)', false, object, undefined);
    }
  }

  // The data properties by reading them, then the accessors by their getter and setter.
  function restoreQuickly(data, accessors, note) {
    for (let at = 0; at < data.length; at += 4) {
      const object = data[at];
      const key = data[at + 1];
      const descriptor = data[at + 2];
      let same;
      try {
        same = object[key] === descriptor.value; // a property deleted reads another value
      } catch (unreadable) {
        same = false;
      }
      if (!same) note(data[at + 3], define(object, key, descriptor), object, key);
    }
    for (let at = 0; at < accessors.length; at += 4) {
      const object = accessors[at];
      const key = accessors[at + 1];
      const descriptor = accessors[at + 2];
      const now = describe(object, key);
      if (now === undefined || now.get !== descriptor.get || now.set !== descriptor.set) {
        note(accessors[at + 3], define(object, key, descriptor), object, key);
      }
    }
  }

  const walk = createObject(null);
  walk.record = record;
  walk.restore = restore;
  walk.nameOf = nameOf;
  return freeze(walk);
})

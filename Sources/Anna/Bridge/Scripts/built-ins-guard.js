// The built-ins guard of the module bridge. Task scripts share the realm with the core and
// may replace the built-ins it relies on (JSON.stringify, Array.prototype.push,
// Function.prototype.call) or add ones every object would find (Object.prototype.toJSON).
// guardBuiltIns() takes a snapshot of the own properties of the common built-in objects, as
// they are when it is called (before any module code runs), and returns restore(when, quick):
// it puts back whatever was replaced or added since, and returns a BuiltInError naming it
// (`when` says when it happened) or null. A data property is checked by reading it (no
// allocation), an accessor by its descriptor: a full check costs a few microseconds; a quick
// one looks at the few built-ins reading results depends on and goes on to the full check
// only when one of them changed. The file evaluates to a function of the realm walk
// (realm-walk.js) and the captured built-ins (built-ins.js) that returns guardBuiltIns.
(function (walk, builtIns) {
  'use strict';
  const { record, restore: restoreChanged } = walk;
  const { ownKeys, describe, deleteProperty, bareArray, StringType, setPrototypeOf, define } = builtIns;
  const ERROR_PROTOTYPE = Error.prototype;
  const ARRAY_PROTOTYPE = Array.prototype;

  return function guardBuiltIns() {
    const BUILT_INS = [
      ['Object', Object], ['Object.prototype', Object.prototype], ['Array', Array], ['Array.prototype', Array.prototype],
      ['Function.prototype', Function.prototype], ['JSON', JSON], ['Reflect', Reflect], ['Map.prototype', Map.prototype],
      ['Set.prototype', Set.prototype], ['String', String], ['String.prototype', String.prototype],
      ['Number.prototype', Number.prototype], ['Error.prototype', Error.prototype], ['Promise', Promise],
      ['Promise.prototype', Promise.prototype], ['RegExp.prototype', RegExp.prototype], ['Symbol', Symbol],
      ['Math', Math], ['Date', Date], ['Date.prototype', Date.prototype],
    ];
    const snapshot = record(BUILT_INS);
    // Where an added `toJSON` would speak for every object or array, and an added index
    // (a getter or setter at '0', say) would be met by every array's reads and writes.
    // Other additions (helpers a module defines) are its own business and are kept.
    const WATCHED = [['Object.prototype', Object.prototype], ['Array.prototype', Array.prototype]];
    const isIndex = (key) => typeof key === 'string' && StringType(key >>> 0) === key && key !== '4294967295';

    /** Puts back every built-in a script replaced or added; returns their names. */
    function restoreAll() {
      let replaced = null;
      const note = (name, restored) => {
        if (replaced === null) replaced = bareArray();
        replaced[replaced.length] = restored ? name : name + ' (could not be put back)';
      };
      // Additions first: an index added to Array.prototype (itself an array) changed its
      // length, which the next loop puts back.
      for (let index = 0; index < WATCHED.length; index++) {
        const object = WATCHED[index][1];
        if (describe(object, 'toJSON') !== undefined) note(WATCHED[index][0] + '.toJSON', deleteProperty(object, 'toJSON'));
        const keys = ownKeys(object);
        for (let position = 0; position < keys.length; position++) {
          const key = keys[position];
          if (isIndex(key)) note(`${WATCHED[index][0]}[${key}]`, deleteProperty(object, key));
        }
      }
      restoreChanged(snapshot, false, (name, restored, object, key) => {
        // Array.prototype's length follows its indexes, reported above.
        if (object !== ARRAY_PROTOTYPE || key !== 'length') note(name, restored);
      });
      return replaced === null ? bareArray() : replaced;
    }

    /** The error that reports built-ins a script replaced (`names`, put back where they could be). */
    function builtInsError(when, names) {
      const error = setPrototypeOf({}, ERROR_PROTOTYPE);
      let listed = '';
      for (let index = 0; index < names.length && index < 3; index++) listed += (index === 0 ? '' : ', ') + names[index];
      if (names.length > 3) listed += ` and ${names.length - 3} more`;
      define(error, 'name', { value: 'BuiltInError', writable: true, configurable: true });
      const message = `A task script replaced built-ins ${when}: ${listed}. The core relies on them, so they ` +
        'were put back; leave the built-ins as they are (wrap or copy them instead).';
      define(error, 'message', { value: message, writable: true, configurable: true });
      return error;
    }

    // What reading results and errors depends on, checked cheaply every time: when one of
    // them changed, everything is checked.
    const SENTINELS = [
      [JSON, 'stringify'], [JSON, 'parse'], [Function.prototype, 'call'], [Function.prototype, 'apply'],
      [Array.prototype, 'push'], [Object, 'keys'], [Object, 'defineProperty'], [Reflect, 'apply'],
    ].map(([object, key]) => [object, key, object[key]]);

    function sentinelsHold() {
      for (let index = 0; index < SENTINELS.length; index++) {
        const sentinel = SENTINELS[index];
        if (sentinel[0][sentinel[1]] !== sentinel[2]) return false;
      }
      for (let index = 0; index < WATCHED.length; index++) {
        const object = WATCHED[index][1];
        if (describe(object, 'toJSON') !== undefined || describe(object, '0') !== undefined) return false;
      }
      return true;
    }

    // restore(when, quick): with `quick`, only when a sentinel changed.
    return function restore(when, quick) {
      if (quick === true && sentinelsHold()) return null;
      const replaced = restoreAll();
      return replaced.length === 0 ? null : builtInsError(when, replaced);
    };
  };
})

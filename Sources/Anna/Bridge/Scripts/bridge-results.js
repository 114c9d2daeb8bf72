// The results of the bridge's JavaScript half (module-bridge.js): what tasks send is kept
// until the host takes it all: the values as one JSON text, and each one's operation and
// meta number (bridge-metas.js) as numbers in a Float64Array, which cost the host nothing to
// read (written as JSON text, two small numbers per result took as long as the value). Values
// are written all at once; when that fails (a value JSON cannot write, a getter that throws),
// or the time limit stops it (a getter that loops), they are written one at a time, each timed
// as an operation of its own. A result that cannot be written is reported with its task and
// the others are kept. A stop ends the call: the host asks again, and the result being
// written then is reported and skipped.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns
// makeResults(current, mark, metas, errors, pushError): `current` is the
// bridge's record of what runs now (`operation`, `last`), `mark()` times what follows as an
// operation of its own, `errors` the plain errors (bridge-errors.js), and
// pushError(offset, plain) adds an error of an operation. It returns { receive, write, index }:
// - receive(result, meta): keeps a result of the operation running now (of the last one for
//   a promise job run after the batch);
// - write(): the values kept, [value, ...] as JSON text, and forgets them;
// - index(): the Float64Array of the values last written: their count, then operation and
//   meta number for each, in order (the host copies it before the next batch).
(function (builtIns) {
  'use strict';
  const { stringify, bareArray, Float64ArrayType } = builtIns;

  return function makeResults(current, mark, metas, errors, pushError) {
    const metaID = metas.id;
    const plainError = errors.plainError;
    const describeThrown = errors.describeThrown;
    const setHidden = errors.setHidden;
    const values = bareArray();
    let numbers = new Float64ArrayType(1 + 2 * 1024); // [count, operation, metaID, ...]
    let capacity = numbers.length; // kept here: a script can redefine a typed array's length getter
    const WRITE_ALL = 0;
    const TRIED_ALL = 1;
    let writing = WRITE_ALL;
    let next = 0; // the next result to write one at a time
    let kept = 0; // the results written one at a time so far (their numbers moved up to here)
    let inResult = false; // whether writing result `next` began (and did not end)
    let written = ''; // the results written one at a time, as JSON members

    function receive(result, meta) {
      const at = values.length;
      const operation = current.operation <= current.last ? current.operation : current.last;
      const id = metaID(meta);
      if (2 * at + 3 > capacity) grow(2 * at + 3);
      numbers[1 + 2 * at] = operation;
      numbers[2 + 2 * at] = id;
      values[at] = result;
    }

    /** A larger array holding the numbers so far (the built-in copy could be replaced). */
    function grow(length) {
      const larger = new Float64ArrayType(2 * length);
      for (let index = 0; index < capacity; index++) larger[index] = numbers[index];
      numbers = larger;
      capacity = 2 * length;
    }

    function write() {
      let text;
      if (writing === WRITE_ALL) {
        writing = TRIED_ALL;
        mark();
        try {
          text = stringify(values);
        } catch (unwritable) {
          text = undefined;
        }
      }
      if (typeof text === 'string') numbers[0] = values.length;
      else text = writeEach();
      writing = WRITE_ALL;
      values.length = 0; // its storage kept for the next batch
      return text;
    }

    function writeEach() {
      if (inResult) {
        inResult = false;
        resultFailed(next, 'the time limit stopped reading it');
        next += 1;
      }
      for (; next < values.length; next += 1) {
        mark();
        inResult = true;
        let json;
        try {
          json = stringify(values[next]);
        } catch (error) {
          inResult = false;
          resultFailed(next, describeThrown(error));
          continue;
        }
        inResult = false;
        written += (written === '' ? '' : ',') + (typeof json === 'string' ? json : 'null');
        numbers[1 + 2 * kept] = numbers[1 + 2 * next]; // kept <= next: nothing unread is overwritten
        numbers[2 + 2 * kept] = numbers[2 + 2 * next];
        kept += 1;
      }
      const text = '[' + written + ']';
      numbers[0] = kept;
      written = '';
      next = 0;
      kept = 0;
      return text;
    }

    /** Reports result `index` as not written: an error of its operation naming its task. */
    function resultFailed(index, reason) {
      const meta = metas.of(numbers[2 + 2 * index]);
      const error = plainError(null);
      const whose = meta === null ? 'a task' : `task '${meta[0]}' on node '${meta[1]}' for event '${meta[2]}'`;
      setHidden(error, 'name', 'ResultError');
      setHidden(error, 'message', `The result of ${whose} cannot be written as JSON (${reason}); it was dropped.`);
      pushError(numbers[1 + 2 * index], error);
    }

    return { receive: receive, write: write, index: function index() { return numbers; } };
  };
})

// The results of the bridge's JavaScript half (module-bridge.js): what tasks send is kept,
// with its operation and the number of its meta (bridge-metas.js), until the host takes it
// all as one JSON text. Results are written all at once; when that fails (a value JSON
// cannot write, a getter that throws), or the time limit stops it (a getter that loops),
// they are written one at a time, each timed as an operation of its own. A result that
// cannot be written is reported with its task and the others are kept. A stop ends the call:
// the host asks again, and the result being written then is reported and skipped.
//
// The file evaluates to a function of the captured built-ins (built-ins.js) that returns
// makeResults(current, mark, metas, errors, pushError): `current` is the
// bridge's record of what runs now (`operation`, `last`), `mark()` times what follows as an
// operation of its own, `errors` the plain errors (bridge-errors.js), and
// pushError(offset, plain) adds an error of an operation. It returns { receive, write }:
// - receive(result, meta): keeps a result of the operation running now (of the last one for
//   a promise job run after the batch);
// - write(): the results kept, [operation, metaID, value, ...] as JSON text, and forgets them.
(function (builtIns) {
  'use strict';
  const { stringify, bareArray } = builtIns;

  return function makeResults(current, mark, metas, errors, pushError) {
    const metaID = metas.id;
    const plainError = errors.plainError;
    const describeThrown = errors.describeThrown;
    const setHidden = errors.setHidden;
    const results = bareArray(); // [operation, metaID, value, ...]
    const WRITE_ALL = 0;
    const TRIED_ALL = 1;
    let writing = WRITE_ALL;
    let next = 0; // the next result to write one at a time
    let inResult = false; // whether writing result `next` began (and did not end)
    let written = ''; // the results written one at a time, as JSON members

    function receive(result, meta) {
      const at = results.length;
      results[at] = current.operation <= current.last ? current.operation : current.last;
      results[at + 1] = metaID(meta);
      results[at + 2] = result;
    }

    function write() {
      let text;
      if (writing === WRITE_ALL) {
        writing = TRIED_ALL;
        mark();
        try {
          text = stringify(results);
        } catch (unwritable) {
          text = undefined;
        }
      }
      if (typeof text !== 'string') text = writeEach();
      writing = WRITE_ALL;
      results.length = 0; // its storage kept for the next batch
      return text;
    }

    function writeEach() {
      if (inResult) {
        inResult = false;
        resultFailed(next, 'the time limit stopped reading it');
        next += 1;
      }
      for (; next * 3 < results.length; next += 1) {
        mark();
        inResult = true;
        let json;
        try {
          json = stringify(results[next * 3 + 2]);
        } catch (error) {
          inResult = false;
          resultFailed(next, describeThrown(error));
          continue;
        }
        inResult = false;
        written += (written === '' ? '' : ',') + results[next * 3] + ',' + results[next * 3 + 1] + ',' +
          (typeof json === 'string' ? json : 'null');
      }
      const text = '[' + written + ']';
      written = '';
      next = 0;
      return text;
    }

    /** Reports result `index` as not written: an error of its operation naming its task. */
    function resultFailed(index, reason) {
      const meta = metas.of(results[index * 3 + 1]);
      const error = plainError(null);
      const whose = meta === null ? 'a task' : `task '${meta[0]}' on node '${meta[1]}' for event '${meta[2]}'`;
      setHidden(error, 'name', 'ResultError');
      setHidden(error, 'message', `The result of ${whose} cannot be written as JSON (${reason}); it was dropped.`);
      pushError(results[index * 3], error);
    }

    return { receive: receive, write: write };
  };
})

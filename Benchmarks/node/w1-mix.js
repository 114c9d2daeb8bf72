// W1's tree and event mix on a core's manager, called directly as a host calls it: no
// stream, no parsing, no host path. Plain JavaScript, so that one driver serves both
// w1-original.js (the original core on Node) and anna-bench's `engine-only` line (the
// bundled core in the embedded JavaScriptCore).
//
// The same work as anna-bench's W1 (Benchmarks/AnnaBench/HostTree.swift, EventMix.swift):
// `__root__`, `app`, and per screen `screen<i>` > `list` > 20 `cell`s (index 0…19); W1's
// tasks; event k goes to cell k mod 1000 and is, by k mod 4, did-select, ana-appeared,
// ana-updated (key-path text, value 'v' + k mod 8), scroll {x: k}.
'use strict';

/**
 * W1 on a new manager of `Anna` (a core's exports) over the tasks in `taskFolder`.
 * @param {{ configured: Function }} Anna the core
 * @param {string} taskFolder absolute path of W1's task folder
 * @param {number} screens screens in the tree
 * @returns {{ record(from: number, count: number): { results: number, errors: number, firstError?: string } }}
 *   `record` sends events `from` up to `from + count` and says what they gave
 */
function prepare(Anna, taskFolder, screens) {
  let results = 0;
  const manager = Anna.configured({ task: taskFolder })(() => { results += 1; }, { debug: false, now: Date.now });

  // The tree, with plain numeric IDs (as `anna record` writes them).
  let nextID = 1;
  function register(parent, name, index) {
    const id = nextID++;
    manager.registerNode(id, parent, name, index, null, null);
    return id;
  }
  const root = register(null, '__root__', null);
  const app = register(root, 'app', null);
  const cells = [];
  for (let i = 0; i < screens; i++) {
    const screen = register(app, 'screen' + i, null);
    const list = register(screen, 'list', null);
    for (let index = 0; index < 20; index++) cells.push(register(list, 'cell', index));
  }
  const cellCount = Math.min(cells.length, 1000);
  const values = [0, 1, 2, 3, 4, 5, 6, 7].map((v) => 'v' + v);

  function record(from, count) {
    results = 0;
    let errors = 0;
    let firstError;
    for (let k = from; k < from + count; k++) {
      const id = cells[k % cellCount];
      try {
        switch (k & 3) {
          case 0: manager.recordEvent('did-select', {}, id); break;
          case 1: manager.recordEvent('ana-appeared', {}, id); break;
          case 2: manager.recordEvent('ana-updated', { 'key-path': 'text', value: values[k & 7] }, id); break;
          default: manager.recordEvent('scroll', { x: k }, id); break;
        }
      } catch (error) {
        errors += 1;
        if (firstError === undefined) firstError = `event ${k}: ${error && error.message}`;
      }
    }
    return { results, errors, firstError };
  }
  return { record };
}

/** The results `events` events from 0 give: one per did-select and one per ana-updated. */
function expectedResults(events) {
  const count = (remainder) => (events > remainder ? Math.floor((events - remainder + 3) / 4) : 0);
  return count(0) + count(2);
}

module.exports = { prepare, expectedResults };

'use strict';
// Opens test analytics modules from ../fixtures and collects what they send.

/** The global the `scripted` fixture's task files read their scripts from. */
const G = typeof globalThis !== 'undefined' ? globalThis : global;

/**
 * Creates a manager of fixture `name`; results go to `results` as { result, meta }.
 * @returns {{ manager, results, sent: () => any[] }}
 */
function open(name, config) {
  const Module = require('../fixtures/' + name);
  const results = [];
  const manager = new Module((result, meta) => { results.push({ result, meta }); }, config);
  return { manager, results, sent: () => results.map((r) => r.result) };
}

/**
 * Creates a manager of the `scripted` fixture: its task files call `scripts[key](match)`
 * when they load, with key 'index', 'Lib.Alpha' or 'Lib.Beta'. Loads are counted in
 * `loads()`.
 */
function scripted(scripts, config) {
  G.annaTestScripts = typeof scripts === 'function' ? { index: scripts } : scripts;
  G.annaTestLoads = {};
  const opened = open('scripted', config);
  opened.loads = () => Object.assign({}, G.annaTestLoads);
  return opened;
}

/** A clock for `config.now` that starts at `start` and moves by `step` per call. */
function clock(start, step) {
  let time = start;
  return () => {
    const now = time;
    time += step === undefined ? 1 : step;
    return now;
  };
}

module.exports = { open, scripted, clock };

'use strict';
// Loads task files from the task folder:
//
//   index.js            once, before the first node is registered
//   Lib/Alpha.js        once, when a node with namespace `Lib.Alpha` registers
//
// Each may be a TypeScript file instead (`index.ts`, `Lib/Alpha.ts`), which the host
// compiles; a name with both files is an error, not a choice.
//
// A missing file has no tasks. While a file runs, the global `match(pattern | [patterns], fn)`
// collects its tasks (outside loads the global `match` is `undefined`); they are added only when the whole file ran (a file that throws adds
// nothing). Its `require.cache` entry is deleted before each load, so every manager runs
// it. In debug mode every load re-requires the file and the tasks it added before are
// dropped; `reload` does the same for one file at any time.
//
// Every file tried is remembered with its status ('loaded', 'missing' or 'failed'), for
// coverage reports and for hosts that watch task files. Each task keeps where its `match`
// call is (file, line and column, from the stack at the call).

const { AnnaError, LoadError, PatternError, messageOf, stackOf } = require('./errors');
const { parsePattern } = require('./pattern');
const { firstFrame } = require('./stack-frames');
const { TaskRegistry } = require('./task-registry');

const GLOBAL = typeof globalThis !== 'undefined' ? globalThis : global;
const INDEX = 'index';

/**
 * The relative file (without `.js`) for a namespace: `Lib.Alpha` -> `Lib/Alpha`.
 * @throws {LoadError} for a namespace with an empty part (leading, trailing or double `.`)
 *   or a part containing `/`
 */
function namespaceFile(namespace) {
  const parts = namespace.split('.');
  let reason = null;
  if (parts[0].length === 0) reason = "it starts with '.'";
  else if (parts[parts.length - 1].length === 0) reason = "it ends with '.'";
  else if (parts.some((part) => part.length === 0)) reason = "it has an empty part ('..')";
  else if (parts.some((part) => part.indexOf('/') !== -1 || part.indexOf('\\') !== -1)) {
    reason = "a part contains '/'";
  }
  if (reason !== null) {
    throw new LoadError(`invalid namespace '${namespace}': ${reason}.`, { namespace });
  }
  return parts.join('/');
}

class TaskLoader {
  /**
   * @param {string} directory absolute path of the task folder (no trailing '/')
   * @param {boolean} debug re-require on every load
   * @param {{ add(tasks), drop(tasks), check(when) }} sink where loaded tasks go; `check` is
   *   called before a task file runs, as it calls `match` and when it has run (or failed), to
   *   put back the built-ins replaced `when` before the core's own code goes on
   */
  constructor(directory, debug, sink) {
    this._directory = directory;
    this._debug = debug;
    this._sink = sink;
    this._files = new Map(); // relative name -> its tasks ([] when missing or failed)
    // relative name -> { file, status, error }, in the order first tried
    this._tried = new Map();
    this._loading = null; // the file running now (left set when the host stops it)
  }

  /** The absolute path of the task file running now, or null. */
  loadingFile() { return this._loading; }

  /** Forgets the file a load the host stopped left as running (its `finally` never ran). */
  forgetLoading() { this._loading = null; }

  get fileCount() { return this._files.size; }

  /** The task folder (absolute, no trailing '/'). */
  get directory() { return this._directory; }

  /** The tasks loaded now, in load order. */
  tasks() {
    const all = [];
    for (const tasks of this._files.values()) for (const task of tasks) all.push(task);
    return all.sort((a, b) => a.sequence - b.sequence);
  }

  /**
   * Every task file tried, in the order first tried:
   * `{ file, status: 'loaded' | 'missing' | 'failed', tasks, error? }`.
   */
  triedFiles() {
    const files = [];
    for (const [relative, tried] of this._tried) {
      const entry = { file: tried.file, status: tried.status, tasks: this._files.get(relative).length };
      if (tried.error !== undefined) entry.error = tried.error;
      files.push(entry);
    }
    return files;
  }

  /** The status of `relative` ('loaded', 'missing', 'failed'), or undefined when never tried. */
  statusOf(relative) {
    const tried = this._tried.get(relative);
    return tried === undefined ? undefined : tried.status;
  }

  /**
   * The absolute path of the file for `relative` (`Lib/Alpha` -> `<directory>/Lib/Alpha.js`,
   * or `Lib/Alpha.ts` when that is the file there).
   */
  fileFor(relative) {
    const tried = this._tried.get(relative);
    if (tried !== undefined) return tried.file;
    const stem = this._directory + '/' + relative;
    return !exists(stem + '.js') && exists(stem + '.ts') ? stem + '.ts' : stem + '.js';
  }

  /** Whether `relative` has a task file (`.js` or `.ts`); resolving runs no code. */
  hasFile(relative) {
    const stem = this._directory + '/' + relative;
    return exists(stem + '.js') || exists(stem + '.ts');
  }

  /**
   * Loads a file tried before again now (its old tasks dropped, as a debug reload does).
   * `file` is its absolute path (as `triedFiles()` gives it, or as the folder names it).
   * @returns {boolean} whether the file was one tried before
   * @throws as `load` does
   */
  reload(file) {
    for (const [relative, tried] of this._tried) {
      const stem = this._directory + '/' + relative;
      if (tried.file === file || stem + '.js' === file || stem + '.ts' === file) {
        this.load(relative, true);
        return true;
      }
    }
    return false;
  }

  /**
   * The files whose change matters, as absolute paths: every file tried, and for a name
   * without a file both the `.js` and the `.ts` file it may get.
   */
  watchedFiles() {
    const files = [];
    for (const [relative, tried] of this._tried) {
      if (tried.status === 'missing') {
        const stem = this._directory + '/' + relative;
        files.push(stem + '.js', stem + '.ts');
      } else {
        files.push(tried.file);
      }
    }
    return files;
  }

  /** Whether loading `relative` would do anything now. */
  wants(relative) {
    return this._debug || !this._files.has(relative);
  }

  loadIndex() { this.load(INDEX); }

  /**
   * Loads `<directory>/<relative>.js` unless already loaded (always in debug mode).
   * A file that failed is not retried outside debug mode: its error is reported once.
   * @throws {LoadError} naming the file: for a misused `match` call (a malformed pattern, no
   *   function; see `notLoaded`) or for any other error the file throws
   */
  load(relative, force) {
    if (force !== true && !this.wants(relative)) return;
    const previous = this._files.get(relative);
    if (previous !== undefined && previous.length > 0) this._sink.drop(previous);
    this._files.set(relative, []);

    const stem = this._directory + '/' + relative;
    const tried = { file: stem + '.js', status: 'failed', error: undefined };
    this._tried.set(relative, tried); // a reload keeps the first try's place
    let resolved;
    try {
      resolved = resolveTaskFile(stem);
    } catch (error) {
      // Only "this very path does not exist" means "no tasks"; resolve runs no code.
      if (error && error.code === 'MODULE_NOT_FOUND') {
        tried.status = 'missing';
        return;
      }
      tried.error = messageOf(error);
      throw loadError(tried.file, error);
    }
    tried.file = resolved;
    // A task file runs for its `match` calls: always run it afresh (several managers may
    // share one runtime), and in debug mode on every load.
    delete require.cache[resolved];
    forgetUnfinishedModules();

    let tasks;
    this._sink.check(`before task file ${resolved} loaded`);
    this._loading = resolved;
    try {
      tasks = this._run(resolved, relative + resolved.slice(resolved.lastIndexOf('.')));
    } catch (error) {
      // The entry names the file: keep the file's own message.
      tried.error = error instanceof LoadError ? error.fileMessage : messageOf(error);
      throw error;
    } finally {
      this._loading = null;
      this._sink.check(`while task file ${resolved} loaded`);
    }
    tried.status = 'loaded';
    if (previous !== undefined) keepCounts(previous, tasks);
    this._files.set(relative, tasks);
    this._sink.add(tasks);
  }

  /** Requires a file with a global `match` that collects its tasks. */
  _run(resolved, shortName) {
    const tasks = [];
    let open = true;
    try {
      requireWithMatch(resolved, (patterns, fn) => {
        this._sink.check(`while task file ${resolved} loaded`);
        if (!open) {
          throw new AnnaError(`match() was called after '${resolved}' finished loading; ` +
            'call it while the task file runs.');
        }
        const call = matchCall(patterns, fn, resolved);
        // The call's place: the first frame in this file (the call itself, or the line that
        // ran the code that called match).
        const frame = firstFrame(new Error().stack, (url) => url === resolved);
        if (call.problems.length > 0) throw notLoaded(resolved, shortName, frame, call.problems[0]);
        const where = {
          file: resolved,
          relativeFile: shortName,
          line: frame === null ? null : frame.line,
          column: frame === null ? null : frame.column,
        };
        const group = {}; // identifies this match() call
        for (const pattern of call.parsed) tasks[tasks.length] = TaskRegistry.task(pattern, fn, where, group);
      });
    } catch (error) {
      // What `match` threw already names the file: let it through as it is.
      if (namesFile(error, resolved)) throw error;
      throw loadError(resolved, error);
    } finally {
      open = false;
    }
    return tasks;
  }
}

/**
 * A reloaded file's tasks keep the counts (and the warned flag) of the tasks they replace:
 * the same pattern at the same place. Coverage then counts across debug and watch reloads.
 */
function keepCounts(previous, tasks) {
  const key = (task) => `${task.line}:${task.column}:${task.text}`;
  const before = new Map(previous.map((task) => [key(task), task]));
  for (const task of tasks) {
    const old = before.get(key(task));
    if (old === undefined) continue;
    task.matches = old.matches;
    task.failures = old.failures;
    task.warned = old.warned;
  }
}

/**
 * One `match(patterns, fn)` call in `file`: its parsed patterns, and what makes it invalid
 * (PatternErrors and AnnaErrors, in the order a load reports them; a load stops at the first).
 */
function matchCall(patterns, fn, file) {
  const list = Array.isArray(patterns) ? patterns : [patterns];
  const parsed = [];
  const problems = [];
  if (list.length === 0) {
    problems.push(new PatternError(`match() in ${file} was given no pattern.`, { file, reason: 'match() was given no pattern' }));
  }
  for (const pattern of list) {
    try {
      parsed.push(parsePattern(pattern, file));
    } catch (error) {
      problems.push(error);
    }
  }
  if (typeof fn !== 'function') {
    const needs = `needs a function as its second argument, not ${fn === null ? 'null' : typeof fn}`;
    problems.push(new AnnaError(`match(${JSON.stringify(list[0])}, ...) in ${file} ${needs}.`, {
      file,
      reason: `match(${JSON.stringify(list[0])}, ...) ${needs}`,
    }));
  }
  return { parsed, problems };
}

/** Whether `file` exists (resolving runs no code). */
function exists(file) {
  try {
    require.resolve(file);
    return true;
  } catch (error) {
    return false;
  }
}

/**
 * The task file `<stem>.js`, else `<stem>.ts`, as resolved.
 * @throws the `.js` file's resolve error (`MODULE_NOT_FOUND` when neither exists), or a
 *   LoadError when both exist
 */
function resolveTaskFile(stem) {
  let resolved;
  try {
    resolved = require.resolve(stem + '.js');
  } catch (error) {
    if (!error || error.code !== 'MODULE_NOT_FOUND' || !exists(stem + '.ts')) throw error;
    return require.resolve(stem + '.ts');
  }
  if (exists(stem + '.ts')) {
    const name = stem.slice(stem.lastIndexOf('/') + 1);
    throw new LoadError(`both ${name}.js and ${name}.ts are task files for one name: keep one of them.`, { file: resolved });
  }
  return resolved;
}

/**
 * Drops the modules whose loading the host stopped (their code never finished), so that the
 * next require runs them again instead of handing out their partial exports. Called before a
 * task file loads, when no module is loading.
 */
function forgetUnfinishedModules() {
  for (const file of Object.keys(require.cache)) {
    const module = require.cache[file];
    if (module !== undefined && module.loaded === false) delete require.cache[file];
  }
}

/** Marks the global `match` functions of loads, to tell one a stopped load left behind. */
const LOADING_MATCH = Symbol('anna.loadingMatch');

/**
 * Gives the global object an own `match` property (`undefined`, not enumerable) unless it has
 * one. Task-file loads then only change its value: adding and deleting a property of the
 * global object for each load would turn the object's shape into an uncacheable dictionary,
 * and the optimized code of every function that reads a global (`Date`, `Math`, ...) would
 * fail its checks after each load (with one load per replayed session, about a tenth of the
 * run). Made when this file loads, before an engine records its realm for resets.
 */
function ensureGlobalMatch() {
  if (Object.prototype.hasOwnProperty.call(GLOBAL, 'match')) return;
  Object.defineProperty(GLOBAL, 'match', { value: undefined, writable: true, enumerable: false, configurable: true });
}
ensureGlobalMatch();

/** Requires `file` with a global `match` that calls `onMatch(patterns, fn)`, restored after. */
function requireWithMatch(file, onMatch) {
  ensureGlobalMatch();
  const current = GLOBAL.match;
  const left = current !== undefined && current !== null && current[LOADING_MATCH] === true;
  const saved = left ? undefined : current;
  GLOBAL.match = function match(patterns, fn) { onMatch(patterns, fn); };
  GLOBAL.match[LOADING_MATCH] = true;
  try {
    require(file);
  } finally {
    GLOBAL.match = saved;
  }
}

/**
 * Runs task file `file` (an absolute path) for `anna check`: every pattern its `match` calls
 * declare, and every problem (malformed patterns, missing functions, the file's own error),
 * each with the line it is on (or null); it does not stop at the first problem.
 * @returns {{ patterns: { line, pattern }[], problems: { line, message }[] }}
 */
function checkTaskFile(file) {
  const patterns = [];
  const problems = [];
  const lineOf = (stack) => {
    const frame = firstFrame(stack, (url) => url === file);
    return frame === null ? null : frame.line;
  };
  const report = (line, error) => problems.push({
    line,
    message: error && error.name ? `${error.name}: ${error.message}` : String(error),
  });
  try {
    requireWithMatch(file, (given, fn) => {
      const line = lineOf(new Error().stack);
      const call = matchCall(given, fn, file);
      for (const pattern of call.parsed) patterns.push({ line, pattern: pattern.text });
      for (const problem of call.problems) report(line, problem);
    });
  } catch (error) {
    report(error && error.sourceURL === file ? error.line : lineOf(error && error.stack), error);
  }
  return { patterns, problems };
}

/**
 * A LoadError naming `file` for what it threw. The thrown value stays reachable as `cause`
 * (not enumerable: the host reads the error's own fields, never the file's value), and
 * `fileMessage` is its message alone.
 */
/** Whether `error` is the core's own error about `file` (never throws). */
function namesFile(error, file) {
  try {
    return error instanceof AnnaError && error.file === file;
  } catch (unreadable) {
    return false;
  }
}

/**
 * The LoadError of a task file not loaded because of `problem`, a misused `match` call (a
 * malformed pattern, no function) at `frame` (or null): `task file index.js was not loaded:
 * malformed pattern 'a//tap' at index.js:2:1: it has an empty node name ('//').` It names
 * the file relative to the task folder (`shortName`, also `.taskFile`) and points at the call
 * (`sourceURL`, `line`, `column`); the problem stays reachable as `cause`.
 */
function notLoaded(file, shortName, frame, problem) {
  const at = frame === null ? shortName : `${shortName}:${frame.line}:${frame.column}`;
  const what = problem instanceof PatternError && problem.shown !== undefined
    ? `malformed pattern ${problem.shown} at ${at}: ${problem.reason}`
    : `${problem.reason !== undefined ? problem.reason : messageOf(problem)} (${at})`;
  const error = new LoadError(`task file ${shortName} was not loaded: ${what}.`, { file, taskFile: shortName });
  Object.defineProperty(error, 'cause', { value: problem, configurable: true, writable: true });
  Object.defineProperty(error, 'fileMessage', { value: `${what}.`, configurable: true, writable: true });
  if (frame !== null) {
    // As JavaScriptCore marks a thrown error's place: the host unshifts a first line's column
    // (a `.ts` file's places are the original ones, never shifted).
    const shift = frame.line === 1 && !file.endsWith('.ts') ? (GLOBAL[Symbol.for('anna.firstLineShift')] || 0) : 0;
    error.sourceURL = file;
    error.line = frame.line;
    error.column = frame.column + shift;
  }
  return error;
}

function loadError(file, error) {
  const message = messageOf(error);
  const wrapped = new LoadError(`Cannot load tasks from ${file}: ${message}`, { file });
  Object.defineProperty(wrapped, 'cause', { value: error, configurable: true, writable: true });
  Object.defineProperty(wrapped, 'fileMessage', { value: message, configurable: true, writable: true });
  const stack = stackOf(error);
  if (stack !== undefined) wrapped.stack = stack;
  // JavaScriptCore marks where an error (a syntax error too) points: keep pointing there.
  try {
    if (error !== null && typeof error === 'object' && typeof error.sourceURL === 'string') {
      wrapped.sourceURL = error.sourceURL;
      wrapped.line = error.line;
      wrapped.column = error.column;
    }
  } catch (unreadable) {
    // A thrown value whose place cannot be read: the message names the file.
  }
  return wrapped;
}

module.exports = { TaskLoader, namespaceFile, checkTaskFile };

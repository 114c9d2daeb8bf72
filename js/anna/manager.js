'use strict';
// The manager the host drives: the module protocol's object. It keeps the node tree, the
// task files and the task registry, and hands each event's tasks to its task runner
// (task-runner.js), which runs them and sends their results.

const { AnnaError, LoadError, NodeError } = require('./errors');
const { NodeTree } = require('./node-tree');
const { describeID } = require('./node-id');
const { TaskRegistry } = require('./task-registry');
const { TaskLoader, namespaceFile } = require('./task-loader');
const { TaskRunner } = require('./task-runner');
const { snapshot } = require('./snapshot');
const { isInside } = require('./stack-frames');

const NO_PROPERTIES = Object.freeze({});

class Manager {
  /**
   * @param {string} taskDirectory absolute path of the task folder
   * @param {(result, meta) => void} receive called once per result
   * @param {{ debug?: boolean, now?: () => number, report?: (problem: Error) => void,
   *   checkBuiltIns?: (when: string) => Error | null }} [config] `report` takes problems that are
   *   not an operation's failure (a ResultWarning, an async task's TaskError); `checkBuiltIns`
   *   puts back built-ins a task file replaced and returns the error saying so
   */
  constructor(taskDirectory, receive, config) {
    if (typeof receive !== 'function') {
      throw new AnnaError(`The manager needs a function to receive results, not ${typeof receive}.`);
    }
    const options = config === undefined || config === null ? {} : config;
    if (typeof options !== 'object') throw new AnnaError('The manager config must be an object.');
    if (options.now !== undefined && options.now !== null && typeof options.now !== 'function') {
      throw new AnnaError('config.now must be a function returning milliseconds since 1970.');
    }
    if (options.report !== undefined && options.report !== null && typeof options.report !== 'function') {
      throw new AnnaError('config.report must be a function taking a ResultWarning.');
    }
    this._clock = typeof options.now === 'function' ? options.now : Date.now;
    this._debug = options.debug === true;
    this._report = typeof options.report === 'function' ? options.report : null;
    this._namespaces = new Map(); // namespace -> relative task file, for coverage()
    this._tree = new NodeTree();
    this._tasks = new TaskRegistry();
    // Task files switched off by setTaskFileEnabled (absolute paths): their tasks stay loaded
    // (coverage lists them) but are out of the registry, so events never reach them.
    this._disabledFiles = new Set();
    // A host's check of the built-ins after each task file (see module-bridge.js).
    const checkBuiltIns = typeof options.checkBuiltIns === 'function' ? options.checkBuiltIns : null;
    this._loader = new TaskLoader(taskDirectory, this._debug, {
      add: (tasks) => this._tasks.add(this._disabledFiles.size === 0 ? tasks
        : tasks.filter((task) => !this._disabledFiles.has(task.file))),
      drop: (tasks) => this._tasks.drop(tasks, this._tree.sharedPaths()),
      check: (when) => {
        const replaced = checkBuiltIns === null ? null : checkBuiltIns(when);
        if (replaced !== null && this._report !== null) this._report(replaced);
      },
    });
    // A host's place of the operation running now (opaque), for async tasks' late reports.
    const position = typeof options.position === 'function' ? options.position : null;
    this._runner = new TaskRunner(receive, this._report, position, this._loader);
  }

  /** True while the core itself calls `then` on an async task's promise (a host that tracks
   * a task's promise jobs leaves those alone). */
  get coreThen() {
    return this._runner.coreThen;
  }

  /**
   * Registers a node. The task folder's `index.js` is loaded before the first node, and the
   * namespace's file (`Lib.Alpha` -> `Lib/Alpha.js`) when a node names it.
   * A task file that fails to load throws after the node was registered.
   * @throws {NodeError} for a bad ID or name, a duplicate ID, an unknown parent, a second root
   * @throws {LoadError} for an invalid namespace (node not registered) or a failing task file
   * @throws {PatternError} for a malformed pattern in a task file
   */
  registerNode(id, parentID, name, index, namespace, attributes) {
    const checked = this._tree.check(id, parentID, name, index, attributes);
    let relative = null;
    if (namespace !== null && namespace !== undefined && namespace !== '') {
      if (typeof namespace !== 'string') {
        throw new LoadError(`Cannot register node ${describeID(id)} named '${name}': invalid ` +
          `namespace ${describeID(namespace)}: a namespace is a string such as 'Lib.Alpha'.`);
      }
      relative = namespaceFileFor(namespace, id, name);
    }
    const createdAt = this._now();
    this._runner.clear();
    this._loader.forgetLoading();
    // The node is in the tree before any task file runs: a file that fails, or that the host
    // stops, fails alone, and the nodes below this one still register.
    this._tree.insert(checked, id, name, index, attributes, createdAt);
    if (relative !== null && !this._namespaces.has(namespace)) this._namespaces.set(namespace, relative);
    this._loader.loadIndex();
    if (relative !== null) this._loader.load(relative);
  }

  /**
   * Removes every node registered under `id` (for a number: all keyed IDs of that owner)
   * and their descendants. Unknown IDs are not an error.
   * @returns {number} how many nodes were removed
   */
  deregisterNodes(id) {
    return this._tree.remove(id);
  }

  /**
   * Records an event on a node and runs the matching tasks in load order, sending every
   * result other than `undefined` to `receive(result, { task, path, event })`.
   * @throws {NodeError} when the node is not registered
   * @throws {TaskError} after all tasks ran, when some threw
   */
  recordEvent(name, properties, nodeID) {
    if (typeof name !== 'string' || name.length === 0) {
      throw new AnnaError(`Cannot record event ${describeID(name)} on node ${describeID(nodeID)}: ` +
        'an event name is a non-empty string.');
    }
    const node = this._tree.find(nodeID);
    if (node === undefined) {
      throw new NodeError(`Cannot record event '${name}' on node ${describeID(nodeID)}: ` +
        'the node is not registered.');
    }
    let props = properties;
    if (props === null || props === undefined) props = NO_PROPERTIES;
    else if (typeof props !== 'object') {
      throw new AnnaError(`Cannot record event '${name}' on node ${describeID(nodeID)}: ` +
        'its properties must be an object.');
    }
    this._runner.clear();
    this._loader.forgetLoading();
    node._record(name, props, this._now());

    const { tasks, metas } = this._tasks.tasksFor(node, name);
    this._runner.run(node, tasks, metas);
  }

  /**
   * After the host's time limit stopped a task of the event being recorded, runs the tasks
   * after it (the stopped one counts as failed), as recordEvent would have.
   * @returns {boolean} whether a stopped task was found (false: nothing ran)
   * @throws {TaskError} like recordEvent, when some of them threw
   */
  resumeEvent() {
    return this._runner.resume();
  }

  /**
   * After the host's time limit stopped a promise job: the promise jobs queued after it are
   * dropped, so the async tasks still waiting never settle. Each is reported as its task's
   * failure (the first, whose job was stopped, the host names itself) and forgotten.
   * @returns {number} how many were reported
   */
  abandonPendingTasks() {
    return this._runner.abandonPending();
  }

  /**
   * The task whose function runs right now, or null: `{ task, file, line, column, path, event }`
   * (the pattern, where its `match` call is, the node path and the event). A host calls it
   * after its time limit stopped a call.
   */
  runningTask() {
    return this._runner.running();
  }

  /**
   * The oldest async task whose code after `await` has not run yet, or null (same fields as
   * runningTask, with `async: true`). A host calls it when its time limit stopped a call and
   * then a promise job queued before it: that job is this task's.
   */
  waitingTask() {
    return this._runner.waiting();
  }

  /**
   * What ran and what was loaded, as JSON-able data:
   * `{ taskFolder, tasks: [{ task, file, line, column, matches, failures }],
   *    files: [{ file, status, tasks, error? }], namespaces: [{ namespace, file, hasTaskFile }] }`.
   * `tasks` are the tasks loaded now in load order (`matches`: how often the function ran);
   * `files` every task file tried; `namespaces` every namespace a registered node had.
   */
  coverage() {
    const loader = this._loader;
    // A match() call with several patterns runs once per event, counted on the pattern that
    // accepted it: each of its patterns shows the call's counts.
    const byCall = new Map();
    for (const task of loader.tasks()) {
      const counts = byCall.get(task.group) || { matches: 0, failures: 0 };
      counts.matches += task.matches;
      counts.failures += task.failures;
      byCall.set(task.group, counts);
    }
    const tasks = loader.tasks().map((task) => ({
      task: task.text, file: task.file, line: task.line, column: task.column,
      matches: byCall.get(task.group).matches, failures: byCall.get(task.group).failures,
    }));
    const namespaces = [];
    for (const [namespace, relative] of this._namespaces) {
      const status = loader.statusOf(relative);
      namespaces.push({
        namespace,
        file: loader.fileFor(relative),
        hasTaskFile: status === undefined ? loader.hasFile(relative) : status !== 'missing',
      });
    }
    // Every module loaded from the task folder (task files and the helpers they required), so
    // that a helper does not count as a task file never loaded.
    const modules = Object.keys(require.cache).filter((file) => isInside(file, loader.directory));
    return { taskFolder: loader.directory, tasks, files: loader.triedFiles(), namespaces, modules };
  }

  /**
   * Runs a task file tried before again now: its old tasks are dropped and its new ones go
   * to the end of the load order, as a debug reload does.
   * @param {string} file the absolute path, as `taskFiles()` gives it
   * @returns {boolean} whether the file was one the core had tried (false: nothing done)
   * @throws {LoadError|PatternError} when the file fails, as a load does
   */
  reloadTaskFile(file) {
    return this._loader.reload(file);
  }

  /**
   * Switches a task file's tasks off (they no longer run; a reload keeps them off) or back on
   * (they go to the end of the load order, as a reloaded file's do).
   * @param {string} file the absolute path, as `taskFiles()` gives it
   * @returns {number} how many loaded tasks the file has (0 for a file not loaded)
   */
  setTaskFileEnabled(file, enabled) {
    if (typeof file !== 'string') throw new AnnaError('setTaskFileEnabled needs the task file\'s path.');
    const tasks = this._loader.tasks().filter((task) => task.file === file);
    if (enabled === false) {
      if (!this._disabledFiles.has(file)) this._tasks.drop(tasks, this._tree.sharedPaths());
      this._disabledFiles.add(file);
    } else if (this._disabledFiles.delete(file)) {
      this._tasks.add(tasks);
    }
    return tasks.length;
  }

  /** The task files switched off by setTaskFileEnabled, in the order they were. */
  disabledTaskFiles() {
    return Array.from(this._disabledFiles);
  }

  /** Turns debug mode (task files re-required on every load) on or off. */
  setDebug(debug) {
    this._debug = debug === true;
    this._loader._debug = this._debug;
  }

  /**
   * The absolute paths of the task files to watch, in the order tried: each file tried
   * (loaded or failed), and both names (`.js`, `.ts`) of a missing one.
   */
  taskFiles() {
    return this._loader.watchedFiles();
  }

  /** Writes the markup snapshot through `console.log`. */
  logSnapshot() {
    console.log(this.snapshot('markup'));
  }

  /** The snapshot as a string: 'markup' (default) or 'json'. */
  snapshot(format) {
    return snapshot(this._tree, this._tasks, format);
  }

  /** Sizes of the internal tables, to check that memory is released. */
  stats() {
    return {
      nodes: this._tree.size,
      owners: this._tree.ownerCount,
      paths: this._tree.pathCount,
      pathText: this._tree.pathTextLength,
      tasks: this._tasks.size,
      events: this._tasks.eventCount,
      files: this._loader.fileCount,
      cachedLists: this._tasks.listCount(this._tree.sharedPaths()),
      listsComputed: this._tasks.computedCount,
    };
  }

  _now() {
    const time = this._clock();
    if (typeof time !== 'number') {
      throw new AnnaError(`config.now() returned ${describeID(time)}, not a number of milliseconds.`);
    }
    return time;
  }
}

function namespaceFileFor(namespace, id, name) {
  try {
    return namespaceFile(namespace);
  } catch (error) {
    error.message = `Cannot register node ${describeID(id)} named '${name}': ${error.message}`;
    throw error;
  }
}

module.exports = { Manager };

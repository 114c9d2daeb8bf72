'use strict';
// The manager the host drives: the module protocol's object.

const { AnnaError, LoadError, NodeError, ResultWarning, messageOf, stackOf, taskFailure } = require('./errors');
const { NodeTree, describeID } = require('./node-tree');
const { TaskRegistry } = require('./task-registry');
const { TaskLoader, namespaceFile } = require('./task-loader');
const { snapshot } = require('./snapshot');
const { toSendable, droppedByLast, THENABLE } = require('./sendable');
const { firstFrame, place: placeOf, isInside } = require('./stack-frames');

const NO_PROPERTIES = Object.freeze({});
const apply = Reflect.apply;

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
    this._receive = receive;
    this._clock = typeof options.now === 'function' ? options.now : Date.now;
    this._debug = options.debug === true;
    this._report = typeof options.report === 'function' ? options.report : null;
    // A host's place of the operation running now (opaque), for async tasks' late reports.
    this._position = typeof options.position === 'function' ? options.position : null;
    // Set while the core itself calls `then` on an async task's promise (see _sendLater).
    this.coreThen = false;
    // The task whose function runs now and its meta (see runningTask()), else null.
    this._runningTask = null;
    this._runningList = []; // the tasks of the event being recorded, and their metas
    this._runningMetas = [];
    this._pending = []; // { task, meta } of async tasks whose promise has not settled
    this._runningNode = null; // the node of the event whose tasks run now
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
    this._runningTask = null;
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
    this._runningTask = null;
    this._loader.forgetLoading();
    node._record(name, props, this._now());

    const { tasks, metas } = this._tasks.tasksFor(node, name);
    this._runningList = tasks; // runningTask() finds the meta of the task by its place here
    this._runningMetas = metas;
    this._runningNode = node;
    this._runTasks(0);
  }

  /**
   * After the host's time limit stopped a task of the event being recorded, runs the tasks
   * after it (the stopped one counts as failed), as recordEvent would have.
   * @returns {boolean} whether a stopped task was found (false: nothing ran)
   * @throws {TaskError} like recordEvent, when some of them threw
   */
  resumeEvent() {
    const task = this._runningTask;
    if (task === null || this._runningNode === null) return false;
    task.failures += 1;
    this._runningTask = null;
    this._runTasks(this._runningList.indexOf(task) + 1);
    return true;
  }

  /** Runs the tasks of the event being recorded from `from` on. */
  _runTasks(from) {
    const tasks = this._runningList;
    const metas = this._runningMetas;
    const node = this._runningNode;
    let failures = null;
    for (let i = from; i < tasks.length; i += 1) {
      const task = tasks[i];
      const meta = metas[i];
      task.matches += 1;
      // Set while the task's function runs and its result is read (getters, proxies and
      // toJSON run then), and left set when the host's time limit stops it, so that
      // runningTask() names it and resumeEvent() goes on after it.
      this._runningTask = task;
      try {
        const result = task.fn(node);
        if (result !== undefined) {
          const type = typeof result;
          if (type === 'object' || type === 'function' || type === 'symbol' || type === 'bigint') this._send(result, task, meta);
          else this._receive(result, meta);
        }
      } catch (error) {
        task.failures += 1;
        if (failures === null) failures = [];
        failures[failures.length] = this._failure(task, meta, error);
      }
      this._runningTask = null;
    }
    this._runningNode = null;
    if (failures !== null) throw taskFailure(failures);
  }

  /**
   * Sends a task's result as plain data (see sendable.js). A promise's value is sent when it
   * settles, and its rejection reported as the task's failure (config.report).
   */
  _send(result, task, meta) {
    const sendable = toSendable(result);
    if (sendable === THENABLE) {
      this._sendLater(result, task, meta);
      return;
    }
    const dropped = droppedByLast();
    if (dropped !== null) this._warnDropped(dropped, task, meta);
    if (sendable !== undefined) this._receive(sendable, meta);
  }

  /** Sends what an async task's promise resolves to; reports what it rejects with. */
  _sendLater(promise, task, meta) {
    // Where it was queued (a host's [batch, operation], see config.position), to place what
    // its code after await does.
    const entry = { task, meta, queuedAt: this._position === null ? null : this._position() };
    this._pending.push(entry);
    const settled = (run) => (value) => {
      const at = this._pending.indexOf(entry);
      if (at !== -1) this._pending.splice(at, 1);
      const running = [this._runningTask, this._runningList, this._runningMetas];
      this._runningTask = task;
      this._runningList = [task];
      this._runningMetas = [meta];
      try {
        run(value);
      } catch (error) {
        this._reportLate(task, meta, error, entry.queuedAt);
      }
      [this._runningTask, this._runningList, this._runningMetas] = running;
    };
    const then = promise.then;
    // The core's own callbacks are not the task's promise jobs (a host that tracks those by
    // the running task leaves the core's `then` alone while this is set).
    this.coreThen = true;
    try {
      apply(then, promise, [
        settled((value) => {
          if (value !== undefined) this._send(value, task, meta);
        }),
        settled((error) => { this._reportLate(task, meta, error, entry.queuedAt); }),
      ]);
    } finally {
      this.coreThen = false;
    }
  }

  /**
   * After the host's time limit stopped a promise job: the promise jobs queued after it are
   * dropped, so the async tasks still waiting never settle. Each is reported as its task's
   * failure (the first, whose job was stopped, the host names itself) and forgotten.
   * @returns {number} how many were reported
   */
  abandonPendingTasks() {
    const abandoned = this._pending.slice(1);
    this._pending = [];
    for (const { task, meta, queuedAt } of abandoned) {
      this._reportLate(task, meta, new AnnaError('its code after await never ran: the time limit stopped a promise job ' +
        'queued before it, and the jobs queued after that one were dropped.'), queuedAt);
    }
    return abandoned.length;
  }

  /** Reports an async task's failure, counted with its runs, through config.report. */
  _reportLate(task, meta, error, queuedAt) {
    task.failures += 1;
    const failure = taskFailure([this._failure(task, meta, error)]);
    // Where the task was queued, for the host to place the report (not a field it shows).
    if (queuedAt !== undefined && queuedAt !== null) {
      Object.defineProperty(failure, 'queuedAt', { value: queuedAt, configurable: true, writable: true });
    }
    if (this._report !== null) this._report(failure);
    else throw failure;
  }

  /** The first time a task's result loses a function or symbol, config.report gets a ResultWarning. */
  _warnDropped(found, task, meta) {
    if (task.warned || this._report === null) return;
    task.warned = true;
    const where = this._describeTask(task);
    const at = found.path === '' ? '' : ` at ${found.path}`;
    this._report(new ResultWarning(`Task '${meta.task}' (${where}) returned a ${found.kind}${at}: ` +
      'functions and symbols cannot be sent; it was dropped.', {
      task: meta.task, path: meta.path, event: meta.event,
      // Not `line`/`column`: on an error object those are where the error was made.
      location: { file: task.file, line: task.line, column: task.column },
    }));
  }

  /**
   * The task whose function runs right now, or null: `{ task, file, line, column, path, event }`
   * (the pattern, where its `match` call is, the node path and the event). A host calls it
   * after its time limit stopped a call.
   */
  runningTask() {
    const task = this._runningTask;
    if (task !== null) {
      const meta = this._runningMetas[this._runningList.indexOf(task)];
      return { task: task.text, file: task.file, line: task.line, column: task.column, path: meta.path, event: meta.event };
    }
    const loading = this._loader.loadingFile();
    if (loading !== null) return { file: loading };
    // Code after an `await` runs apart from the task: the oldest async task not settled
    // (promise jobs run in the order they were queued).
    const pending = this._pending.length === 0 ? null : this._pending[0];
    if (pending === null) return null;
    const { task: waiting, meta, queuedAt } = pending;
    return {
      task: waiting.text, file: waiting.file, line: waiting.line, column: waiting.column,
      path: meta.path, event: meta.event, async: true, queuedAt,
    };
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
        hasTaskFile: status === undefined ? fileExists(loader.fileFor(relative)) : status !== 'missing',
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

  /** The absolute paths of the task files tried (loaded, missing or failed), in order. */
  taskFiles() {
    return this._loader.triedFiles().map((entry) => entry.file);
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

  /**
   * A failed task's TaskError entry: `{ task, path, event, file, line, column, message, stack }`
   * and, when known, where it threw: `errorFile`, `errorLine`, `errorColumn`.
   */
  _failure(task, meta, error) {
    const failure = {
      task: meta.task, path: meta.path, event: meta.event,
      file: task.file, line: task.line, column: task.column,
      message: messageOf(error), stack: stackOf(error),
    };
    let at = null;
    try {
      at = this._thrownAt(error);
    } catch (unreadable) {
      at = null; // a thrown value whose place cannot be read: the task's place stands
    }
    if (at !== null) {
      failure.errorFile = at.file;
      if (typeof at.line === 'number') failure.errorLine = at.line;
      if (typeof at.column === 'number') failure.errorColumn = at.column;
    }
    return failure;
  }

  /**
   * Where an error was thrown, as the task author wants it: the engine's place when it is in
   * the task folder, else the first stack frame there (an error the core threw for a
   * misused API, say), else the engine's place anywhere; null when unknown.
   */
  _thrownAt(error) {
    if (error === null || typeof error !== 'object') return null;
    const folder = this._loader.directory;
    const place = typeof error.sourceURL === 'string' ? placeOf(error.sourceURL, error.line, error.column) : null;
    if (place !== null && isInside(place.file, folder)) return place;
    const frame = firstFrame(error.stack, (file) => isInside(file, folder));
    if (frame !== null) return frame;
    // The core's own code (reading a result, say) is not where the author looks.
    return place !== null && !isInside(place.file, __dirname) ? place : null;
  }

  /** `task/index.js:3:1`: the task's place, relative to the task folder's parent. */
  _describeTask(task) {
    const folder = this._loader.directory;
    const parent = folder.slice(0, folder.lastIndexOf('/'));
    let text = parent.length > 0 && isInside(task.file, parent) ? task.file.slice(parent.length + 1) : task.file;
    if (task.line !== null) text += `:${task.line}`;
    if (task.column !== null) text += `:${task.column}`;
    return text;
  }

  _now() {
    const time = this._clock();
    if (typeof time !== 'number') {
      throw new AnnaError(`config.now() returned ${describeID(time)}, not a number of milliseconds.`);
    }
    return time;
  }
}

/** Whether `value` is a promise or promise-like (has a `then` method). */
function isThenable(value) {
  return typeof value.then === 'function';
}

/** Whether a file exists (resolve runs no code). */
function fileExists(file) {
  try {
    require.resolve(file);
    return true;
  } catch (error) {
    return false;
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

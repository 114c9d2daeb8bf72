'use strict';
// The manager the host drives: the module protocol's object.

const { AnnaError, LoadError, NodeError, messageOf, stackOf, taskFailure } = require('./errors');
const { NodeTree, describeID } = require('./node-tree');
const { TaskRegistry } = require('./task-registry');
const { TaskLoader, namespaceFile } = require('./task-loader');
const { snapshot } = require('./snapshot');

const NO_PROPERTIES = Object.freeze({});

class Manager {
  /**
   * @param {string} taskDirectory absolute path of the task folder
   * @param {(result, meta) => void} receive called once per result
   * @param {{ debug?: boolean, now?: () => number }} [config]
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
    this._receive = receive;
    this._clock = typeof options.now === 'function' ? options.now : Date.now;
    this._debug = options.debug === true;
    this._tree = new NodeTree();
    this._tasks = new TaskRegistry();
    this._loader = new TaskLoader(taskDirectory, this._debug, {
      add: (tasks) => this._tasks.add(tasks),
      drop: (tasks) => this._tasks.drop(tasks, this._tree.sharedPaths()),
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
    let failure = null;
    try {
      this._loader.loadIndex();
    } catch (error) {
      failure = error;
    }
    this._tree.insert(checked, id, name, index, attributes, createdAt);
    if (failure !== null) throw failure;
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
    node._record(name, props, this._now());

    const { tasks, metas } = this._tasks.tasksFor(node, name);
    let failures = null;
    for (let i = 0; i < tasks.length; i += 1) {
      const task = tasks[i];
      const fn = task.fn;
      let result;
      try {
        result = fn(node);
      } catch (error) {
        if (failures === null) failures = [];
        const failure = { file: task.file, message: messageOf(error), stack: stackOf(error) };
        failures.push(Object.assign({}, metas[i], failure)); // task, path, event first
        continue;
      }
      if (result !== undefined) {
        this._receive(result, metas[i]);
      }
    }
    if (failures !== null) throw taskFailure(failures);
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

'use strict';
// The loaded tasks, indexed so that an event costs O(matching tasks):
//
//   event name -> bucket { general: [task], byName: Map(last step -> [task]), byPath: Map(path -> [task]) }
//
// `byName` holds tasks whose last step is a name; `general` those whose last step is `*`
// or that have no steps. A node's candidates for an event are byName(node name) + general,
// merged in load order and filtered by the pattern. Matching depends only on the names
// along the node's path (names never hold a '/', so the path string tells them), so the
// result is cached per path in the bucket (`byPath`), shared by every node with that path
// (a thousand cells of one list cost one computation), and dropped whenever the bucket's
// tasks change. A node's path never changes after it is registered. Arrays handed out are
// never mutated.

const { acceptsNode } = require('./pattern');

const NONE = Object.freeze([]);
const PATH_LISTS_LIMIT = 100000; // per event; past it the cache starts over

class TaskRegistry {
  constructor() {
    this._buckets = new Map();
    this._sequence = 0; // load order
    this._count = 0;
    this._computed = 0; // lists computed for (node, event) pairs: cache misses
  }

  get size() { return this._count; }
  get eventCount() { return this._buckets.size; }
  get computedCount() { return this._computed; }

  /** Makes a task; `pattern` is a parsed pattern, `file` names where it was loaded from. */
  static task(pattern, fn, file, group) {
    return { sequence: 0, text: pattern.text, pattern, fn, file, group };
  }

  /** Adds tasks (in their order) after every task already loaded. */
  add(tasks) {
    for (const task of tasks) {
      this._sequence += 1;
      task.sequence = this._sequence;
      const event = task.pattern.event;
      let bucket = this._buckets.get(event);
      if (bucket === undefined) {
        bucket = { general: [], byName: new Map(), byPath: new Map() };
        this._buckets.set(event, bucket);
      }
      const steps = task.pattern.steps;
      const last = steps.length === 0 ? '*' : steps[steps.length - 1];
      if (last === '*') {
        bucket.general.push(task);
      } else {
        const list = bucket.byName.get(last);
        if (list === undefined) bucket.byName.set(last, [task]);
        else list.push(task);
      }
      bucket.byPath = new Map();
      this._count += 1;
    }
  }

  /** Removes tasks added before; an event left with none loses its bucket. */
  drop(tasks) {
    if (tasks.length === 0) return;
    const dropped = new Set(tasks);
    const keep = (task) => !dropped.has(task);
    const events = new Set(tasks.map((task) => task.pattern.event));
    for (const event of events) {
      const bucket = this._buckets.get(event);
      if (bucket === undefined) continue;
      bucket.general = bucket.general.filter(keep);
      for (const [name, list] of Array.from(bucket.byName)) {
        const kept = list.filter(keep);
        if (kept.length === 0) bucket.byName.delete(name);
        else bucket.byName.set(name, kept);
      }
      bucket.byPath = new Map(); // no list keeps a dropped task alive
      if (bucket.general.length === 0 && bucket.byName.size === 0) this._buckets.delete(event);
    }
    this._count -= dropped.size;
  }

  /** How many task lists are cached per path, over all events. */
  get pathListCount() {
    let count = 0;
    for (const bucket of this._buckets.values()) count += bucket.byPath.size;
    return count;
  }

  /** Forgets the lists cached per path (when the tree is empty, none is needed). */
  forgetPathLists() {
    for (const bucket of this._buckets.values()) bucket.byPath = new Map();
  }

  /** The tasks for `event` on `node`, in load order. Hot path: cached per path and event. */
  tasksFor(node, event) {
    const bucket = this._buckets.get(event);
    if (bucket === undefined) return NONE;
    let tasks = bucket.byPath.get(node._path);
    if (tasks === undefined) {
      this._computed += 1;
      tasks = this._collect(node, bucket);
      if (bucket.byPath.size >= PATH_LISTS_LIMIT) bucket.byPath = new Map();
      bucket.byPath.set(node._path, tasks);
    }
    return tasks;
  }

  _collect(node, bucket) {
    const general = bucket.general;
    // The root's name is in no path, so only patterns without a named last step reach it.
    const named = node._depth === 0 ? NONE : bucket.byName.get(node._name) || NONE;
    let matched = null;
    let i = 0;
    let j = 0;
    while (i < named.length || j < general.length) {
      let task;
      if (j >= general.length || (i < named.length && named[i].sequence < general[j].sequence)) {
        task = named[i];
        i += 1;
      } else {
        task = general[j];
        j += 1;
      }
      // One match() call with several patterns runs once per event: its first accepting
      // pattern. A call's tasks have consecutive sequence numbers, so they meet in a row here.
      const sameCallMatched = matched !== null && matched[matched.length - 1].group === task.group;
      if (!sameCallMatched && acceptsNode(task.pattern, node)) {
        if (matched === null) matched = [];
        matched.push(task);
      }
    }
    return matched === null ? NONE : matched;
  }

  /**
   * What the snapshot shows for a node: the events that have tasks for it (`branches`)
   * and those tasks in load order. Not cached (a snapshot must not grow the caches).
   */
  digest(node) {
    const branches = [];
    let tasks = [];
    for (const [event, bucket] of this._buckets) {
      const matched = this._collect(node, bucket);
      if (matched.length === 0) continue;
      branches.push(event);
      tasks = tasks.concat(matched);
    }
    tasks.sort((a, b) => a.sequence - b.sequence);
    return { branches, tasks };
  }
}

module.exports = { TaskRegistry };

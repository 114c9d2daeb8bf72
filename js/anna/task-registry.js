'use strict';
// The loaded tasks, indexed so that an event costs O(matching tasks):
//
//   event name -> bucket { slot, stamp, general: [task], byName: Map(last step -> [task]) }
//
// `byName` holds tasks whose last step is a name; `general` those whose last step is `*`
// or that have no steps. A node's candidates for an event are byName(node name) + general,
// merged in load order and filtered by the pattern. Matching depends only on the names
// along the node's path (names never hold a '/', so the path string tells them), so the
// result is cached on the node's SharedPath at the bucket's slot, shared by every node with
// that path (a thousand cells of one list cost one computation), and stale once the
// bucket's tasks change (each change gives the bucket a new stamp). A node's path never
// changes after it is registered. Arrays handed out are never mutated.
//
// The cache holds the matched tasks with their metas ({ task, path, event }, frozen): the
// same for every result of a task on one path, so no result allocates one.

const { acceptsNode } = require('./pattern');

const NONE = Object.freeze([]);

/** The tasks matching one path and event, in load order, and the meta of each one's results. */
class MatchedTasks {
  constructor(tasks, path, event) {
    this.tasks = tasks;
    this.metas = tasks === NONE ? NONE
      : Object.freeze(tasks.map((task) => Object.freeze({ task: task.text, path, event })));
    Object.freeze(this);
  }
}

const NO_MATCHES = new MatchedTasks(NONE, '', '');

class TaskRegistry {
  constructor() {
    this._buckets = new Map();
    this._freeSlots = []; // slots of removed buckets, for the next new ones
    this._stamp = 0; // the last stamp given to a bucket
    this._sequence = 0; // load order
    this._count = 0;
    this._computed = 0; // lists computed for (path, event) pairs: cache misses
  }

  get size() { return this._count; }
  get eventCount() { return this._buckets.size; }
  get computedCount() { return this._computed; }

  /**
   * Makes a task; `pattern` is a parsed pattern, `where` is where its `match` call is:
   * `{ file, relativeFile, line, column }` (absolute file, file relative to the task folder,
   * 1-based line and column or null). `matches` and `failures` count its runs.
   */
  static task(pattern, fn, where, group) {
    return {
      sequence: 0, text: pattern.text, pattern, fn, group,
      file: where.file, relativeFile: where.relativeFile, line: where.line, column: where.column,
      matches: 0, failures: 0, warned: false,
    };
  }

  /** Adds tasks (in their order) after every task already loaded. */
  add(tasks) {
    for (const task of tasks) {
      this._sequence += 1;
      task.sequence = this._sequence;
      const event = task.pattern.event;
      let bucket = this._buckets.get(event);
      if (bucket === undefined) {
        const slot = this._freeSlots.length > 0 ? this._freeSlots.pop() : this._buckets.size;
        bucket = { slot, stamp: 0, general: [], byName: new Map() };
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
      bucket.stamp = ++this._stamp;
      this._count += 1;
    }
  }

  /**
   * Removes tasks added before; an event left with none loses its bucket. The lists cached
   * for their events on `sharedPaths` are stale (new stamps) and are cleared, so none keeps
   * a dropped task alive.
   */
  drop(tasks, sharedPaths) {
    if (tasks.length === 0) return;
    const dropped = new Set(tasks);
    const keep = (task) => !dropped.has(task);
    const slots = [];
    for (const event of new Set(tasks.map((task) => task.pattern.event))) {
      const bucket = this._buckets.get(event);
      if (bucket === undefined) continue;
      let removed = bucket.general.length;
      bucket.general = bucket.general.filter(keep);
      removed -= bucket.general.length;
      for (const [name, list] of Array.from(bucket.byName)) {
        const kept = list.filter(keep);
        removed += list.length - kept.length;
        if (kept.length === 0) bucket.byName.delete(name);
        else bucket.byName.set(name, kept);
      }
      this._count -= removed;
      bucket.stamp = ++this._stamp;
      slots.push(bucket.slot);
      if (bucket.general.length === 0 && bucket.byName.size === 0) {
        this._buckets.delete(event);
        this._freeSlots.push(bucket.slot);
      }
    }
    for (const shared of sharedPaths) {
      const lists = shared.taskLists;
      for (const slot of slots) {
        if (2 * slot + 1 < lists.length) lists[2 * slot] = lists[2 * slot + 1] = undefined;
      }
    }
  }

  /** How many task lists `sharedPaths` hold (current or stale). */
  listCount(sharedPaths) {
    let count = 0;
    for (const shared of sharedPaths) {
      for (let at = 1; at < shared.taskLists.length; at += 2) {
        if (shared.taskLists[at] !== undefined) count += 1;
      }
    }
    return count;
  }

  /**
   * The tasks for `event` on `node`, in load order, with their metas (a MatchedTasks).
   * Hot path: cached per path and event.
   */
  tasksFor(node, event) {
    const bucket = this._buckets.get(event);
    if (bucket === undefined) return NO_MATCHES;
    const shared = node._shared;
    const lists = shared.taskLists;
    const at = 2 * bucket.slot;
    if (lists[at] === bucket.stamp) return lists[at + 1];
    this._computed += 1;
    const tasks = this._collect(node, bucket);
    const matched = tasks === NONE ? NO_MATCHES : new MatchedTasks(tasks, shared.path, event);
    while (lists.length < at) lists.push(undefined); // no holes
    lists[at] = bucket.stamp;
    lists[at + 1] = matched;
    return matched;
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

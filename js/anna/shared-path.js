'use strict';
// What the nodes on one focus path share. A thousand cells of a list have one path: one
// string (so looking tasks and metas up by path finds the very key) and one set of task
// lists, found from the node without a hash lookup (a table of paths is large once nodes
// are many, and each of its lookups a cache miss).

class SharedPath {
  constructor(path) {
    this.path = path;
    this.count = 0; // nodes holding it
    // Filled by the task registry: per event bucket, at 2 * its slot the bucket's stamp when
    // the tasks were collected (a list with an old stamp is stale), at 2 * slot + 1 the tasks
    // for this path with their results' metas (a MatchedTasks). One array: an event reads one
    // object here.
    this.taskLists = [];
  }
}

module.exports = { SharedPath };

'use strict';
// What the nodes on one focus path share. A thousand cells of a list have one path: one
// set of task lists, found from the node without a hash lookup (a table of paths is large
// once nodes are many, and each of its lookups a cache miss), and one path string.
//
// The paths form a tree of their own: a path is its parent path and one name, found from
// the parent by that name. Nothing here grows with depth: the path string is made when
// asked for and kept only while short (KEPT_LENGTH), so a chain of a hundred thousand
// nested nodes does not hold a hundred thousand ever longer strings; a deeper path is made
// again each time, in time linear in its depth, as its text is.

/** Paths up to this many characters are kept once made (ordinary trees stay well below). */
const KEPT_LENGTH = 1024;

class SharedPath {
  /** The path of `parent` (null for the root's, whose path is '') followed by `name`. */
  constructor(parent, name) {
    this.parent = parent;
    this.name = name;
    this.count = 0; // nodes holding it
    // Filled by the task registry: per event bucket, at 2 * its slot the bucket's stamp when
    // the tasks were collected (a list with an old stamp is stale), at 2 * slot + 1 the tasks
    // for this path with their results' metas (a MatchedTasks). One array: an event reads one
    // object here.
    this.taskLists = [];
    // The paths one name longer: null, the one SharedPath (most paths have one), or a Map by name.
    this._children = null;
    this._path = parent === null ? '' : null; // the string, once made and when short
  }

  /** `/master/table/cell`; the root's is ''. */
  get path() {
    if (this._path !== null) return this._path;
    const names = [];
    let at = this;
    while (at._path === null) {
      names.push(at.name);
      at = at.parent;
    }
    names.push(at._path); // the nearest path kept, '' at the root
    const text = names.reverse().join('/'); // one flat string, however deep
    if (text.length <= KEPT_LENGTH) this._path = text;
    return text;
  }

  /**
   * Characters of path text held for this path (for stats): the kept string, and the path of
   * each cached task list's metas when it is another string (a long path is made per list).
   */
  get heldLength() {
    let length = this._path === null ? 0 : this._path.length;
    for (let at = 1; at < this.taskLists.length; at += 2) {
      const metas = this.taskLists[at] === undefined ? [] : this.taskLists[at].metas;
      if (metas.length > 0 && metas[0].path !== this._path) length += metas[0].path.length;
    }
    return length;
  }

  /** The path one name longer, or undefined. */
  child(name) {
    const children = this._children;
    if (children === null) return undefined;
    if (children instanceof SharedPath) return children.name === name ? children : undefined;
    return children.get(name);
  }

  /** The paths one name longer (for walks over every path). */
  children() {
    const children = this._children;
    if (children === null) return [];
    return children instanceof SharedPath ? [children] : children.values();
  }

  /** Makes and links the path one name longer (`child(name)` is undefined). */
  addChild(name) {
    const made = new SharedPath(this, name);
    const children = this._children;
    if (children === null) this._children = made;
    else if (children instanceof SharedPath) this._children = new Map([[children.name, children], [name, made]]);
    else children.set(name, made);
    return made;
  }

  /** Unlinks this path from its parent, once its last node is gone. */
  detach() {
    const parent = this.parent;
    const siblings = parent._children;
    if (siblings === this) {
      parent._children = null;
    } else if (siblings instanceof Map && siblings.get(this.name) === this) {
      siblings.delete(this.name);
      if (siblings.size === 0) parent._children = null;
    }
  }
}

module.exports = { SharedPath };

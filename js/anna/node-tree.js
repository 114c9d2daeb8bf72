'use strict';
// The focus-path tree: node IDs, the root, parents and children, and the owner index
// that lets one call deregister every keyed ID of an owner.
//
// IDs (node-id.js): a number, or an array [ownerID, key, key, ...]. Nodes keep only their
// ID: the key and the keys after the owner are derived from it when a node is removed, and
// owners are indexed only for keyed IDs (a plain ID is found by its number), to keep nodes
// small.
//
// Detached nodes: deregistering an ID removes the nodes it names for good, and takes their
// descendants out of the tree *detached*: a descendant's host object may still be alive (a
// screen that hung under a button of the screen that went), and registers again under its
// new parent. Registering a detached node's ID again under the same name takes the node back,
// moved, with its values, visibility and kept events. A host drops a detached node by
// deregistering its ID (as it does when the object goes away); at most DETACHED_LIMIT are
// kept, those of earlier removals forgotten first, and of one removal those nearest the top.

const { NodeError } = require('./errors');
const { Node } = require('./node');
const { SharedPath } = require('./shared-path');
const { NO_KEYS, keyOf, parseID, describeID, names, keysStartWith } = require('./node-id');

/** The most detached nodes kept for their hosts to take back (see above). */
const DETACHED_LIMIT = 1000;

function describeNode(node) {
  return `node ${describeID(node._id)} named '${node._name}'`;
}

class NodeTree {
  constructor() {
    this._nodes = new Map(); // key -> Node
    // Plain IDs are the hosts' object numbers, handed out counting up: nodes are also found
    // by index here, slot number - _numberBase (one array slot instead of a hash lookup,
    // which matters once nodes are many). Removed nodes leave undefined. The array spans a
    // few times the node count; a number outside it moves the span (rebuilt from the live
    // nodes, at most once per half a span of new numbers), so it follows the numbers as
    // hosts come and go. Nodes left outside are found through the Map.
    this._byNumber = [];
    this._numberBase = 0;
    this._keyedOwners = new Map(); // owner number -> the key of its one keyed ID, or a Set of them
    // Paths below the root hang off the root's SharedPath, each found from its parent path by
    // name (no table keyed by whole paths: their strings would grow with depth).
    this._pathCount = 0;
    this._root = null;
    // Detached nodes by key, oldest first, and the keys of the keyed ones by owner number.
    this._detached = new Map();
    this._detachedOwners = new Map();
  }

  /** How many detached nodes wait to be registered again (for stats and tests). */
  get detachedCount() { return this._detached.size; }

  get root() { return this._root; }
  get size() { return this._nodes.size; }
  /** Owners with a node under a plain or a keyed ID (for stats; counted, not kept). */
  get ownerCount() {
    let count = this._keyedOwners.size;
    for (const key of this._nodes.keys()) {
      if (typeof key === 'number' && !this._keyedOwners.has(key)) count += 1;
    }
    return count;
  }

  /** The node for an ID, or undefined (also for malformed IDs). Hot: no allocation for numbers. */
  find(id) {
    if (typeof id === 'number') {
      const node = this._byNumber[id - this._numberBase];
      return node !== undefined ? node : this._nodes.get(id);
    }
    const key = keyOf(id);
    return key === null ? undefined : this._nodes.get(key);
  }

  /**
   * Checks a registration and returns what `insert` needs; changes nothing.
   * @throws {NodeError} for a malformed ID or name, a duplicate ID, an unknown parent or a
   *   second root; the message names the IDs and names involved.
   */
  check(id, parentID, name, index, attributes) {
    const parsed = parseID(id);
    // Messages are only built for an error (registration is hot, and its garbage counts).
    const shownName = () => (typeof name === 'string' ? `'${name}'` : describeID(name));
    if (parsed === null) {
      throw new NodeError(`Cannot register a node named ${shownName()}: ${describeID(id)} is not ` +
        'an ID (a number, or an array [ownerID, key, ...] of a number and strings or numbers).');
    }
    if (typeof name !== 'string' || name.length === 0 || name.indexOf('/') !== -1) {
      throw new NodeError(`Cannot register node ${describeID(id)}: its name ${shownName()} is not a ` +
        "non-empty string without '/'.");
    }
    const named = () => `node ${describeID(id)} named '${name}'`;
    if (!(index === null || index === undefined || (typeof index === 'number' && Number.isFinite(index)))) {
      throw new NodeError(`Cannot register ${named()}: its index ${describeID(index)} is not a number.`);
    }
    if (!(attributes === null || attributes === undefined || typeof attributes === 'object')) {
      throw new NodeError(`Cannot register ${named()}: its attributes must be an object.`);
    }
    const existing = this._nodes.get(parsed.key);
    if (existing !== undefined) {
      throw new NodeError(`Cannot register ${named()}: ID ${describeID(id)} is already registered ` +
        `(${describeNode(existing)} at '${existing.path}').`);
    }
    let parent = null;
    if (parentID === null || parentID === undefined) {
      if (this._root !== null) {
        throw new NodeError(`Cannot register ${named()} as a root: ${describeNode(this._root)} is ` +
          'already the root (give a parent ID).');
      }
    } else {
      const parentKey = keyOf(parentID);
      if (parentKey === null) {
        throw new NodeError(`Cannot register ${named()}: its parent ID ${describeID(parentID)} is ` +
          'not an ID.');
      }
      parent = this._nodes.get(parentKey);
      if (parent === undefined) {
        throw new NodeError(`Cannot register ${named()}: its parent ${describeID(parentID)} is not ` +
          'registered.');
      }
    }
    return { parsed, parent };
  }

  /**
   * Inserts a node checked by `check`. A detached node with the same ID and name is taken
   * back (see the top of this file): it keeps its values, visibility and kept events, and
   * takes the new parent, index and attributes.
   */
  insert(checked, id, name, index, attributes, createdAt) {
    const { parsed, parent } = checked;
    const shared = parent === null ? new SharedPath(null, '') : this._holdPath(parent._shared, name);
    const detached = this._detached.size === 0 ? undefined : this._takeDetached(parsed);
    let node;
    if (detached !== undefined && detached._name === name) {
      node = detached;
      node._reattach(parent, index === undefined ? null : index,
        attributes ? Object.assign({}, attributes) : null, shared);
    } else {
      if (detached !== undefined) detached._release(); // renamed: a new node
      const storedID = Array.isArray(id) ? id.slice() : id;
      node = new Node(storedID, parent, name,
        index === undefined ? null : index,
        attributes ? Object.assign({}, attributes) : null, createdAt, shared);
    }
    this._nodes.set(parsed.key, node);
    if (parsed.keys.length > 0) this._addKeyed(parsed.owner, parsed.key);
    else this._indexByNumber(parsed.key, node);
    if (parent === null) this._root = node;
    else if (parent._children === null) parent._children = new Set([node]);
    else parent._children.add(node);
    return node;
  }

  /**
   * Removes every node registered under `id` and all their descendants: for a number (or
   * [owner]) every ID of that owner; for [owner, k1, ...] the IDs that start with it.
   * An ID with no nodes is not an error (its nodes may have gone with an ancestor).
   * @returns {number} how many nodes were removed
   * @throws {NodeError} when `id` is not an ID
   */
  remove(id) {
    const parsed = parseID(id);
    if (parsed === null) {
      throw new NodeError(`Cannot deregister ${describeID(id)}: it is not an ID (a number, or ` +
        'an array [ownerID, key, ...]).');
    }
    if (this._detached.size > 0) this._dropDetached(parsed);
    const tops = [];
    if (parsed.keys.length === 0) {
      const plain = this._nodes.get(parsed.owner);
      if (plain !== undefined) tops.push(plain);
    }
    for (const key of this._keyedKeys(parsed.owner)) {
      const node = this._nodes.get(key);
      if (keysStartWith(node._id, parsed.keys)) tops.push(node);
    }
    if (tops.length === 0) return 0;
    let removed = 0;
    for (const top of tops) {
      if (top._released) continue; // already gone with an ancestor in this same call
      if (top._parent !== null) top._parent._children.delete(top);
      removed += this._removeSubtree(top, parsed);
    }
    if (this._nodes.size === 0) {
      this._byNumber = [];
      this._numberBase = 0;
    }
    return removed;
  }

  /**
   * Takes `top` and its descendants out of the tree: the nodes that `removed` (the parsed ID
   * being deregistered) names are released, the others detached.
   */
  _removeSubtree(top, removed) {
    // Breadth first, so when the limit is reached the nodes nearest the top are the ones kept.
    const queue = [top];
    let count = 0;
    let detached = 0;
    for (let head = 0; head < queue.length; head += 1) {
      const node = queue[head];
      queue[head] = undefined;
      if (node._children !== null) for (const child of node._children) queue.push(child);
      const key = keyOf(node._id); // a string for a keyed ID
      this._nodes.delete(key);
      if (typeof key === 'string') this._removeKeyed(node._id[0], key);
      else if (this._byNumber[key - this._numberBase] === node) this._byNumber[key - this._numberBase] = undefined;
      if (node === this._root) this._root = null;
      else this._dropPath(node._shared);
      if (node === top || names(removed, node._id) || !this._detach(key, node, detached)) node._release();
      else detached += 1;
      count += 1;
    }
    return count;
  }

  /**
   * Keeps `node` detached under `key`, forgetting the oldest one detached by an earlier
   * removal when DETACHED_LIMIT are kept; `false` (nothing kept) when this removal, which
   * detached `detachedNow` so far, filled the limit itself: the nodes nearest the top stay.
   */
  _detach(key, node, detachedNow) {
    if (this._detached.size >= DETACHED_LIMIT) {
      if (detachedNow >= DETACHED_LIMIT) return false;
      const [oldestKey, oldest] = this._detached.entries().next().value;
      this._forgetDetached(oldestKey, oldest);
    }
    node._detach();
    this._detached.set(key, node);
    if (typeof key === 'string') addToIndex(this._detachedOwners, node._id[0], key);
    return true;
  }

  _forgetDetached(key, node) {
    this._detached.delete(key);
    if (typeof key === 'string') removeFromIndex(this._detachedOwners, node._id[0], key);
    node._release();
  }

  /** The detached node with the ID `parsed`, taken out of the detached ones; or undefined. */
  _takeDetached(parsed) {
    const node = this._detached.get(parsed.key);
    if (node === undefined) return undefined;
    this._detached.delete(parsed.key);
    if (typeof parsed.key === 'string') removeFromIndex(this._detachedOwners, parsed.owner, parsed.key);
    return node;
  }

  /** Forgets the detached nodes that the deregistered ID `parsed` names. */
  _dropDetached(parsed) {
    if (parsed.keys.length === 0) {
      const plain = this._detached.get(parsed.key);
      if (plain !== undefined) this._forgetDetached(parsed.key, plain);
    }
    const held = this._detachedOwners.get(parsed.owner);
    if (held === undefined) return;
    for (const key of held instanceof Set ? Array.from(held) : [held]) {
      const node = this._detached.get(key);
      if (keysStartWith(node._id, parsed.keys)) this._forgetDetached(key, node);
    }
  }

  _indexByNumber(number, node) {
    if (!Number.isInteger(number)) return;
    const limit = 4 * this._nodes.size + 1024;
    if (number < this._numberBase || number - this._numberBase > limit) {
      this._rebuildNumberIndex(number < this._numberBase ? number : number - (limit >> 1), limit);
    }
    const slot = number - this._numberBase;
    const slots = this._byNumber;
    while (slots.length < slot) slots.push(undefined);
    slots[slot] = node;
  }

  /** Indexes the live plain IDs in [from, from + limit] (or from the smallest live one above). */
  _rebuildNumberIndex(from, limit) {
    let base = Infinity;
    for (const key of this._nodes.keys()) {
      if (typeof key === 'number' && Number.isInteger(key) && key >= from && key < base) base = key;
    }
    this._byNumber = [];
    this._numberBase = base;
    for (const [key, node] of this._nodes) {
      const slot = typeof key === 'number' ? key - this._numberBase : -1;
      if (!Number.isInteger(slot) || slot < 0 || slot > limit) continue;
      while (this._byNumber.length < slot) this._byNumber.push(undefined);
      this._byNumber[slot] = node;
    }
  }

  /** The SharedPath of `parent`'s path + '/' + name, counting one more node on it. */
  _holdPath(parent, name) {
    let held = parent.child(name);
    if (held === undefined) {
      held = parent.addChild(name);
      this._pathCount += 1;
    }
    held.count += 1;
    return held;
  }

  _dropPath(shared) {
    if (--shared.count > 0) return;
    // Its descendants' nodes go in the same removal and unlink themselves from it.
    shared.detach();
    this._pathCount -= 1;
  }

  /** Distinct paths held below the root (for stats). */
  get pathCount() { return this._pathCount; }

  /** Characters of path text held (for stats: kept paths and those of cached metas). */
  get pathTextLength() {
    let length = 0;
    for (const shared of this.sharedPaths()) length += shared.heldLength;
    return length;
  }

  /** Every SharedPath in use, the root's included (a walk without recursion: paths nest deep). */
  * sharedPaths() {
    if (this._root === null) return;
    const stack = [this._root._shared];
    while (stack.length > 0) {
      const shared = stack.pop();
      yield shared;
      for (const child of shared.children()) stack.push(child);
    }
  }

  _addKeyed(owner, key) {
    addToIndex(this._keyedOwners, owner, key);
  }

  _removeKeyed(owner, key) {
    removeFromIndex(this._keyedOwners, owner, key);
  }

  _keyedKeys(owner) {
    const held = this._keyedOwners.get(owner);
    if (held === undefined) return NO_KEYS;
    return held instanceof Set ? Array.from(held) : [held];
  }
}

// An index of keys by owner number. Most owners of keyed IDs have one, so its key is stored
// as is; a Set only for several.
function addToIndex(index, owner, key) {
  const held = index.get(owner);
  if (held === undefined) index.set(owner, key);
  else if (held instanceof Set) held.add(key);
  else index.set(owner, new Set([held, key]));
}

function removeFromIndex(index, owner, key) {
  const held = index.get(owner);
  if (held instanceof Set) {
    held.delete(key);
    if (held.size === 1) index.set(owner, held.values().next().value);
    else if (held.size === 0) index.delete(owner);
  } else if (held === key) {
    index.delete(owner);
  }
}

module.exports = { NodeTree };

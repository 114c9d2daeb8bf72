'use strict';
// The focus-path tree: node IDs, the root, parents and children, and the owner index
// that lets one call deregister every keyed ID of an owner.
//
// IDs: a number, or an array [ownerID, key, key, ...] (keys are strings or numbers);
// [ownerID] alone is the same ID as ownerID. A number ID is its own table key (no
// allocation on lookup); a keyed ID's key is its JSON text.

const { NodeError } = require('./errors');
const { Node } = require('./node');

/** `{ key, owner, keys }` for a valid ID, or null. */
function parseID(id) {
  if (typeof id === 'number') return Number.isFinite(id) ? { key: id, owner: id, keys: [] } : null;
  if (!Array.isArray(id) || id.length === 0) return null;
  const owner = id[0];
  if (typeof owner !== 'number' || !Number.isFinite(owner)) return null;
  if (id.length === 1) return { key: owner, owner, keys: [] };
  const keys = id.slice(1);
  for (const key of keys) {
    const ok = typeof key === 'string' || (typeof key === 'number' && Number.isFinite(key));
    if (!ok) return null;
  }
  return { key: JSON.stringify([owner].concat(keys)), owner, keys };
}

/** How IDs are written in messages and snapshots: `42`, `42/table/0`. */
function describeID(id) {
  if (Array.isArray(id)) return id.map((part) => String(part)).join('/');
  if (typeof id === 'number') return String(id);
  try {
    return JSON.stringify(id) || String(id);
  } catch (e) {
    return String(id);
  }
}

function describeNode(node) {
  return `node ${describeID(node._id)} named '${node._name}'`;
}

class NodeTree {
  constructor() {
    this._nodes = new Map(); // key -> Node
    this._owners = new Map(); // owner number -> its one key, or a Set of its keys
    this._root = null;
  }

  get root() { return this._root; }
  get size() { return this._nodes.size; }
  get ownerCount() { return this._owners.size; }

  /** The node for an ID, or undefined (also for malformed IDs). Hot: no allocation for numbers. */
  find(id) {
    if (typeof id === 'number') return this._nodes.get(id);
    const parsed = parseID(id);
    return parsed === null ? undefined : this._nodes.get(parsed.key);
  }

  /**
   * Checks a registration and returns what `insert` needs; changes nothing.
   * @throws {NodeError} for a malformed ID or name, a duplicate ID, an unknown parent or a
   *   second root; the message names the IDs and names involved.
   */
  check(id, parentID, name, index, attributes) {
    const parsed = parseID(id);
    const shownName = typeof name === 'string' ? `'${name}'` : describeID(name);
    if (parsed === null) {
      throw new NodeError(`Cannot register a node named ${shownName}: ${describeID(id)} is not ` +
        'an ID (a number, or an array [ownerID, key, ...] of a number and strings or numbers).');
    }
    const subject = `node ${describeID(id)}`;
    if (typeof name !== 'string' || name.length === 0 || name.indexOf('/') !== -1) {
      throw new NodeError(`Cannot register ${subject}: its name ${shownName} is not a non-empty ` +
        "string without '/'.");
    }
    const named = `${subject} named '${name}'`;
    if (!(index === null || index === undefined || (typeof index === 'number' && Number.isFinite(index)))) {
      throw new NodeError(`Cannot register ${named}: its index ${describeID(index)} is not a number.`);
    }
    if (!(attributes === null || attributes === undefined || typeof attributes === 'object')) {
      throw new NodeError(`Cannot register ${named}: its attributes must be an object.`);
    }
    const existing = this._nodes.get(parsed.key);
    if (existing !== undefined) {
      throw new NodeError(`Cannot register ${named}: ID ${describeID(id)} is already registered ` +
        `(${describeNode(existing)} at '${existing._path}').`);
    }
    let parent = null;
    if (parentID === null || parentID === undefined) {
      if (this._root !== null) {
        throw new NodeError(`Cannot register ${named} as a root: ${describeNode(this._root)} is ` +
          'already the root (give a parent ID).');
      }
    } else {
      const parsedParent = parseID(parentID);
      if (parsedParent === null) {
        throw new NodeError(`Cannot register ${named}: its parent ID ${describeID(parentID)} is ` +
          'not an ID.');
      }
      parent = this._nodes.get(parsedParent.key);
      if (parent === undefined) {
        throw new NodeError(`Cannot register ${named}: its parent ${describeID(parentID)} is not ` +
          'registered.');
      }
    }
    return { parsed, parent };
  }

  /** Inserts a node checked by `check`. */
  insert(checked, id, name, index, attributes, createdAt) {
    const { parsed, parent } = checked;
    const storedID = Array.isArray(id) ? id.slice() : id;
    const node = new Node(storedID, parsed.key, parent, name,
      index === undefined ? null : index,
      attributes ? Object.assign({}, attributes) : null, createdAt);
    node._owner = parsed.owner;
    node._keys = parsed.keys;
    this._nodes.set(parsed.key, node);
    this._addOwned(parsed.owner, parsed.key);
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
    const keys = this._ownedKeys(parsed.owner);
    if (keys.length === 0) return 0;
    const tops = [];
    for (const key of keys) {
      const node = this._nodes.get(key);
      if (startsWith(node._keys, parsed.keys)) tops.push(node);
    }
    let removed = 0;
    for (const top of tops) {
      if (top._released) continue; // already gone with an ancestor in this same call
      if (top._parent !== null && top._parent._children !== null) top._parent._children.delete(top);
      removed += this._removeSubtree(top);
    }
    return removed;
  }

  _removeSubtree(top) {
    const stack = [top];
    let removed = 0;
    while (stack.length > 0) {
      const node = stack.pop();
      if (node._children !== null) for (const child of node._children) stack.push(child);
      this._nodes.delete(node._key);
      this._removeOwned(node._owner, node._key);
      if (node === this._root) this._root = null;
      node._release();
      removed += 1;
    }
    return removed;
  }

  /** Calls `visit` on every node, parents before children, in registration order. */
  forEach(visit) {
    if (this._root === null) return;
    const stack = [this._root];
    while (stack.length > 0) {
      const node = stack.pop();
      visit(node);
      if (node._children === null) continue;
      const children = Array.from(node._children);
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
    }
  }

  // Most owners have one node, so their key is stored as is; a Set only for several.
  _addOwned(owner, key) {
    const held = this._owners.get(owner);
    if (held === undefined) this._owners.set(owner, key);
    else if (held instanceof Set) held.add(key);
    else this._owners.set(owner, new Set([held, key]));
  }

  _removeOwned(owner, key) {
    const held = this._owners.get(owner);
    if (held instanceof Set) {
      held.delete(key);
      if (held.size === 1) this._owners.set(owner, held.values().next().value);
      else if (held.size === 0) this._owners.delete(owner);
    } else if (held === key) {
      this._owners.delete(owner);
    }
  }

  _ownedKeys(owner) {
    const held = this._owners.get(owner);
    if (held === undefined) return [];
    return held instanceof Set ? Array.from(held) : [held];
  }
}

function startsWith(keys, prefix) {
  if (keys.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i += 1) if (keys[i] !== prefix[i]) return false;
  return true;
}

module.exports = { NodeTree, parseID, describeID };

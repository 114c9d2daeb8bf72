'use strict';
// A focus-path node and what its events change (the events themselves are kept in
// kept-events.js). Tasks receive nodes; everything a task may use is a getter or a method
// below, the rest (underscored) belongs to the core.

const { AnnaError } = require('./errors');
const { KeptEvents } = require('./kept-events');

const APPEARED = 'ana-appeared';
const DISAPPEARED = 'ana-disappeared';
const UPDATED = 'ana-updated';
const KEY_PATH = 'key-path';
const VALUE = 'value';

/** Marks the inline value slot unused (any key path, even undefined, can be used). */
const NO_KEY_PATH = Object.freeze({});

/** Whether two key paths are one, as a Map compares keys (SameValueZero). */
function sameKeyPath(a, b) {
  return a === b || (a !== a && b !== b);
}

/** Whether an `ana-updated` value differs from the one kept (null and undefined are one). */
function sameValue(a, b) {
  if (sameKeyPath(a, b)) return true; // also NaN
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch (e) {
    return false;
  }
}

class Node {
  /** `shared` is the SharedPath of the parent's path + '/' + name, held by the tree. */
  constructor(id, parent, name, index, attributes, createdAt, shared) {
    // Fields in the order an event uses them: the first ones share the object's first cache
    // line (nodes are many; each line an event touches is a likely cache miss).
    this._shared = shared;
    this._events = null; // the kept events (KeptEvents), from the first event on
    // The latest event's Event once made: latestEvent() and the display events give the same one.
    this._latestEvent = null;
    this._visible = false;
    // Values by key path. Most nodes show one: the first key path's slot is inline (key
    // path, value, the event that first showed it); others are { value, firstDisplayed }
    // in _moreValues, a Map made for the second key path.
    this._keyPath = NO_KEY_PATH;
    this._value = undefined;
    this._valueFirstDisplayed = null;
    this._moreValues = null;
    this._firstDisplayed = null;
    this._index = index;
    this._name = name;
    this._parent = parent;
    this._id = id; // the ID as registered (number or array)
    this._attributes = attributes;
    this._createdAt = createdAt;
    this._depth = parent === null ? 0 : parent._depth + 1;
    this._children = null; // a Set, made for the first child
    this._released = false;
  }

  // Task API ------------------------------------------------------------------------------

  get nodeName() { return this._name; }
  /** The index given at registration, or null. */
  get index() { return this._index; }
  /** `/master/table/cell`; the root's path is ``. */
  get path() {
    const kept = this._shared._path; // read here: tasks ask for it per event
    return kept !== null ? kept : this._shared.path;
  }
  /** The parent node, or null for the root. */
  get parentNode() { return this._parent; }
  /** A copy of the attributes given at registration (an empty object when none). */
  get attributes() { return Object.assign({}, this._attributes); }

  /** The ancestor `distance` steps up (0 = this node), or null above the root. */
  ancestor(distance) {
    const steps = distance === undefined ? 0 : distance;
    if (!(Number.isInteger(steps) && steps >= 0)) {
      throw new AnnaError(`ancestor(distance) needs a whole number >= 0, not ${String(distance)}.`);
    }
    let current = this;
    for (let left = steps; current !== null && left > 0; left -= 1) current = current._parent;
    return current;
  }

  /** The most recent event on this node (during a task: the event being handled), or null. */
  latestEvent() {
    if (this._latestEvent === null && this._events !== null) this._latestEvent = this._events.latest();
    return this._latestEvent;
  }

  /** The latest value recorded by `ana-updated` for `keyPath`, or undefined. */
  latestValue(keyPath) {
    if (sameKeyPath(this._keyPath, keyPath)) return this._value;
    const slot = this._otherSlot(keyPath);
    return slot === undefined ? undefined : slot.value;
  }

  /** Whether the latest visibility event was `ana-appeared`. */
  isVisible() { return this._visible; }

  /** The `ana-appeared` event that first made this node visible, or null. */
  firstDisplayedEvent() { return this._firstDisplayed; }

  /**
   * The event that first showed the current value of `keyPath`: the `ana-appeared` that
   * showed it, or the `ana-updated` that changed it while visible; null while the value
   * has not been shown (or is null/undefined).
   */
  valueFirstDisplayedEvent(keyPath) {
    if (sameKeyPath(this._keyPath, keyPath)) return this._valueFirstDisplayed;
    const slot = this._otherSlot(keyPath);
    return slot === undefined ? null : slot.firstDisplayed;
  }

  /**
   * The node's public face in a result: `{ name, index, path }` (JSON.stringify and the host
   * use it; a node's fields link the whole tree).
   */
  toJSON() {
    return { name: this._name, index: this._index, path: this.path };
  }

  // Core ----------------------------------------------------------------------------------

  /** Keeps an event (properties: an object, never null) and updates what it changes. */
  _record(name, properties, time) {
    if (this._events === null) this._events = new KeptEvents();
    this._events.put(name, properties, time);
    this._latestEvent = null;
    switch (name) {
      case APPEARED: this._appear(); break;
      case DISAPPEARED: this._visible = false; break;
      case UPDATED: this._update(properties); break;
      default: break;
    }
  }

  _appear() {
    if (this._visible) return;
    this._visible = true;
    if (this._firstDisplayed === null) this._firstDisplayed = this.latestEvent();
    // An unused inline slot holds undefined, so it is skipped too.
    if (this._valueFirstDisplayed === null && this._value != null) this._valueFirstDisplayed = this.latestEvent();
    if (this._moreValues === null) return;
    for (const slot of this._moreValues.values()) {
      if (slot.firstDisplayed === null && slot.value != null) slot.firstDisplayed = this.latestEvent();
    }
  }

  _update(properties) {
    if (!(KEY_PATH in properties)) return;
    const keyPath = properties[KEY_PATH];
    const value = properties[VALUE];
    // The Event is made only when the value is shown and changes (below).
    const shown = this._visible && value != null;
    if (sameKeyPath(this._keyPath, keyPath)) {
      if (sameValue(this._value, value)) return;
      this._value = value;
      this._valueFirstDisplayed = shown ? this.latestEvent() : null;
      return;
    }
    const slot = this._otherSlot(keyPath);
    if (sameValue(slot === undefined ? undefined : slot.value, value)) return;
    const firstDisplayed = shown ? this.latestEvent() : null;
    if (slot !== undefined) {
      slot.value = value;
      slot.firstDisplayed = firstDisplayed;
    } else if (this._keyPath === NO_KEY_PATH) {
      this._keyPath = keyPath;
      this._value = value;
      this._valueFirstDisplayed = firstDisplayed;
    } else {
      if (this._moreValues === null) this._moreValues = new Map();
      this._moreValues.set(keyPath, { value, firstDisplayed });
    }
  }

  /** The slot of a key path other than the inline one, or undefined. */
  _otherSlot(keyPath) {
    return this._moreValues === null ? undefined : this._moreValues.get(keyPath);
  }

  /** The kept events, oldest first (the latest as latestEvent() gives it). */
  _recentEvents() {
    if (this._events === null) return [];
    const events = this._events.earlier();
    events.push(this.latestEvent());
    return events;
  }

  /** Drops what the node holds for the core; called when it is deregistered. */
  _release() {
    this._children = null;
    this._released = true;
  }

  /**
   * Takes the node out of the tree, keeping what it recorded: an ancestor was deregistered
   * and its host may register it again elsewhere (see node-tree.js). Its children are
   * detached on their own.
   */
  _detach() {
    this._children = null;
    this._parent = null;
    this._released = true;
  }

  /** Puts a detached node back under `parent`, with its values, visibility and kept events. */
  _reattach(parent, index, attributes, shared) {
    this._shared = shared;
    this._parent = parent;
    this._depth = parent === null ? 0 : parent._depth + 1;
    this._index = index;
    this._attributes = attributes;
    this._released = false;
  }
}

module.exports = { Node };

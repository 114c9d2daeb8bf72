'use strict';
// A focus-path node and the events recorded on it. Tasks receive nodes; everything a task
// may use is a getter or a method below, the rest (underscored) belongs to the core.

const { AnnaError } = require('./errors');

/** How many events each node keeps. */
const KEPT_EVENTS = 10;

const APPEARED = 'ana-appeared';
const DISAPPEARED = 'ana-disappeared';
const UPDATED = 'ana-updated';
const KEY_PATH = 'key-path';
const VALUE = 'value';

/** One recorded event. `attributes` is the event's properties plus `time`. */
class Event {
  constructor(name, properties, time) {
    this._name = name;
    this._properties = properties;
    this._time = time;
    this._attributes = null;
  }

  get nodeName() { return this._name; }
  get name() { return this._name; }
  get time() { return this._time; }

  /** The properties plus `time`, copied on first use (events are cheap until read). */
  get attributes() {
    if (this._attributes === null) {
      this._attributes = Object.assign({}, this._properties, { time: this._time });
    }
    return this._attributes;
  }

  toJSON() { return { nodeName: this._name, attributes: this.attributes }; }
}

/** Marks the inline value slot unused (any key path, even undefined, can be used). */
const NO_KEY_PATH = Object.freeze({});

/** Whether two key paths are one, as a Map compares keys (SameValueZero). */
function sameKeyPath(a, b) {
  return a === b || (a !== a && b !== b);
}

/** Whether an `ana-updated` value differs from the one kept (null and undefined are one). */
function sameValue(a, b) {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  if (a !== a && b !== b) return true; // NaN
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch (e) {
    return false;
  }
}

class Node {
  /** `path` is the parent's path + '/' + name: the tree passes one shared string per path. */
  constructor(id, parent, name, index, attributes, createdAt, path) {
    this._id = id; // the ID as registered (number or array)
    this._parent = parent;
    this._name = name;
    this._index = index;
    this._attributes = attributes;
    this._createdAt = createdAt;
    this._path = path;
    this._depth = parent === null ? 0 : parent._depth + 1;
    this._children = null; // a Set, made for the first child
    // The last KEPT_EVENTS events, in fields of the node itself rather than an array of
    // their own: an event then touches one object (nodes are many, and each a cache miss).
    // Event n is in field _e(n % KEPT_EVENTS); _recorded counts every event ever recorded.
    this._e0 = null;
    this._e1 = null;
    this._e2 = null;
    this._e3 = null;
    this._e4 = null;
    this._e5 = null;
    this._e6 = null;
    this._e7 = null;
    this._e8 = null;
    this._e9 = null;
    this._recorded = 0;
    this._latest = null;
    this._visible = false;
    this._firstDisplayed = null;
    // Values by key path. Most nodes show one: the first key path's slot is inline (key
    // path, value, the event that first showed it); others are { value, firstDisplayed }
    // in _moreValues, a Map made for the second key path.
    this._keyPath = NO_KEY_PATH;
    this._value = undefined;
    this._valueFirstDisplayed = null;
    this._moreValues = null;
    this._released = false;
  }

  // Task API ------------------------------------------------------------------------------

  get nodeName() { return this._name; }
  /** The index given at registration, or null. */
  get index() { return this._index; }
  /** `/master/table/cell`; the root's path is ``. */
  get path() { return this._path; }
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
  latestEvent() { return this._latest; }

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

  // Core ----------------------------------------------------------------------------------

  _record(event) {
    switch (this._recorded % KEPT_EVENTS) {
      case 0: this._e0 = event; break;
      case 1: this._e1 = event; break;
      case 2: this._e2 = event; break;
      case 3: this._e3 = event; break;
      case 4: this._e4 = event; break;
      case 5: this._e5 = event; break;
      case 6: this._e6 = event; break;
      case 7: this._e7 = event; break;
      case 8: this._e8 = event; break;
      default: this._e9 = event; break;
    }
    this._recorded += 1;
    this._latest = event;
    switch (event._name) {
      case APPEARED: this._appear(event); break;
      case DISAPPEARED: this._visible = false; break;
      case UPDATED: this._update(event); break;
      default: break;
    }
  }

  _appear(event) {
    if (this._visible) return;
    this._visible = true;
    if (this._firstDisplayed === null) this._firstDisplayed = event;
    // An unused inline slot holds undefined, so it is skipped too.
    if (this._valueFirstDisplayed === null && this._value != null) this._valueFirstDisplayed = event;
    if (this._moreValues === null) return;
    for (const slot of this._moreValues.values()) {
      if (slot.firstDisplayed === null && slot.value != null) slot.firstDisplayed = event;
    }
  }

  _update(event) {
    const properties = event._properties;
    if (!(KEY_PATH in properties)) return;
    const keyPath = properties[KEY_PATH];
    const value = properties[VALUE];
    const firstDisplayed = this._visible && value != null ? event : null;
    if (sameKeyPath(this._keyPath, keyPath)) {
      if (sameValue(this._value, value)) return;
      this._value = value;
      this._valueFirstDisplayed = firstDisplayed;
      return;
    }
    const slot = this._otherSlot(keyPath);
    if (sameValue(slot === undefined ? undefined : slot.value, value)) return;
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

  /** The kept events, oldest first. */
  _recentEvents() {
    const slots = [this._e0, this._e1, this._e2, this._e3, this._e4,
      this._e5, this._e6, this._e7, this._e8, this._e9];
    if (this._recorded <= KEPT_EVENTS) return slots.slice(0, this._recorded);
    const oldest = this._recorded % KEPT_EVENTS;
    return slots.slice(oldest).concat(slots.slice(0, oldest));
  }

  /** Drops what the node holds for the core; called when it is deregistered. */
  _release() {
    this._children = null;
    this._released = true;
  }
}

module.exports = { Node, Event };

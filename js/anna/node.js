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
  /** `shared` is the SharedPath of the parent's path + '/' + name, held by the tree. */
  constructor(id, parent, name, index, attributes, createdAt, shared) {
    // Fields in the order an event uses them: the first ones share the object's first cache
    // line (nodes are many; each line an event touches is a likely cache miss).
    this._shared = shared;
    this._path = shared.path;
    this._slot = 0; // the kept-event slot the next event goes to
    this._recorded = 0; // every event ever recorded
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
    // The last KEPT_EVENTS events, in fields of the node itself: event n is in slot
    // n % KEPT_EVENTS, its name, time and properties in _nS, _tS and _pS. An event touches
    // one object and allocates nothing: its Event is made when a task asks for it. Kept
    // Event objects would outlive the young generation on every node that sees an event
    // less often than a garbage collection runs, so a large tree would fill the old
    // generation with them.
    this._n0 = null;
    this._t0 = 0;
    this._p0 = null;
    this._n1 = null;
    this._t1 = 0;
    this._p1 = null;
    this._n2 = null;
    this._t2 = 0;
    this._p2 = null;
    this._n3 = null;
    this._t3 = 0;
    this._p3 = null;
    this._n4 = null;
    this._t4 = 0;
    this._p4 = null;
    this._n5 = null;
    this._t5 = 0;
    this._p5 = null;
    this._n6 = null;
    this._t6 = 0;
    this._p6 = null;
    this._n7 = null;
    this._t7 = 0;
    this._p7 = null;
    this._n8 = null;
    this._t8 = 0;
    this._p8 = null;
    this._n9 = null;
    this._t9 = 0;
    this._p9 = null;
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
  latestEvent() {
    if (this._latestEvent === null && this._recorded > 0) {
      this._latestEvent = this._keptEvent(this._recorded - 1);
    }
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

  // Core ----------------------------------------------------------------------------------

  /** Keeps an event (properties: an object, never null) and updates what it changes. */
  _record(name, properties, time) {
    const slot = this._slot;
    this._slot = slot === KEPT_EVENTS - 1 ? 0 : slot + 1;
    switch (slot) {
      case 0: this._n0 = name; this._t0 = time; this._p0 = properties; break;
      case 1: this._n1 = name; this._t1 = time; this._p1 = properties; break;
      case 2: this._n2 = name; this._t2 = time; this._p2 = properties; break;
      case 3: this._n3 = name; this._t3 = time; this._p3 = properties; break;
      case 4: this._n4 = name; this._t4 = time; this._p4 = properties; break;
      case 5: this._n5 = name; this._t5 = time; this._p5 = properties; break;
      case 6: this._n6 = name; this._t6 = time; this._p6 = properties; break;
      case 7: this._n7 = name; this._t7 = time; this._p7 = properties; break;
      case 8: this._n8 = name; this._t8 = time; this._p8 = properties; break;
      default: this._n9 = name; this._t9 = time; this._p9 = properties; break;
    }
    this._recorded += 1;
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

  /** A new Event for kept event number `sequence` (one of the last KEPT_EVENTS). */
  _keptEvent(sequence) {
    switch (sequence % KEPT_EVENTS) {
      case 0: return new Event(this._n0, this._p0, this._t0);
      case 1: return new Event(this._n1, this._p1, this._t1);
      case 2: return new Event(this._n2, this._p2, this._t2);
      case 3: return new Event(this._n3, this._p3, this._t3);
      case 4: return new Event(this._n4, this._p4, this._t4);
      case 5: return new Event(this._n5, this._p5, this._t5);
      case 6: return new Event(this._n6, this._p6, this._t6);
      case 7: return new Event(this._n7, this._p7, this._t7);
      case 8: return new Event(this._n8, this._p8, this._t8);
      default: return new Event(this._n9, this._p9, this._t9);
    }
  }

  /** The kept events, oldest first (the latest as latestEvent() gives it). */
  _recentEvents() {
    const events = [];
    for (let sequence = Math.max(0, this._recorded - KEPT_EVENTS); sequence < this._recorded - 1; sequence += 1) {
      events.push(this._keptEvent(sequence));
    }
    if (this._recorded > 0) events.push(this.latestEvent());
    return events;
  }

  /** Drops what the node holds for the core; called when it is deregistered. */
  _release() {
    this._children = null;
    this._released = true;
  }
}

module.exports = { Node };

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
  constructor(id, parent, name, index, attributes, createdAt) {
    this._id = id; // the ID as registered (number or array)
    this._parent = parent;
    this._name = name;
    this._index = index;
    this._attributes = attributes;
    this._createdAt = createdAt;
    this._path = parent === null ? '' : parent._path + '/' + name;
    this._depth = parent === null ? 0 : parent._depth + 1;
    this._children = null; // a Set, made for the first child
    this._ring = null; // the last KEPT_EVENTS events: grows from the first event, then wraps
    this._recorded = 0; // events ever recorded; once full, the next slot is _recorded % KEPT_EVENTS
    this._latest = null;
    this._visible = false;
    this._firstDisplayed = null;
    // Values by key path: null, one slot { keyPath, value, firstDisplayed } (most nodes
    // show one value), or a Map keyPath -> slot once there are several.
    this._values = null;
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
    const slot = this._slot(keyPath);
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
    const slot = this._slot(keyPath);
    return slot === undefined ? null : slot.firstDisplayed;
  }

  // Core ----------------------------------------------------------------------------------

  _record(event) {
    const ring = this._ring;
    if (ring === null) this._ring = [event];
    else if (ring.length < KEPT_EVENTS) ring.push(event);
    else ring[this._recorded % KEPT_EVENTS] = event;
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
    const values = this._values;
    if (values === null) return;
    const slots = values instanceof Map ? values.values() : [values];
    for (const slot of slots) {
      if (slot.firstDisplayed === null && slot.value != null) slot.firstDisplayed = event;
    }
  }

  _update(event) {
    const properties = event._properties;
    if (!(KEY_PATH in properties)) return;
    const keyPath = properties[KEY_PATH];
    const value = properties[VALUE];
    let slot = this._slot(keyPath);
    if (sameValue(slot === undefined ? undefined : slot.value, value)) return;
    if (slot === undefined) {
      slot = { keyPath, value, firstDisplayed: null };
      const values = this._values;
      if (values === null) this._values = slot;
      else if (values instanceof Map) values.set(keyPath, slot);
      else this._values = new Map([[values.keyPath, values], [keyPath, slot]]);
    }
    slot.value = value;
    slot.firstDisplayed = this._visible && value != null ? event : null;
  }

  /** The value slot of `keyPath`, or undefined. */
  _slot(keyPath) {
    const values = this._values;
    if (values === null) return undefined;
    if (values instanceof Map) return values.get(keyPath);
    const key = values.keyPath; // compared as a Map compares keys (SameValueZero)
    return key === keyPath || (key !== key && keyPath !== keyPath) ? values : undefined;
  }

  /** The kept events, oldest first. */
  _recentEvents() {
    const ring = this._ring;
    if (ring === null) return [];
    if (ring.length < KEPT_EVENTS) return ring.slice();
    const events = new Array(KEPT_EVENTS);
    const start = this._recorded - KEPT_EVENTS;
    for (let i = 0; i < KEPT_EVENTS; i += 1) events[i] = ring[(start + i) % KEPT_EVENTS];
    return events;
  }

  /** Drops what the node holds for the core; called when it is deregistered. */
  _release() {
    this._children = null;
    this._released = true;
  }
}

module.exports = { Node, Event, KEPT_EVENTS, APPEARED, DISAPPEARED, UPDATED, sameValue };

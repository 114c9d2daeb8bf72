'use strict';
// Recorded events: the last few a node keeps, and the Event objects tasks see.

/** How many events each node keeps. */
const KEPT_EVENTS = 10;

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

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
      const attributes = Object.assign({}, this._properties, { time: this._time });
      // Object.assign sets a '__proto__' key through the setter (the copy's prototype):
      // a property of that name stays a property.
      if (hasOwn(this._properties, '__proto__')) {
        Object.setPrototypeOf(attributes, Object.prototype);
        Object.defineProperty(attributes, '__proto__', {
          value: this._properties.__proto__, writable: true, enumerable: true, configurable: true,
        });
      }
      this._attributes = attributes;
    }
    return this._attributes;
  }

  toJSON() { return { nodeName: this._name, attributes: this.attributes }; }
}

/**
 * A node's last KEPT_EVENTS events as fields: slot S holds the name, time and properties of
 * an event in nS, tS and pS (the fields below are the slots: KEPT_EVENTS of them). Keeping
 * an event allocates nothing; its Event is made when asked for. (Kept Event objects would
 * outlive the young generation on every node that sees an event less often than a garbage
 * collection runs, so a large tree would fill the old generation with them.) A node makes
 * its KeptEvents with its first event.
 */
class KeptEvents {
  constructor() {
    this.next = 0; // the slot the next event goes to; slots fill in order, so n9 is null until all are used
    this.n0 = null;
    this.t0 = 0;
    this.p0 = null;
    this.n1 = null;
    this.t1 = 0;
    this.p1 = null;
    this.n2 = null;
    this.t2 = 0;
    this.p2 = null;
    this.n3 = null;
    this.t3 = 0;
    this.p3 = null;
    this.n4 = null;
    this.t4 = 0;
    this.p4 = null;
    this.n5 = null;
    this.t5 = 0;
    this.p5 = null;
    this.n6 = null;
    this.t6 = 0;
    this.p6 = null;
    this.n7 = null;
    this.t7 = 0;
    this.p7 = null;
    this.n8 = null;
    this.t8 = 0;
    this.p8 = null;
    this.n9 = null;
    this.t9 = 0;
    this.p9 = null;
  }

  /** Keeps an event (its name is never null), replacing the oldest once KEPT_EVENTS are kept. */
  put(name, properties, time) {
    const slot = this.next;
    this.next = slot === KEPT_EVENTS - 1 ? 0 : slot + 1; // a counter, not a division per event
    switch (slot) {
      case 0: this.n0 = name; this.t0 = time; this.p0 = properties; break;
      case 1: this.n1 = name; this.t1 = time; this.p1 = properties; break;
      case 2: this.n2 = name; this.t2 = time; this.p2 = properties; break;
      case 3: this.n3 = name; this.t3 = time; this.p3 = properties; break;
      case 4: this.n4 = name; this.t4 = time; this.p4 = properties; break;
      case 5: this.n5 = name; this.t5 = time; this.p5 = properties; break;
      case 6: this.n6 = name; this.t6 = time; this.p6 = properties; break;
      case 7: this.n7 = name; this.t7 = time; this.p7 = properties; break;
      case 8: this.n8 = name; this.t8 = time; this.p8 = properties; break;
      case 9: this.n9 = name; this.t9 = time; this.p9 = properties; break;
      default: throw new RangeError(`No kept-event slot ${slot}.`);
    }
  }

  /** A new Event for the latest event. */
  latest() {
    return this._event(this.next === 0 ? KEPT_EVENTS - 1 : this.next - 1);
  }

  /** New Events for the kept events but the latest, oldest first. */
  earlier() {
    const events = [];
    const full = this.n9 !== null;
    const count = full ? KEPT_EVENTS : this.next;
    const oldest = full ? this.next : 0;
    for (let i = 0; i < count - 1; i += 1) events.push(this._event((oldest + i) % KEPT_EVENTS));
    return events;
  }

  _event(slot) {
    switch (slot) {
      case 0: return new Event(this.n0, this.p0, this.t0);
      case 1: return new Event(this.n1, this.p1, this.t1);
      case 2: return new Event(this.n2, this.p2, this.t2);
      case 3: return new Event(this.n3, this.p3, this.t3);
      case 4: return new Event(this.n4, this.p4, this.t4);
      case 5: return new Event(this.n5, this.p5, this.t5);
      case 6: return new Event(this.n6, this.p6, this.t6);
      case 7: return new Event(this.n7, this.p7, this.t7);
      case 8: return new Event(this.n8, this.p8, this.t8);
      case 9: return new Event(this.n9, this.p9, this.t9);
      default: throw new RangeError(`No kept-event slot ${slot}.`);
    }
  }
}

module.exports = { KeptEvents };

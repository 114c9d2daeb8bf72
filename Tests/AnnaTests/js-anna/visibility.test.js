'use strict';
// Visibility (`ana-appeared` / `ana-disappeared`), value updates (`ana-updated`) and the
// first-displayed events.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

function shown(event) {
  return event === null ? null : `${event.nodeName}@${event.attributes.time}`;
}

/**
 * A node and a `step(time, name, properties)` that records an event at `time` and returns
 * what the node then says: visible, first displayed, latest value and its first display.
 */
function stepper() {
  let now = 0;
  const { manager, sent } = scripted((match) => match('probe', (node) => ({
    visible: node.isVisible(),
    first: shown(node.firstDisplayedEvent()),
    value: node.latestValue('title'),
    valueFirst: shown(node.valueFirstDisplayedEvent('title')),
  })), { now: () => now });
  manager.registerNode(1, null, '__root__');
  manager.registerNode(2, 1, 'cell');
  return (time, name, properties) => {
    now = time;
    manager.recordEvent(name, properties, 2);
    manager.recordEvent('probe', null, 2);
    const all = sent();
    return all[all.length - 1];
  };
}

const update = (value) => ({ 'key-path': 'title', value });

module.exports = {
  'a new node is not visible and has displayed nothing'() {
    const step = stepper();
    assert.deepEqual(step(1, 'tap', null),
      { visible: false, first: null, value: undefined, valueFirst: null });
  },

  'ana-appeared and ana-disappeared set visibility; firstDisplayedEvent is the first appearance'() {
    const step = stepper();
    assert.deepEqual(step(1, 'ana-appeared'), { visible: true, first: 'ana-appeared@1', valueFirst: null });
    assert.deepEqual(step(2, 'ana-appeared'), { visible: true, first: 'ana-appeared@1', valueFirst: null });
    assert.deepEqual(step(3, 'ana-disappeared'), { visible: false, first: 'ana-appeared@1', valueFirst: null });
    assert.deepEqual(step(4, 'ana-appeared'), { visible: true, first: 'ana-appeared@1', valueFirst: null });
  },

  'a value set while hidden is first displayed by the next appearance'() {
    const step = stepper();
    assert.deepEqual(step(1, 'ana-updated', update('A')),
      { visible: false, first: null, value: 'A', valueFirst: null });
    assert.deepEqual(step(2, 'ana-appeared'),
      { visible: true, first: 'ana-appeared@2', value: 'A', valueFirst: 'ana-appeared@2' });
  },

  'an unchanged value keeps its first display; a changed one while visible is displayed by the update'() {
    const step = stepper();
    step(1, 'ana-updated', update('A'));
    step(2, 'ana-appeared');
    assert.deepEqual(step(3, 'ana-updated', update('A')).valueFirst, 'ana-appeared@2');
    assert.deepEqual(step(4, 'ana-updated', update('B')),
      { visible: true, first: 'ana-appeared@2', value: 'B', valueFirst: 'ana-updated@4' });
    assert.deepEqual(step(5, 'ana-appeared').valueFirst, 'ana-updated@4',
      'appearing while visible changes nothing');
  },

  'disappearing keeps the first display; a change while hidden waits for the next appearance'() {
    const step = stepper();
    step(1, 'ana-appeared');
    step(2, 'ana-updated', update('A'));
    assert.deepEqual(step(3, 'ana-disappeared'),
      { visible: false, first: 'ana-appeared@1', value: 'A', valueFirst: 'ana-updated@2' });
    assert.deepEqual(step(4, 'ana-updated', update('C')),
      { visible: false, first: 'ana-appeared@1', value: 'C', valueFirst: null });
    assert.deepEqual(step(5, 'ana-appeared'),
      { visible: true, first: 'ana-appeared@1', value: 'C', valueFirst: 'ana-appeared@5' });
  },

  'a value hidden again and re-shown unchanged keeps its first display'() {
    const step = stepper();
    step(1, 'ana-appeared');
    step(2, 'ana-updated', update('A'));
    step(3, 'ana-disappeared');
    assert.deepEqual(step(4, 'ana-appeared').valueFirst, 'ana-updated@2');
  },

  'a null or undefined value is never displayed'() {
    const step = stepper();
    step(1, 'ana-appeared');
    step(2, 'ana-updated', update('A'));
    assert.deepEqual(step(3, 'ana-updated', update(null)),
      { visible: true, first: 'ana-appeared@1', value: null, valueFirst: null });
    step(4, 'ana-disappeared');
    assert.deepEqual(step(5, 'ana-appeared').valueFirst, null);
    assert.deepEqual(step(6, 'ana-updated', update(undefined)).valueFirst, null,
      'null to undefined is no change');
    assert.deepEqual(step(7, 'ana-updated', update('D')).valueFirst, 'ana-updated@7');
  },

  'values are compared by content'() {
    const step = stepper();
    step(1, 'ana-appeared');
    assert.deepEqual(step(2, 'ana-updated', update({ a: [1, 2] })).valueFirst, 'ana-updated@2');
    assert.deepEqual(step(3, 'ana-updated', update({ a: [1, 2] })).valueFirst, 'ana-updated@2');
    assert.deepEqual(step(4, 'ana-updated', update({ a: [1, 3] })).valueFirst, 'ana-updated@4');
    assert.deepEqual(step(5, 'ana-updated', update(4)).valueFirst, 'ana-updated@5');
    assert.deepEqual(step(6, 'ana-updated', update('4')).valueFirst, 'ana-updated@6',
      'a number and a string are different values');
  },

  'each key path has its own value and first display'() {
    let now = 0;
    const { manager, sent } = scripted((match) => match('probe', (node) => [
      node.latestValue('a'), shown(node.valueFirstDisplayedEvent('a')),
      node.latestValue('b'), shown(node.valueFirstDisplayedEvent('b')),
      shown(node.valueFirstDisplayedEvent('never')),
    ]), { now: () => now });
    manager.registerNode(1, null, 'root');
    now = 1; manager.recordEvent('ana-updated', { 'key-path': 'a', value: 1 }, 1);
    now = 2; manager.recordEvent('ana-appeared', null, 1);
    now = 3; manager.recordEvent('ana-updated', { 'key-path': 'b', value: 2 }, 1);
    manager.recordEvent('probe', null, 1);
    assert.deepEqual(sent(), [[1, 'ana-appeared@2', 2, 'ana-updated@3', null]]);
  },

  'visibility is per node'() {
    const { manager, sent } = scripted((match) => match('probe', (node) => node.isVisible()));
    manager.registerNode(1, null, 'root');
    manager.registerNode(2, 1, 'a');
    manager.registerNode(3, 1, 'b');
    manager.recordEvent('ana-appeared', null, 2);
    for (const id of [1, 2, 3]) manager.recordEvent('probe', null, id);
    assert.deepEqual(sent(), [false, true, false]);
  },

  'a display event is the very event tasks saw, and outlives the events kept'() {
    let now = 0;
    const seen = [];
    const { manager, sent } = scripted((match) => {
      match('ana-appeared', (node) => {
        seen.push(node.latestEvent());
        return node.latestEvent() === node.firstDisplayedEvent();
      });
      match('ana-updated', (node) => {
        seen.push(node.latestEvent());
        return node.valueFirstDisplayedEvent('title') === node.latestEvent();
      });
      match('probe', (node) => ({
        sameFirst: node.firstDisplayedEvent() === seen[0],
        sameValueFirst: node.valueFirstDisplayedEvent('title') === seen[1],
        first: node.firstDisplayedEvent().attributes,
        valueFirst: node.valueFirstDisplayedEvent('title').attributes,
        latest: node.latestEvent().attributes,
        oneLatest: node.latestEvent() === node.latestEvent(),
        kept: node._recentEvents().map((event) => `${event.name}@${event.time}`),
      }));
    }, { now: () => now });
    manager.registerNode(1, null, 'root');
    now = 1; manager.recordEvent('ana-appeared', { screen: 'home' }, 1);
    now = 2; manager.recordEvent('ana-updated', update('Hello'), 1);
    for (let i = 0; i < 25; i += 1) { now = 10 + i; manager.recordEvent('scroll', { y: i }, 1); }
    now = 40; manager.recordEvent('probe', null, 1);
    assert.deepEqual(sent(), [true, true, {
      sameFirst: true,
      sameValueFirst: true,
      first: { screen: 'home', time: 1 },
      valueFirst: { 'key-path': 'title', value: 'Hello', time: 2 },
      latest: { time: 40 },
      oneLatest: true,
      kept: ['scroll@26', 'scroll@27', 'scroll@28', 'scroll@29', 'scroll@30', 'scroll@31',
        'scroll@32', 'scroll@33', 'scroll@34', 'probe@40'],
    }]);
  },
};

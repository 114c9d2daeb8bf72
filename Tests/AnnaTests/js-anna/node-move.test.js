'use strict';
// Nodes that move: deregistering a node detaches its descendants, and registering a detached
// node's ID again (its host object stayed) takes it back under the new parent with its values,
// visibility and kept events. Deregistering the ID itself drops it for good.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

/** A manager whose `probe` task reports what the node holds. */
function probing() {
  return scripted((match) => match('probe', (node) => ({
    path: node.path,
    count: node.latestValue('count'),
    visible: node.isVisible(),
    shownBy: node.firstDisplayedEvent() === null ? null : node.firstDisplayedEvent().name,
    events: node._recentEvents().map((event) => event.name),
  })));
}

/** root 1 / screen 2 / button 3 / moved 4 (a screen that hung under the button). */
function tree(manager) {
  manager.registerNode(1, null, '__root__');
  manager.registerNode(2, 1, 'notes');
  manager.registerNode(3, 2, 'new');
  manager.registerNode(4, 3, 'notes');
  manager.recordEvent('ana-updated', { 'key-path': 'count', value: 7 }, 4);
  manager.recordEvent('ana-appeared', null, 4);
}

module.exports = {
  'a node whose ancestor goes keeps its values, visibility and events when registered again elsewhere'() {
    const { manager, sent } = probing();
    tree(manager);
    assert.equal(manager.deregisterNodes(2), 3, 'the screen, its button and the node below leave the tree');
    assert.equal(manager.stats().nodes, 1);
    manager.registerNode(4, 1, 'notes');
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent(), [{
      path: '/notes', count: 7, visible: true, shownBy: 'ana-appeared',
      events: ['ana-updated', 'ana-appeared', 'probe'],
    }]);
    assert.equal(manager.stats().nodes, 2);
  },

  'the deregistered node itself starts afresh'() {
    const { manager, sent } = probing();
    tree(manager);
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 3 }, 2);
    manager.deregisterNodes(2);
    manager.registerNode(2, 1, 'notes');
    manager.recordEvent('probe', null, 2);
    assert.deepEqual(sent(), [{ path: '/notes', count: undefined, visible: false, shownBy: null, events: ['probe'] }]);
  },

  'deregistering a detached node drops it: registered again, it starts afresh'() {
    const { manager, sent } = probing();
    tree(manager);
    manager.deregisterNodes(2);
    assert.equal(manager.deregisterNodes(4), 0, 'not in the tree');
    manager.registerNode(4, 1, 'notes');
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent()[0].events, ['probe']);
    assert.equal(sent()[0].count, undefined);
  },

  'a detached node registered under another name is a new node'() {
    const { manager, sent } = probing();
    tree(manager);
    manager.deregisterNodes(2);
    manager.registerNode(4, 1, 'main');
    manager.recordEvent('probe', null, 4);
    assert.deepEqual(sent(), [{ path: '/main', count: undefined, visible: false, shownBy: null, events: ['probe'] }]);
  },

  'keyed nodes under a detached owner move with their keys; deregistering the owner drops them'() {
    const { manager, sent } = probing();
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'screen');
    manager.registerNode(3, 2, 'table');
    manager.registerNode([3, 0, 4], 3, 'cell', 4);
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 1 }, [3, 0, 4]);
    manager.registerNode([3, 0, 5], 3, 'cell', 5);
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 2 }, [3, 0, 5]);
    manager.deregisterNodes(2);
    manager.registerNode(3, 1, 'table');
    manager.registerNode([3, 0, 4], 3, 'cell', 4);
    manager.recordEvent('probe', null, [3, 0, 4]);
    assert.equal(sent()[0].path, '/table/cell');
    assert.equal(sent()[0].count, 1);
    manager.deregisterNodes(3);
    manager.registerNode(3, 1, 'table');
    manager.registerNode([3, 0, 5], 3, 'cell', 5);
    manager.recordEvent('probe', null, [3, 0, 5]);
    assert.equal(sent()[1].count, undefined, 'row 5 went with its owner');
  },

  'a deregistered prefix drops the detached keyed nodes under it, not the others'() {
    const { manager, sent } = probing();
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'screen');
    manager.registerNode(3, 2, 'table');
    for (const section of [0, 1]) {
      manager.registerNode([3, section, 0], 3, 'cell', 0);
      manager.recordEvent('ana-updated', { 'key-path': 'count', value: section + 10 }, [3, section, 0]);
    }
    manager.deregisterNodes(2);
    manager.deregisterNodes([3, 0]);
    manager.registerNode(3, 1, 'table');
    manager.registerNode([3, 0, 0], 3, 'cell', 0);
    manager.registerNode([3, 1, 0], 3, 'cell', 0);
    manager.recordEvent('probe', null, [3, 0, 0]);
    manager.recordEvent('probe', null, [3, 1, 0]);
    assert.deepEqual(sent().map((result) => result.count), [undefined, 11]);
  },

  'detached nodes are bounded: of one removal, those nearest the top are kept'() {
    const { manager, sent } = probing();
    manager.registerNode(1, null, '__root__');
    manager.registerNode(2, 1, 'screen');
    manager.registerNode(3, 2, 'deep');
    manager.registerNode(4, 3, 'deeper');
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 4 }, 4);
    for (let id = 10; id < 1009; id += 1) {
      manager.registerNode(id, 2, 'label');
      manager.recordEvent('ana-updated', { 'key-path': 'count', value: id }, id);
    }
    assert.equal(manager.deregisterNodes(2), 1002);
    for (const id of [3, 1008, 4]) manager.registerNode(id, 1, id === 4 ? 'deeper' : id === 3 ? 'deep' : 'label');
    for (const id of [1008, 4]) manager.recordEvent('probe', null, id);
    assert.deepEqual(sent().map((result) => result.count), [1008, undefined], 'the 1,000 children were kept, the grandchild after them not');
  },

  'a moved node takes tasks by its new path and its descendants follow when they register again'() {
    const { manager, sent } = probing();
    tree(manager);
    manager.registerNode(5, 4, 'list');
    manager.recordEvent('ana-updated', { 'key-path': 'count', value: 5 }, 5);
    manager.deregisterNodes(2);
    manager.registerNode(4, 1, 'notes');
    manager.registerNode(5, 4, 'list');
    manager.recordEvent('probe', null, 5);
    assert.equal(sent()[0].path, '/notes/list');
    assert.equal(sent()[0].count, 5);
    assert.equal(manager.deregisterNodes(1), 3, 'the whole tree, moved nodes included');
  },
};

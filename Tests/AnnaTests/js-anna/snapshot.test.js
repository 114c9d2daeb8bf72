'use strict';
// Snapshots: the markup format (with escaping) and the json format with the same content.

const assert = require('./support/assert');
const { scripted, clock } = require('./support/fixtures');

/** root / master / list / item#0 with tasks and events, times from 100 on. */
function shopFloor() {
  const { manager } = scripted((match) => {
    match('/master/ana-appeared', () => undefined);
    match('list/item/did-select', () => undefined);
    match('did-select', () => undefined);
  }, { now: clock(100) });
  manager.registerNode(1, null, '__root__');
  manager.registerNode(2, 1, 'master', undefined, null, {
    title: 'Tom & "Jerry" <3>',
    note: "it's\nnew",
    data: { a: [1, 2] },
    id: 'reserved, not shown',
    gone: undefined,
  });
  manager.registerNode([2, 'list'], 2, 'list');
  manager.registerNode(3, [2, 'list'], 'item', 0);
  manager.recordEvent('ana-appeared', null, 2);
  manager.recordEvent('ana-updated', { 'key-path': 'title', value: 'A "b"' }, 3);
  manager.recordEvent('did-select', { time: 'reserved', class: 'reserved', flag: true, n: null }, 3);
  return manager;
}

const MARKUP = [
  '<__root__ id="1" class="ana-node" createdAt="100">',
  '  <match>',
  '    <branches length="1">',
  '      <did-select />',
  '    </branches>',
  '    <tasks length="1">',
  '      <task path="did-select" file="index.js" />',
  '    </tasks>',
  '  </match>',
  '  <master id="2" class="ana-node" createdAt="101" title="Tom &amp; &quot;Jerry&quot; &lt;3&gt;" ' +
    'note="it&#39;s&#10;new" data="{&quot;a&quot;:[1,2]}">',
  '    <match>',
  '      <branches length="2">',
  '        <ana-appeared />',
  '        <did-select />',
  '      </branches>',
  '      <tasks length="2">',
  '        <task path="/master/ana-appeared" file="index.js" />',
  '        <task path="did-select" file="index.js" />',
  '      </tasks>',
  '    </match>',
  '    <ana-appeared class="ana-event" time="104" />',
  '    <list id="2/list" class="ana-node" createdAt="102">',
  '      <match>',
  '        <branches length="1">',
  '          <did-select />',
  '        </branches>',
  '        <tasks length="1">',
  '          <task path="did-select" file="index.js" />',
  '        </tasks>',
  '      </match>',
  '      <item id="3" class="ana-node" createdAt="103" index="0">',
  '        <match>',
  '          <branches length="1">',
  '            <did-select />',
  '          </branches>',
  '          <tasks length="2">',
  '            <task path="list/item/did-select" file="index.js" />',
  '            <task path="did-select" file="index.js" />',
  '          </tasks>',
  '        </match>',
  '        <ana-updated key-path="title" value="A &quot;b&quot;" class="ana-event" time="105" />',
  '        <did-select flag="true" n="null" class="ana-event" time="106" />',
  '      </item>',
  '    </list>',
  '  </master>',
  '</__root__>',
].join('\n');

const DIGEST_ALL = { branches: ['did-select'], tasks: [{ path: 'did-select', file: 'index.js' }] };

const JSON_SNAPSHOT = {
  root: {
    name: '__root__', id: '1', createdAt: 100, index: null, attributes: {},
    match: DIGEST_ALL,
    events: [],
    children: [{
      name: 'master', id: '2', createdAt: 101, index: null,
      attributes: { title: 'Tom & "Jerry" <3>', note: "it's\nnew", data: { a: [1, 2] } },
      match: {
        branches: ['ana-appeared', 'did-select'],
        tasks: [{ path: '/master/ana-appeared', file: 'index.js' }, { path: 'did-select', file: 'index.js' }],
      },
      events: [{ name: 'ana-appeared', time: 104, properties: {} }],
      children: [{
        name: 'list', id: '2/list', createdAt: 102, index: null, attributes: {},
        match: DIGEST_ALL,
        events: [],
        children: [{
          name: 'item', id: '3', createdAt: 103, index: 0, attributes: {},
          match: {
            branches: ['did-select'],
            tasks: [{ path: 'list/item/did-select', file: 'index.js' }, { path: 'did-select', file: 'index.js' }],
          },
          events: [
            { name: 'ana-updated', time: 105, properties: { 'key-path': 'title', value: 'A "b"' } },
            { name: 'did-select', time: 106, properties: { flag: true, n: null } },
          ],
          children: [],
        }],
      }],
    }],
  },
};

module.exports = {
  'markup: nodes, <match> digest and last events, attribute values escaped'() {
    assert.equal(shopFloor().snapshot('markup'), MARKUP);
  },

  'markup is the default format'() {
    const manager = shopFloor();
    assert.equal(manager.snapshot(), MARKUP);
    assert.equal(manager.snapshot(null), MARKUP);
  },

  'json: the same content, as a string'() {
    const text = shopFloor().snapshot('json');
    assert.equal(typeof text, 'string');
    assert.deepEqual(JSON.parse(text), JSON_SNAPSHOT);
  },

  'names with special characters are escaped too'() {
    const { manager } = scripted(() => {}, { now: () => 1 });
    manager.registerNode(1, null, 'my "root"');
    manager.recordEvent('did select', { 'a b': '<x>' }, 1);
    assert.equal(manager.snapshot(), [
      '<my&#32;&quot;root&quot; id="1" class="ana-node" createdAt="1">',
      '  <did&#32;select a&#32;b="&lt;x&gt;" class="ana-event" time="1" />',
      '</my&#32;&quot;root&quot;>',
    ].join('\n'));
    const root = JSON.parse(manager.snapshot('json')).root;
    assert.equal(root.name, 'my "root"');
    assert.deepEqual(root.events, [{ name: 'did select', time: 1, properties: { 'a b': '<x>' } }]);
  },

  'a node without tasks, events or children is one self-closed element'() {
    const { manager } = scripted(() => {}, { now: () => 9 });
    manager.registerNode([4, 'k', 2], null, 'solo', 5);
    assert.equal(manager.snapshot(), '<solo id="4/k/2" class="ana-node" createdAt="9" index="5" />');
  },

  'an empty tree'() {
    const { manager } = scripted(() => {});
    assert.equal(manager.snapshot('markup'), '');
    assert.equal(manager.snapshot('json'), '{"root":null}');
  },

  'an unknown format is an error'() {
    const { manager } = scripted(() => {});
    const error = assert.throws(() => manager.snapshot('xml'),
      'Unknown snapshot format "xml": use \'markup\' or \'json\'.');
    assert.equal(error.name, 'AnnaError');
  },

  'logSnapshot writes the markup through console.log'() {
    const manager = shopFloor();
    const logged = [];
    const original = console.log;
    console.log = (...args) => { logged.push(args); };
    try {
      manager.logSnapshot();
    } finally {
      console.log = original;
    }
    assert.deepEqual(logged, [[MARKUP]]);
  },

  'the snapshot shows the last 10 events in both formats'() {
    const { manager } = scripted(() => {}, { now: clock(0) });
    manager.registerNode(1, null, 'root');
    for (let i = 0; i < 11; i += 1) manager.recordEvent(`e${i}`, null, 1);
    const lines = manager.snapshot().split('\n');
    assert.equal(lines.length, 12);
    assert.equal(lines[1], '  <e1 class="ana-event" time="2" />');
    assert.equal(lines[10], '  <e10 class="ana-event" time="11" />');
    assert.equal(JSON.parse(manager.snapshot('json')).root.events.length, 10);
  },

  'taking a snapshot does not grow the task caches'() {
    const manager = shopFloor();
    const before = manager.stats();
    manager.snapshot();
    manager.snapshot('json');
    assert.deepEqual(manager.stats(), before);
  },
};

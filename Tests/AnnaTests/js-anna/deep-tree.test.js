'use strict';
// Deep trees: a chain of nested nodes costs memory linear in its length (a path is its
// parent path and a name; long path strings are not kept), and snapshots of any depth come
// out whole, in walks without recursion, linear in the nodes.

const assert = require('./support/assert');
const { scripted } = require('./support/fixtures');

const DEPTH = 20000;

/** Registers root (ID 1) / n / n / ...: `depth` nested nodes, the one at depth d with ID d + 1. */
function chain(manager, depth) {
  manager.registerNode(1, null, '__root__');
  for (let id = 2; id <= depth + 1; id += 1) manager.registerNode(id, id - 1, 'n');
  return depth + 1;
}

/** '/n/n/…/n' with `depth` names. */
function chainPath(depth) {
  return '/n'.repeat(depth);
}

function count(text, part) {
  return text.split(part).length - 1;
}

/** Every node of a parsed json snapshot, walked without recursion: [{ node, depth }]. */
function parsedNodes(root) {
  const found = [];
  const stack = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const entry = stack.pop();
    found.push(entry);
    for (const child of entry.node.children) stack.push({ node: child, depth: entry.depth + 1 });
  }
  return found;
}

function deepModule() {
  return scripted((match) => {
    match('n/n/tap', (node) => {
      const far = node.ancestor(DEPTH - 1);
      return { name: node.nodeName, top: far === null ? null : far.path };
    });
    match('/n/n/tap', () => 'second level');
    match('tap', (node) => node.path.length);
  }, { now: () => 7 });
}

/**
 * A chain `depth` deep: tasks at its deepest node and on the first 100 levels send results,
 * and the path text the core holds stays linear in the nodes: the meta of the deepest node's
 * results has its whole path, the first levels keep their short paths, and that is all (a
 * path string per node would be depth² characters: 400 million at 20,000 levels).
 */
function checkChain(depth) {
  const { manager, results } = deepModule();
  const deepest = chain(manager, depth);
  manager.recordEvent('tap', null, deepest);
  for (let id = 2; id <= 101; id += 1) manager.recordEvent('tap', null, id);
  assert.deepEqual(results.slice(0, 2).map((r) => r.result), [{ name: 'n', top: chainPath(depth - DEPTH + 1) }, 2 * depth]);
  assert.equal(results[0].meta.path, chainPath(depth), "the result's meta has the whole path");
  assert.deepEqual(results.slice(3, 6).map((r) => [r.result, r.meta.path]), [
    [{ name: 'n', top: null }, '/n/n'], ['second level', '/n/n'], [4, '/n/n'],
  ]);
  const stats = manager.stats();
  assert.deepEqual([stats.nodes, stats.paths], [depth + 1, depth]);
  assert.ok(stats.pathText / stats.nodes < 4, `${stats.pathText} characters of paths for ${stats.nodes} nodes`);
  return manager;
}

module.exports = {
  'a chain of 20,000 nested nodes: the deepest node matches tasks and sends results; path text stays linear in the nodes'() {
    checkChain(DEPTH);
  },

  'deregistering a deep chain releases its nodes and paths, and the paths can be held again'() {
    const { manager, sent } = deepModule();
    chain(manager, DEPTH);
    assert.equal(manager.deregisterNodes(DEPTH / 2 + 1), DEPTH / 2 + 1, 'depth 10,000 and below');
    assert.deepEqual([manager.stats().nodes, manager.stats().paths], [DEPTH / 2, DEPTH / 2 - 1]);
    manager.registerNode(-1, DEPTH / 2, 'n');
    manager.registerNode(-2, DEPTH / 2, 'm');
    manager.recordEvent('tap', null, -1);
    manager.recordEvent('tap', null, -2);
    assert.deepEqual(sent().filter((result) => typeof result === 'number'), [DEPTH, DEPTH]);
    assert.equal(manager.stats().paths, DEPTH / 2 + 1);
    assert.equal(manager.deregisterNodes(1), DEPTH / 2 + 2);
    assert.deepEqual([manager.stats().nodes, manager.stats().paths, manager.stats().pathText], [0, 0, 0]);
  },

  'snapshots of a 20,000-deep chain are whole in both formats, linear in the nodes'() {
    const { manager } = deepModule();
    const deepest = chain(manager, DEPTH);
    manager.recordEvent('tap', { at: 'bottom' }, deepest);
    const markup = manager.snapshot('markup');
    assert.ok(markup.startsWith('<__root__ id="1" class="ana-node" createdAt="7">\n'));
    assert.ok(markup.endsWith('\n</__root__>'));
    assert.equal(count(markup, '<n id='), DEPTH);
    assert.equal(count(markup, '</n>'), DEPTH);
    assert.ok(markup.includes(`\n${' '.repeat(64)}<n id="${deepest}" class="ana-node" createdAt="7">\n`),
      'the deepest node is indented as level 32');
    assert.ok(markup.includes(`\n${' '.repeat(64)}<tap at="bottom" class="ana-event" time="7" />\n`));
    // A node here is 11 lines of at most 64 spaces of indent and about 60 characters.
    assert.ok(markup.length / DEPTH < 1400, `${markup.length} characters of markup`);

    const json = manager.snapshot('json');
    assert.ok(json.length / DEPTH < 256, `${json.length} characters of json`);
    const nodes = parsedNodes(JSON.parse(json).root);
    assert.equal(nodes.length, DEPTH + 1);
    const bottom = nodes[nodes.length - 1];
    assert.equal(bottom.depth, DEPTH);
    assert.deepEqual(bottom.node, {
      name: 'n', id: String(deepest), createdAt: 7, index: null, attributes: {},
      match: {
        branches: ['tap'],
        tasks: [{ path: 'n/n/tap', file: 'index.js' }, { path: 'tap', file: 'index.js' }],
      },
      events: [{ name: 'tap', time: 7, properties: { at: 'bottom' } }],
      children: [],
    });
  },

  'a chain of 100,000 nested nodes: results, path text linear in the nodes, and both snapshots'() {
    const depth = 5 * DEPTH;
    const manager = checkChain(depth);
    assert.equal(count(manager.snapshot('markup'), '</n>'), depth);
    assert.equal(parsedNodes(JSON.parse(manager.snapshot('json')).root).length, depth + 1);
  },

  'markup indents two spaces per level up to level 32, and no further'() {
    const { manager } = scripted(() => {}, { now: () => 1 });
    chain(manager, 40);
    manager.recordEvent('tap', null, 41);
    const lines = manager.snapshot().split('\n');
    const indents = lines.map((line) => line.length - line.trimStart().length);
    assert.deepEqual(indents.slice(0, 41), Array.from({ length: 41 }, (_, depth) => 2 * Math.min(depth, 32)));
    assert.equal(lines[41], `${' '.repeat(64)}<tap class="ana-event" time="1" />`, "the deepest node's event");
    assert.equal(lines[42], `${' '.repeat(64)}</n>`);
    assert.equal(lines[lines.length - 1], '</__root__>');
    assert.equal(lines.length, 41 + 1 + 41);
  },
};

// Tasks for every node, so the tests see each event the kit records, with where it happened.
const TRACED = ['ana-appeared', 'ana-disappeared', 'did-select', 'touch-up-inside', 'ping'];
for (const event of TRACED) {
  match(event, (node) => ({ event, path: node.path, index: node.index }));
}

match('ana-updated', (node) => {
  const attributes = node.latestEvent().attributes;
  return { event: 'ana-updated', path: node.path, index: node.index, keyPath: attributes['key-path'], value: attributes.value };
});

// Which event first showed the badge's count (first-displayed semantics).
match(['badge/ana-appeared', 'badge/ana-updated'], (node) => {
  const shown = node.valueFirstDisplayedEvent('count');
  return {
    probe: 'badge',
    count: node.latestValue('count'),
    visible: node.isVisible(),
    shownBy: shown === null ? null : shown.name,
  };
});

// Sections: which section a selected cell is in.
match('table/*/cell/did-select', (node) => ({ probe: 'section', section: node.parentNode.nodeName, sectionIndex: node.parentNode.index, row: node.index }));

// Many threads: each tick carries its thread and sequence number.
match('tick', (node) => {
  const attributes = node.latestEvent().attributes;
  return { path: node.path, thread: attributes.thread, seq: attributes.seq };
});

// A task that fails, for didCatch.
match('explode', () => { throw new Error('the task exploded on purpose'); });

// Collections: what an item's node holds when it appears (kept values survive reuse).
match('grid/tile/ana-appeared', (node) => {
  const likes = node.latestValue('likes');
  return { probe: 'tile', index: node.index, likes: likes === undefined ? null : likes };
});

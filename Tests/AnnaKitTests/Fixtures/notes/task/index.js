// Screen views of notes screens at the root, with the count each shows.
const count = (node) => (node.latestValue('count') === undefined ? null : node.latestValue('count'));
match('/notes/ana-appeared', (node) => ({ event: 'screen_view', path: node.path, count: count(node) }));
match('/notes/ana-disappeared', (node) => ({ event: 'screen_leave', path: node.path, count: count(node) }));
// Where a node is and what it holds: its values, visibility and the events it kept.
match('probe', (node) => ({
  event: 'probe',
  path: node.path,
  count: count(node),
  pinned: node.latestValue('pinned') === undefined ? null : node.latestValue('pinned'),
  visible: node.isVisible(),
  shownBy: node.firstDisplayedEvent() === null ? null : node.firstDisplayedEvent().name,
}));
// Every value update, to see which values were recorded.
match('ana-updated', (node) => {
  const attributes = node.latestEvent().attributes;
  return { event: 'ana-updated', path: node.path, keyPath: attributes['key-path'], value: attributes.value === undefined ? null : attributes.value };
});

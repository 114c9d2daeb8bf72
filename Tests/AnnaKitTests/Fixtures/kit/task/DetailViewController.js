// Loaded when a detail's node registers: a detail opened from a cell hangs under the cell.
match('master/table/cell/detail/button/touch-up-inside', (node) => ({
  action: 'detail-button',
  from: node.ancestor(2).path,
  row: node.ancestor(2).index,
}));
match('master/more/detail/button/touch-up-inside', (node) => ({ action: 'detail-button', from: node.ancestor(2).path }));

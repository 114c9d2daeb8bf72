// Loaded when the master's node registers (namespace `MasterViewController`).
match('master/table/cell/did-select', (node) => ({ action: 'selected', id: node.path, row: node.index }));

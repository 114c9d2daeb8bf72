// The tasks of the reference's tests (Anna_iOS_Tests) in TypeScript, one block per test, as
// in ../../original/task/index.js: each result says which test it answers.
import type { AnnaNode } from 'anna';
import * as T from 'tool';

/** What a task of the reference's tests answers: the test's name and its value. */
interface Answer<Value> {
  test: string;
  value: Value;
}

function answer<Value>(test: string, patterns: string | string[], compute: (node: AnnaNode) => Value | undefined): void {
  match(patterns, (node: AnnaNode): Answer<Value> | undefined => {
    const value = compute(node);
    return value === undefined ? undefined : { test, value };
  });
}

// PathTests
answer('path.deregister', 'vc/delta/gamma/touch-up-inside', () => 42);
answer('path.dataDisplaysOnView', ['vw/ana-updated', 'vw/ana-appeared'], (n) => T.first_displayed(n, 'text'));
answer('path.dataDisplaysOnViewController', ['vc/ana-updated', 'vc/ana-appeared'], (n) => T.first_displayed(n, 'text'));
answer('path.navigatedControllers', '/nv/ms/dt/ana-appeared', () => 42);
answer('path.tabController', '/tb/one/ana-appeared', () => 42);
answer('path.tabController', '/tb/two/ana-appeared', () => 43);
answer('path.customRootTabBarController', '/nv/home/two/detail/ana-appeared', () => 42);

// FocusTests
answer('focus.button', 'master/bt/detail/ana-appeared', () => 42);
answer('focus.table', 'master/table/19/row/detail/ana-appeared', () => 42);
answer('focus.standaloneName', 'master/table/cell/button/detail/ana-appeared', () => 42);

// TableViewTests
const shownRows = ['0/0', '3/7'];
answer('table.tableView', ['tb/sc_0/rw/ana-appeared', 'tb/sc_3/rw/ana-appeared'], (n): string | undefined => {
  const id = n.latestValue('identifier');
  if (typeof id !== 'string' || !shownRows.includes(id)) { return undefined; }
  if (!T.first_displayed(n, 'identifier')) { return undefined; }
  return id + '_appeared';
});
answer('table.tableView', ['tb/sc_0/rw/ana-updated', 'tb/sc_3/rw/ana-updated'], (n): string | undefined => {
  const id = n.latestValue('identifier');
  if (typeof id !== 'string' || !shownRows.includes(id)) { return undefined; }
  const e = n.latestEvent()!;
  const keyPath = e.attributes['key-path'];
  if (keyPath === 'identifier') { return undefined; }
  return `${keyPath}_${e.attributes.value}`;
});
answer('table.cellSubviews', ['tb/sc_0/rw/ana-appeared', 'tb/sc_19/rw/ana-appeared'], (n) => {
  if (!T.first_displayed(n)) { return undefined; }
  return 'cell-' + n.parentNode!.nodeName;
});
answer('table.cellSubviews', ['tb/sc_0/rw/vw/bt/touch-up-inside', 'tb/sc_19/rw/vw/bt/touch-up-inside'],
  (n) => 'button-' + n.ancestor(3)!.nodeName);
answer('table.cellSubviews', ['tb/sc_0/rw/vw/bt/ana-updated', 'tb/sc_19/rw/vw/bt/ana-updated'],
  (n) => n.latestEvent()!.attributes.value);
answer('table.sectionAppeared', 'tb/sc_0/ana-appeared', () => 42);
answer('table.sectionAppeared', 'tb/sc_19/ana-appeared', () => 43);

// ReuseTests
answer('reuse.inherit', 'tb/rw/vw/ana-updated', (n): number | undefined => {
  if (n.ancestor(1)?.index !== 0) { return undefined; }
  const first = n.latestValue('count_10') as number;
  const second = n.latestValue('count_11') as number | undefined;
  return first + (second ?? 0);
});
answer('reuse.unownedSub', 'tb/rw/vc/ana-disappeared', () => 42);
answer('reuse.reloadData', 'tb/rw/ana-updated', (n) => {
  if (n.latestValue('trigger') !== 7) { return undefined; }
  return n.latestValue('answer') === undefined ? 42 : undefined;
});

// AnalyzableComponentTests
answer('component.keys', 'vc/view/buttons/touch-up-inside', (n) => n.index);

// ControlTests
answer('control.button', 'vc/bt/touch-up-inside', () => 42);

// CollectionViewTests
answer('collection.sectionAppeared', 'tb/sc_0/ana-appeared', () => 42);
answer('collection.sectionAppeared', 'tb/sc_19/ana-appeared', () => 43);

// Types of Anna's analytics core, for task authors and hosts (docs/core.md describes it).
//
// A task file sees the global `match` while it runs:
//
//   match('master/table/cell/did-select', (node) => ({ row: node.index, title: node.latestValue('title') }));
//
// and a task may return an analytics call made by the globals `track`, `screen`, `identify`:
//
//   match('home/products/cell/did-select', (node) => track('Product Viewed', { index: node.index }));
//
// and an analytics module's index.js exports the core configured for its task folder:
//
//   module.exports = require('anna').configured({ task: __dirname + '/task' });

/** A recorded event, as `node.latestEvent()` and the display getters give it. */
export interface AnnaEvent {
  /** The event name (`ana-appeared`, `did-select`, ...). */
  readonly name: string;
  /** The event name again (the name of the event's element in snapshots). */
  readonly nodeName: string;
  /** When it was recorded, in milliseconds since 1970 (the host's clock). */
  readonly time: number;
  /** The event's properties plus `time`. */
  readonly attributes: { readonly [property: string]: unknown; readonly time: number };
  toJSON(): { nodeName: string; attributes: { [property: string]: unknown; time: number } };
}

/** A node of the focus-path tree: what a task's function receives. */
export interface AnnaNode {
  /** The node's name. */
  readonly nodeName: string;
  /** The index given at registration, or null. */
  readonly index: number | null;
  /** `/master/table/cell`; the root's path is `''`. */
  readonly path: string;
  /** The parent node, or null for the root. */
  readonly parentNode: AnnaNode | null;
  /** A copy of the registration attributes (`{}` when none). */
  readonly attributes: { [attribute: string]: unknown };
  /**
   * The ancestor `distance` steps up: 0 (or none) is the node, 1 its parent; null above the
   * root. A negative or fractional distance throws.
   */
  ancestor(distance?: number): AnnaNode | null;
  /** The latest event (during a task: the one being handled), or null. */
  latestEvent(): AnnaEvent | null;
  /** The value of the latest `ana-updated` for `keyPath`, or undefined. */
  latestValue(keyPath: string): unknown;
  /** Whether the latest visibility event was `ana-appeared` (false at first). */
  isVisible(): boolean;
  /** The `ana-appeared` that first made the node visible, or null. */
  firstDisplayedEvent(): AnnaEvent | null;
  /** The event that first showed the current value of `keyPath`, or null. */
  valueFirstDisplayedEvent(keyPath: string): AnnaEvent | null;
  /** What a node in a result is sent as. */
  toJSON(): { name: string; index: number | null; path: string };
}

/**
 * A task's function: it gets the node the event happened on. Whatever it returns other than
 * `undefined` is sent to the host as JSON-like data (functions and symbols are dropped).
 */
export type TaskFunction = (node: AnnaNode) => unknown;

declare global {
  /**
   * Declares a task (only while a task file runs): `fn` runs for the events the pattern names.
   * A pattern is node names and the event, `/`-separated: `master/table/cell/did-select`
   * (relative: the path ends so), `/master/ana-appeared` (anchored: the whole path), `*` for
   * any one node name, `tap` for every node. A list of patterns is one task that runs at
   * most once per event.
   */
  function match(pattern: string | string[], fn: TaskFunction): void;
  /** A track call for a task to return: `event` happened, with `properties`. */
  function track(event: string, properties?: { [property: string]: unknown }): TrackCall;
  /** A screen call for a task to return: screen `name` was shown, with `properties`. */
  function screen(name: string, properties?: { [property: string]: unknown }): ScreenCall;
  /** An identify call for a task to return: the user is `userId` from now on, with `traits`. */
  function identify(userId: string, traits?: { [trait: string]: unknown }): IdentifyCall;
  /** The folder of the module file that reads it (each module file runs wrapped, as in Node). */
  var __dirname: string;
  /** The module file that reads it. */
  var __filename: string;
  /** What task files may print: each call is one line on the host's console. */
  interface Console {
    log(...data: unknown[]): void;
    info(...data: unknown[]): void;
    debug(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
  }
  var console: Console;
}

/** What `track` returns (a plain result of this shape is a track too). */
export interface TrackCall {
  type: 'track';
  event: string;
  properties: { [property: string]: unknown };
}

/** What `screen` returns. */
export interface ScreenCall {
  type: 'screen';
  name: string;
  properties: { [property: string]: unknown };
}

/** What `identify` returns. */
export interface IdentifyCall {
  type: 'identify';
  userId: string;
  traits: { [trait: string]: unknown };
}

/** What `receive` gets with each result: frozen, shared by a task's results on one path. */
export interface ResultMeta {
  readonly task: string;
  readonly path: string;
  readonly event: string;
}

/** One failed task of a `TaskError` (`errors`). `file`, `line`, `column`: the task's `match` call. */
export interface TaskFailureEntry {
  task: string;
  path: string;
  event: string;
  file: string;
  line: number | null;
  column: number | null;
  message: string;
  stack?: string;
  /** Where it threw, when known. */
  errorFile?: string;
  errorLine?: number;
  errorColumn?: number;
}

/** What `manager.coverage()` returns. */
export interface Coverage {
  taskFolder: string;
  tasks: { task: string; file: string; line: number | null; column: number | null; matches: number; failures: number }[];
  files: { file: string; status: 'loaded' | 'missing' | 'failed'; tasks: number; error?: string }[];
  namespaces: { namespace: string; file: string; hasTaskFile: boolean }[];
}

export interface ManagerConfig {
  /** Reload task files on every registration. */
  debug?: boolean;
  /** The clock, in milliseconds since 1970 (default `Date.now`). */
  now?: () => number;
  /**
   * Gets problems that are no operation's failure: a `ResultWarning` the first time a task's
   * result loses a function or symbol, an async task's `TaskError`, a `BuiltInError`.
   */
  report?: (problem: Error) => void;
  /** Puts back the built-ins a task file replaced; returns the error saying so, or null. */
  checkBuiltIns?: (when: string) => Error | null;
  /** The host's mark of the operation running now, kept with each async task (`queuedAt`). */
  position?: () => unknown;
}

/** The manager a host drives (the module protocol). */
export interface AnnaManager {
  registerNode(
    id: number | (string | number)[], parentID: number | (string | number)[] | null | undefined, name: string,
    index?: number | null, namespace?: string | null, attributes?: { [attribute: string]: unknown } | null): void;
  deregisterNodes(id: number | (string | number)[]): number;
  recordEvent(name: string, properties: { [property: string]: unknown } | null | undefined, nodeID: number | (string | number)[]): void;
  logSnapshot(): void;
  snapshot(format?: 'markup' | 'json'): string;
  runningTask():
    | {
        task: string; file: string; line: number | null; column: number | null; path: string; event: string;
        async?: boolean; queuedAt?: unknown;
      }
    | { file: string }
    | null;
  /** The oldest async task whose code after `await` has not run yet, or null. */
  waitingTask():
    | {
        task: string; file: string; line: number | null; column: number | null; path: string; event: string;
        async: true; queuedAt?: unknown;
      }
    | null;
  /** True while the core itself calls `then` on an async task's promise. */
  readonly coreThen: boolean;
  resumeEvent(): boolean;
  abandonPendingTasks(): number;
  coverage(): Coverage;
  reloadTaskFile(file: string): boolean;
  /** Switches a task file's tasks off (events no longer reach them) or back on; returns its loaded task count. */
  setTaskFileEnabled(file: string, enabled: boolean): number;
  disabledTaskFiles(): string[];
  /** Debug mode: task files re-required on every load. */
  setDebug(debug: boolean): void;
  taskFiles(): string[];
}

/** The constructor `configured` returns; works with and without `new`. */
export interface AnnaModule {
  new (receive: (result: unknown, meta: ResultMeta) => void, config?: ManagerConfig): AnnaManager;
  (receive: (result: unknown, meta: ResultMeta) => void, config?: ManagerConfig): AnnaManager;
  readonly taskDirectory: string;
}

/** The core configured for a task folder (an absolute path: `__dirname + '/task'`). */
export function configured(options: { task: string }): AnnaModule;

export const track: typeof globalThis.track;
export const screen: typeof globalThis.screen;
export const identify: typeof globalThis.identify;

/** Parses a pattern as `match` does; throws a `PatternError` naming `file` when it is malformed. */
export function parsePattern(text: string, file?: string): { text: string; anchored: boolean; steps: string[]; event: string };

/** Runs one task file for `anna check`: its patterns and every problem, with lines. */
export function checkTaskFile(file: string): {
  patterns: { line: number | null; pattern: string }[];
  problems: { line: number | null; message: string }[];
};

export class AnnaError extends Error {}
export class NodeError extends AnnaError {}
export class PatternError extends AnnaError {}
export class LoadError extends AnnaError {
  file: string;
  cause: unknown;
}
export class TaskError extends AnnaError {
  errors: TaskFailureEntry[];
}
export class ResultWarning extends AnnaError {
  task: string;
  path: string;
  event: string;
  file: string;
  line: number | null;
  column: number | null;
}

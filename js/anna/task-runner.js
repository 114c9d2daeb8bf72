'use strict';
// The task runner: runs the tasks an event matched, in load order, and sends their results
// to the host's `receive` as plain data (sendable.js), an async task's when its promise
// settles. It knows the task running now (for a host whose time limit stopped it: resume()
// goes on after it, running() names it) and the async tasks not settled yet. A task that
// throws fails alone: the others run, and the failures are thrown together as a TaskError.
// The manager (manager.js) owns one and hands it each event's tasks.

const { AnnaError, ResultWarning, messageOf, stackOf, taskFailure } = require('./errors');
const { toSendable, droppedByLast, THENABLE } = require('./sendable');
const { firstFrame, place: placeOf, isInside } = require('./stack-frames');

const apply = Reflect.apply;

class TaskRunner {
  /**
   * @param {(result, meta) => void} receive the host's receiver of results
   * @param {((problem: Error) => void) | null} report the host's taker of problems (config.report)
   * @param {(() => unknown) | null} position the host's mark of the operation running now
   * @param {TaskLoader} loader the manager's task loader (its folder, the file loading now)
   */
  constructor(receive, report, position, loader) {
    // The host's hooks (config) and the manager's loader (its folder, the file loading now).
    [this._receive, this._report, this._position, this._loader] = [receive, report, position, loader];
    // Set while the core itself calls `then` on an async task's promise (see _sendLater).
    this.coreThen = false;
    // The task whose function runs now (see running()), else null.
    this._task = null;
    this._list = []; // the tasks of the event being recorded, and their metas
    this._metas = [];
    this._pending = []; // { task, meta } of async tasks whose promise has not settled
    this._node = null; // the node of the event whose tasks run now
  }

  /** Forgets the task a stop left running (a new operation begins). */
  clear() {
    this._task = null;
  }

  /**
   * Runs `tasks` (with their `metas`) on `node`, the node of the event being recorded.
   * @throws {TaskError} after all tasks ran, when some threw
   */
  run(node, tasks, metas) {
    this._list = tasks; // running() finds the meta of the task by its place here
    this._metas = metas;
    this._node = node;
    this._run(0);
  }

  /**
   * After the host's time limit stopped a task of the event being recorded, runs the tasks
   * after it (the stopped one counts as failed), as run would have.
   * @returns {boolean} whether a stopped task was found (false: nothing ran)
   * @throws {TaskError} like run, when some of them threw
   */
  resume() {
    const task = this._task;
    if (task === null || this._node === null) return false;
    task.failures += 1;
    this._task = null;
    this._run(this._list.indexOf(task) + 1);
    return true;
  }

  /** Runs the tasks of the event being recorded from `from` on. */
  _run(from) {
    const tasks = this._list;
    const metas = this._metas;
    const node = this._node;
    let failures = null;
    for (let i = from; i < tasks.length; i += 1) {
      const task = tasks[i];
      const meta = metas[i];
      task.matches += 1;
      // Set while the task's function runs and its result is read (getters, proxies and
      // toJSON run then), and left set when the host's time limit stops it, so that
      // runningTask() names it and resumeEvent() goes on after it.
      this._task = task;
      try {
        const result = task.fn(node);
        if (result !== undefined) {
          const type = typeof result;
          if (type === 'object' || type === 'function' || type === 'symbol' || type === 'bigint') this._send(result, task, meta);
          else this._receive(result, meta);
        }
      } catch (error) {
        task.failures += 1;
        if (failures === null) failures = [];
        failures[failures.length] = this._failure(task, meta, error);
      }
      this._task = null;
    }
    this._node = null;
    if (failures !== null) throw taskFailure(failures);
  }

  /**
   * Sends a task's result as plain data (see sendable.js). A promise's value is sent when it
   * settles, and its rejection reported as the task's failure (config.report).
   */
  _send(result, task, meta) {
    const sendable = toSendable(result);
    if (sendable === THENABLE) {
      this._sendLater(result, task, meta);
      return;
    }
    const dropped = droppedByLast();
    if (dropped !== null) this._warnDropped(dropped, task, meta);
    if (sendable !== undefined) this._receive(sendable, meta);
  }

  /** Sends what an async task's promise resolves to; reports what it rejects with. */
  _sendLater(promise, task, meta) {
    // Where it was queued (a host's [batch, operation], see config.position), to place what
    // its code after await does.
    const entry = { task, meta, queuedAt: this._position === null ? null : this._position() };
    this._pending.push(entry);
    const settled = (run) => (value) => {
      const at = this._pending.indexOf(entry);
      if (at !== -1) this._pending.splice(at, 1);
      const running = [this._task, this._list, this._metas];
      this._task = task;
      this._list = [task];
      this._metas = [meta];
      try {
        run(value);
      } catch (error) {
        this._reportLate(task, meta, error, entry.queuedAt);
      }
      [this._task, this._list, this._metas] = running;
    };
    const then = promise.then;
    // The core's own callbacks are not the task's promise jobs (a host that tracks those by
    // the running task leaves the core's `then` alone while this is set).
    this.coreThen = true;
    try {
      apply(then, promise, [
        settled((value) => {
          if (value !== undefined) this._send(value, task, meta);
        }),
        settled((error) => { this._reportLate(task, meta, error, entry.queuedAt); }),
      ]);
    } finally {
      this.coreThen = false;
    }
  }

  /**
   * After the host's time limit stopped a promise job: the promise jobs queued after it are
   * dropped, so the async tasks still waiting never settle. Each is reported as its task's
   * failure (the first, whose job was stopped, the host names itself) and forgotten.
   * @returns {number} how many were reported
   */
  abandonPending() {
    const abandoned = this._pending.slice(1);
    this._pending = [];
    for (const { task, meta, queuedAt } of abandoned) {
      this._reportLate(task, meta, new AnnaError('its code after await never ran: the time limit stopped a promise job ' +
        'queued before it, and the jobs queued after that one were dropped.'), queuedAt);
    }
    return abandoned.length;
  }

  /** Reports an async task's failure, counted with its runs, through config.report. */
  _reportLate(task, meta, error, queuedAt) {
    task.failures += 1;
    const failure = taskFailure([this._failure(task, meta, error)]);
    // Where the task was queued, for the host to place the report (not a field it shows).
    if (queuedAt !== undefined && queuedAt !== null) {
      Object.defineProperty(failure, 'queuedAt', { value: queuedAt, configurable: true, writable: true });
    }
    if (this._report !== null) this._report(failure);
    else throw failure;
  }

  /** The first time a task's result loses a function or symbol, config.report gets a ResultWarning. */
  _warnDropped(found, task, meta) {
    if (task.warned || this._report === null) return;
    task.warned = true;
    const where = this._describeTask(task);
    const at = found.path === '' ? '' : ` at ${found.path}`;
    this._report(new ResultWarning(`Task '${meta.task}' (${where}) returned a ${found.kind}${at}: ` +
      'functions and symbols cannot be sent; it was dropped.', {
      task: meta.task, path: meta.path, event: meta.event,
      // Not `line`/`column`: on an error object those are where the error was made.
      location: { file: task.file, line: task.line, column: task.column },
    }));
  }

  /**
   * The task whose function runs right now, or null: `{ task, file, line, column, path, event }`
   * (the pattern, where its `match` call is, the node path and the event). A host calls it
   * after its time limit stopped a call.
   */
  running() {
    const task = this._task;
    if (task !== null) {
      const meta = this._metas[this._list.indexOf(task)];
      return { task: task.text, file: task.file, line: task.line, column: task.column, path: meta.path, event: meta.event };
    }
    const loading = this._loader.loadingFile();
    if (loading !== null) return { file: loading };
    return this.waiting();
  }

  /**
   * The oldest async task not settled, or null: code after an `await` runs apart from its
   * task, and promise jobs run in the order they were queued, so a promise job the host's
   * time limit stopped is this task's. `{ task, file, line, column, path, event, async: true,
   * queuedAt }`.
   */
  waiting() {
    const pending = this._pending.length === 0 ? null : this._pending[0];
    if (pending === null) return null;
    const { task: waiting, meta, queuedAt } = pending;
    return {
      task: waiting.text, file: waiting.file, line: waiting.line, column: waiting.column,
      path: meta.path, event: meta.event, async: true, queuedAt,
    };
  }

  /**
   * A failed task's TaskError entry: `{ task, path, event, file, line, column, message, stack }`
   * and, when known, where it threw: `errorFile`, `errorLine`, `errorColumn`.
   */
  _failure(task, meta, error) {
    const failure = {
      task: meta.task, path: meta.path, event: meta.event,
      file: task.file, line: task.line, column: task.column,
      message: messageOf(error), stack: stackOf(error),
    };
    let at = null;
    try {
      at = this._thrownAt(error);
    } catch (unreadable) {
      at = null; // a thrown value whose place cannot be read: the task's place stands
    }
    if (at !== null) {
      failure.errorFile = at.file;
      if (typeof at.line === 'number') failure.errorLine = at.line;
      if (typeof at.column === 'number') failure.errorColumn = at.column;
    }
    return failure;
  }

  /**
   * Where an error was thrown, as the task author wants it: the engine's place when it is in
   * the task folder, else the first stack frame there (an error the core threw for a
   * misused API, say), else the engine's place anywhere; null when unknown.
   */
  _thrownAt(error) {
    if (error === null || typeof error !== 'object') return null;
    const folder = this._loader.directory;
    const place = typeof error.sourceURL === 'string' ? placeOf(error.sourceURL, error.line, error.column) : null;
    if (place !== null && isInside(place.file, folder)) return place;
    const frame = firstFrame(error.stack, (file) => isInside(file, folder));
    if (frame !== null) return frame;
    // The core's own code (reading a result, say) is not where the author looks.
    return place !== null && !isInside(place.file, __dirname) ? place : null;
  }

  /** `task/index.js:3:1`: the task's place, relative to the task folder's parent. */
  _describeTask(task) {
    const folder = this._loader.directory;
    const parent = folder.slice(0, folder.lastIndexOf('/'));
    let text = parent.length > 0 && isInside(task.file, parent) ? task.file.slice(parent.length + 1) : task.file;
    if (task.line !== null) text += `:${task.line}`;
    if (task.column !== null) text += `:${task.column}`;
    return text;
  }
}

module.exports = { TaskRunner };

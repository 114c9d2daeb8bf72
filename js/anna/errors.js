'use strict';
// Errors thrown by the core. Each has a `name` the host can switch on and a message that
// names what the user has to look at (IDs, node names, patterns, files).
//
//   AnnaError     base class; also misuse of the API (bad config, bad arguments)
//   NodeError     node tree rules: duplicate ID, second root, unknown parent, unknown node
//   PatternError  a malformed pattern given to `match`
//   LoadError     a task file (or namespace) that could not be loaded
//   TaskError     one or more tasks threw while handling an event
//   ResultWarning a task's result lost functions or symbols (given to config.report, not thrown)

const { originalStack } = require('./stack-frames');

class AnnaError extends Error {
  constructor(message, fields) {
    super(message);
    if (fields) Object.assign(this, fields);
  }
}
AnnaError.prototype.name = 'AnnaError';

class NodeError extends AnnaError {}
NodeError.prototype.name = 'NodeError';

class PatternError extends AnnaError {}
PatternError.prototype.name = 'PatternError';

class LoadError extends AnnaError {}
LoadError.prototype.name = 'LoadError';

class TaskError extends AnnaError {}
TaskError.prototype.name = 'TaskError';

class ResultWarning extends AnnaError {}
ResultWarning.prototype.name = 'ResultWarning';

/**
 * The message of anything thrown (`throw 'text'` included). Never throws: a value whose
 * message cannot be read (an object without a prototype, a throwing getter or `toString`,
 * a hostile proxy) is described by its type.
 */
function messageOf(thrown) {
  try {
    if (thrown !== null && typeof thrown === 'object') {
      const message = thrown.message;
      if (typeof message === 'string') return message;
    }
    return String(thrown);
  } catch (unreadable) {
    return `a thrown ${thrown === null ? 'null' : typeof thrown} whose message cannot be read`;
  }
}

/** The stack of anything thrown, or undefined. Never throws. */
function stackOf(thrown) {
  try {
    if (thrown !== null && typeof thrown === 'object') {
      const stack = thrown.stack;
      if (typeof stack === 'string') return originalStack(stack);
    }
  } catch (unreadable) {
    return undefined;
  }
  return undefined;
}

/**
 * The error `recordEvent` throws after all tasks ran when some of them threw.
 * `failures` is an array of `{ task, path, event, file, line, column, message, stack,
 * errorFile?, errorLine?, errorColumn? }`.
 */
function taskFailure(failures) {
  const line = (f) =>
    `Task '${f.task}' failed on node '${f.path}' for event '${f.event}': ${f.message}`;
  const message = failures.length === 1
    ? line(failures[0])
    : `${failures.length} tasks failed:\n` + failures.map(line).join('\n');
  const error = new TaskError(message, { errors: failures });
  if (failures[0].stack !== undefined) error.stack = failures[0].stack;
  return error;
}

module.exports = {
  AnnaError,
  NodeError,
  PatternError,
  LoadError,
  TaskError,
  ResultWarning,
  messageOf,
  stackOf,
  taskFailure,
};

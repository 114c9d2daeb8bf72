'use strict';
// Anna's analytics core. An analytics module does
//
//   module.exports = require('anna').configured({ task: __dirname + '/task' });
//
// and the host calls the exported constructor: `new Module(receive, config)` or
// `Module(receive, config)`.

const errors = require('./errors');
const { Manager } = require('./manager');
const { parsePattern } = require('./pattern');
const { checkTaskFile } = require('./task-loader');
const { track, screen, identify } = require('./calls');

/**
 * The manager constructor for a task folder.
 * @param {{ task: string }} options `task`: absolute path of the task folder
 * @returns {(receive, config) => Manager} usable with or without `new`
 */
function configured(options) {
  const task = options === null || options === undefined ? undefined : options.task;
  if (typeof task !== 'string' || task.length === 0) {
    throw new errors.AnnaError("configured() needs { task: '<absolute path of the task folder>' }.");
  }
  if (task.charAt(0) !== '/') {
    throw new errors.AnnaError(`configured() needs an absolute task folder, not '${task}' ` +
      "(write __dirname + '/task').");
  }
  const directory = task.length > 1 && task.endsWith('/') ? task.slice(0, -1) : task;
  function AnnaManager(receive, config) {
    return new Manager(directory, receive, config);
  }
  AnnaManager.prototype = Manager.prototype;
  AnnaManager.taskDirectory = directory;
  return AnnaManager;
}

module.exports = {
  configured,
  track,
  screen,
  identify,
  Manager,
  parsePattern,
  checkTaskFile,
  AnnaError: errors.AnnaError,
  NodeError: errors.NodeError,
  PatternError: errors.PatternError,
  LoadError: errors.LoadError,
  TaskError: errors.TaskError,
  ResultWarning: errors.ResultWarning,
};

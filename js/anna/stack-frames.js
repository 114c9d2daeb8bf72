'use strict';
// Places in JavaScriptCore stacks: one frame a line, `function@url:line:column`
// (`@url:line:column` for top-level code, `@[native code]` for native frames).

const FRAME = /@(.*):(\d+):(\d+)$/;

/**
 * The first frame of `stack` whose file passes `accepts(file)`, as `{ file, line, column }`
 * (1-based), or null.
 */
function firstFrame(stack, accepts) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const found = FRAME.exec(lines[i]);
    if (found !== null && accepts(found[1])) {
      return { file: found[1], line: parseInt(found[2], 10), column: parseInt(found[3], 10) };
    }
  }
  return null;
}

/** Whether `file` is inside the folder `directory` (an absolute path without trailing '/'). */
function isInside(file, directory) {
  return file.length > directory.length && file.charAt(directory.length) === '/' && file.startsWith(directory);
}

module.exports = { firstFrame, isInside };

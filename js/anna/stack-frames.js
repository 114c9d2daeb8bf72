'use strict';
// Places in JavaScriptCore stacks: one frame a line, `function@url:line:column`
// (`@url:line:column` for top-level code, `@[native code]` for native frames).

const FRAME = /@(.*):(\d+):(\d+)$/;
// A runtime that compiles modules as functions whose header shares their first line says by
// how much it shifts that line's columns; absolute-path frames are modules.
const FIRST_LINE_SHIFT = (typeof globalThis === 'object' && globalThis[Symbol.for('anna.firstLineShift')]) || 0;

/**
 * The first frame of `stack` whose file passes `accepts(file)`, as `{ file, line, column }`
 * (1-based), or null.
 */
function firstFrame(stack, accepts) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const found = FRAME.exec(lines[i]);
    if (found !== null && accepts(found[1])) return place(found[1], parseInt(found[2], 10), parseInt(found[3], 10));
  }
  return null;
}

/** `{ file, line, column }` with the column of a module's first line unshifted. */
function place(file, line, column) {
  const shifted = line === 1 && typeof column === 'number' && file.charAt(0) === '/';
  return { file, line, column: shifted ? Math.max(1, column - FIRST_LINE_SHIFT) : column };
}

/** Whether `file` is inside the folder `directory` (an absolute path without trailing '/'). */
function isInside(file, directory) {
  return file.length > directory.length && file.charAt(directory.length) === '/' && file.startsWith(directory);
}

module.exports = { firstFrame, place, isInside };

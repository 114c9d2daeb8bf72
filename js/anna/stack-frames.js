'use strict';
// Places in JavaScriptCore stacks: one frame a line, `function@url:line:column`
// (`@url:line:column` for top-level code, `@[native code]` for native frames).

const FRAME = /@(.*):(\d+):(\d+)$/;
// A runtime that compiles modules as functions whose header shares their first line says by
// how much it shifts that line's columns; absolute-path frames are modules.
const FIRST_LINE_SHIFT = (typeof globalThis === 'object' && globalThis[Symbol.for('anna.firstLineShift')]) || 0;
// A runtime that compiles TypeScript runs a `.ts` file's code as `<file>.js` and translates
// its places back to the `.ts` file: `(url, line, column)` -> `{ file, line, column }` or null.
const ORIGINAL_PLACE = (typeof globalThis === 'object' && globalThis[Symbol.for('anna.originalPlace')]) || null;

/**
 * The first frame of `stack` whose file passes `accepts(file)`, as `{ file, line, column }`
 * (1-based, in the `.ts` file for TypeScript), or null.
 */
function firstFrame(stack, accepts) {
  if (typeof stack !== 'string') return null;
  const lines = stack.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const found = FRAME.exec(lines[i]);
    if (found === null) continue;
    const at = place(found[1], parseInt(found[2], 10), parseInt(found[3], 10));
    if (accepts(at.file)) return at;
  }
  return null;
}

/**
 * `{ file, line, column }` as the author sees it: a module's first line unshifted, a place in
 * TypeScript's output translated to the `.ts` file (a place naming a `.ts` file is one already).
 */
function place(file, line, column) {
  if (ORIGINAL_PLACE !== null && file.endsWith('.ts.js')) {
    const original = ORIGINAL_PLACE(file, line, typeof column === 'number' ? column : undefined);
    if (original !== null) return { file: original.file, line: original.line, column: original.column === null ? column : original.column };
  }
  const shifted = line === 1 && typeof column === 'number' && file.charAt(0) === '/' && !file.endsWith('.ts');
  return { file, line, column: shifted ? Math.max(1, column - FIRST_LINE_SHIFT) : column };
}

/** `stack` with the frames in TypeScript's output pointing at the `.ts` files. */
function originalStack(stack) {
  if (ORIGINAL_PLACE === null || stack.indexOf('.ts.js:') === -1) return stack;
  return stack.split('\n').map((frame) => {
    const found = FRAME.exec(frame);
    if (found === null || !found[1].endsWith('.ts.js')) return frame;
    const at = place(found[1], parseInt(found[2], 10), parseInt(found[3], 10));
    return frame.slice(0, found.index + 1) + `${at.file}:${at.line}:${at.column}`;
  }).join('\n');
}

/** Whether `file` is inside the folder `directory` (an absolute path without trailing '/'). */
function isInside(file, directory) {
  return file.length > directory.length && file.charAt(directory.length) === '/' && file.startsWith(directory);
}

module.exports = { firstFrame, place, originalStack, isInside };

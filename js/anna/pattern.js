'use strict';
// Match patterns: which events on which nodes a task handles.
//
//   pattern   = [ "/" ] *( step "/" ) event
//   step      = "*" / name          ; "*" stands for any one node name
//   event     = name                ; never "*"
//   name      = 1*( any character but "/" )
//
// With a leading "/" the steps are the node's whole path from the root (`/appear` is the
// root itself); without it they must end the node's path (`foo/bar/tap` fires on every
// `bar` whose parent is `foo`, at any depth; `tap` alone fires on every node).

const { PatternError } = require('./errors');

const ANY = '*';

/**
 * Parses a pattern.
 * @param {string} text the pattern
 * @param {string} [where] where it comes from, for the message (e.g. a task file)
 * @returns {{ text: string, anchored: boolean, steps: string[], event: string }}
 * @throws {PatternError} naming the pattern and `where` when it is malformed
 */
function parsePattern(text, where) {
  const fail = (reason) => {
    const shown = typeof text === 'string' ? `'${text}'` : String(text);
    const origin = where ? ` in ${where}` : '';
    return new PatternError(`Malformed pattern ${shown}${origin}: ${reason}.`, {
      pattern: text,
      file: where,
      shown,
      reason,
    });
  };
  if (typeof text !== 'string') {
    throw fail(`a pattern must be a string, not ${text === null ? 'null' : typeof text}`);
  }
  if (text.length === 0) throw fail('it is empty');
  const anchored = text.charCodeAt(0) === 47; // '/'
  const parts = (anchored ? text.slice(1) : text).split('/');
  const event = parts.pop();
  if (event.length === 0) {
    throw fail(parts.length === 0 && anchored
      ? 'it names no event'
      : "it ends with '/', so it names no event");
  }
  if (event === ANY) throw fail("the event cannot be '*' ('*' stands for one node name)");
  for (let i = 0; i < parts.length; i += 1) {
    if (parts[i].length === 0) {
      throw fail(i === 0 && anchored
        ? "it starts with '//'"
        : "it has an empty node name ('//')");
    }
  }
  return { text, anchored, steps: parts, event };
}

/**
 * Whether a parsed pattern's steps accept a node (the event is checked by the caller).
 * The root's own name is not part of any path, so it never meets a step.
 * Cost: O(steps), no allocation.
 */
function acceptsNode(pattern, node) {
  const steps = pattern.steps;
  let i = steps.length;
  if (pattern.anchored ? node._depth !== i : node._depth < i) return false;
  let current = node;
  while (i > 0) {
    i -= 1;
    const step = steps[i];
    if (step !== ANY && step !== current._name) return false;
    current = current._parent;
  }
  return true;
}

module.exports = { parsePattern, acceptsNode, ANY };

// Replays an event stream (NDJSON, docs/event-stream.md) through the original Anna core
// (coppercash/Anna, core/built/anna/index.js) the way the iOS host drives it: the module's
// constructor from `configured({ task })` called with a receive callback and a config, then
// registerNode / recordEvent / deregisterNodes per line. Prints one JSON line of figures:
// {"lines":…,"operations":…,"results":…,"errors":…,"seconds":…}. Results are counted and,
// with --out FILE, written one per line as JSON (the original core has no metas).
//
// Usage: node replay-original.js --core PATH/index.js --tasks DIR --events FILE [--out FILE]
'use strict';
const fs = require('fs');
const path = require('path');

function option(name) {
  const at = process.argv.indexOf(name);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : undefined;
}
const corePath = option('--core');
const taskFolder = option('--tasks');
const eventsPath = option('--events');
const outPath = option('--out');
if (!corePath || !taskFolder || !eventsPath) {
  process.stderr.write('usage: node replay-original.js --core PATH/index.js --tasks DIR --events FILE [--out FILE]\n');
  process.exit(64);
}

// The original loader requires task files through `global.require` (the iOS host's
// JavaScriptCore context provides it), with `match` injected as a global meanwhile.
global.require = require;
const Anna = require(path.resolve(corePath));
let now = NaN;
const config = { debug: false, now: () => (now === now ? now : Date.now()) };
const outFd = outPath === undefined ? -1 : fs.openSync(outPath, 'w');
let pending = [];
let results = 0;
function receive(result) {
  results += 1;
  if (outFd >= 0) {
    pending.push(JSON.stringify(result));
    if (pending.length >= 4096) flush();
  }
}
function flush() {
  if (outFd >= 0 && pending.length > 0) fs.writeSync(outFd, pending.join('\n') + '\n');
  pending = [];
}
const manager = Anna.configured({ task: path.resolve(taskFolder) })(receive, config);

function id(value) { return value; } // plain IDs and [owner, key, …] go to the core as they are
let lines = 0;
let operations = 0;
let errors = 0;
const started = process.hrtime.bigint();
const text = fs.readFileSync(eventsPath, 'utf8');
let start = 0;
while (start < text.length) {
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const line = text.slice(start, end);
  start = end + 1;
  lines += 1;
  if (line.trim() === '' || line.trimStart().startsWith('//')) continue;
  const record = JSON.parse(line);
  now = typeof record.time === 'number' ? record.time : NaN;
  try {
    switch (record.op) {
      case 'register':
        operations += 1;
        manager.registerNode(id(record.id), record.parent === undefined ? null : id(record.parent), record.name,
          record.index === undefined ? null : record.index, record.namespace === undefined ? null : record.namespace,
          record.attributes === undefined ? null : record.attributes);
        break;
      case 'event':
        operations += 1;
        manager.recordEvent(record.name, record.properties || {}, id(record.id));
        break;
      case 'update': {
        operations += 1;
        const properties = { 'key-path': record.keyPath };
        if ('value' in record) properties.value = record.value;
        manager.recordEvent('ana-updated', properties, id(record.id));
        break;
      }
      case 'appear': operations += 1; manager.recordEvent('ana-appeared', {}, id(record.id)); break;
      case 'disappear': operations += 1; manager.recordEvent('ana-disappeared', {}, id(record.id)); break;
      case 'deregister': operations += 1; manager.deregisterNodes(id(record.id)); break;
      default: break; // version, snapshot
    }
  } catch (error) {
    errors += 1;
    if (errors === 1) process.stderr.write(`${eventsPath}:${lines}: ${error && error.message}\n`);
  }
}
flush();
if (outFd >= 0) fs.closeSync(outFd);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
process.stdout.write(JSON.stringify({ lines, operations, results, errors, seconds }) + '\n');

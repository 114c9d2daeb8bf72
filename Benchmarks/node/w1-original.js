// W1 in-process on the original Anna core (coppercash/Anna, core/built/anna/index.js) under
// Node: the reference anna-bench compares W1 through the Swift API with. No stream, no
// parsing: the host calls the core's manager directly, as the iOS host does.
//
// The same work as anna-bench's W1 (Benchmarks/AnnaBench/HostTree.swift, EventMix.swift):
// `__root__`, `app`, and per screen `screen<i>` > `list` > 20 `cell`s (index 0…19); the task
// folder anna-bench wrote (W1's 101 tasks); event k goes to cell k mod 1000 and is, by k mod 4,
// did-select, ana-appeared, ana-updated (key-path text, value 'v' + k mod 8), scroll {x: k}.
// Warm-up events first (untimed, so V8's optimizing tiers are done), then the timed events,
// timed from the first call to the last result; CPU is the process's own (user + system).
// Prints one JSON line: {"events","warmupEvents","results","errors","seconds","cpuSeconds"}.
// Exits 1 when the results are not the count the mix implies.
//
// Usage: node w1-original.js --core PATH/index.js --tasks DIR [--screens 50] [--events N] [--warmup N]
'use strict';
const path = require('path');

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1] : fallback;
}
const corePath = option('--core');
const taskFolder = option('--tasks');
const screens = Number(option('--screens', '50'));
const events = Number(option('--events', '1000000'));
const warmup = Number(option('--warmup', '200000'));
if (!corePath || !taskFolder || !(screens > 0) || !(events > 0) || !(warmup >= 0)) {
  process.stderr.write('usage: node w1-original.js --core PATH/index.js --tasks DIR [--screens N] [--events N] [--warmup N]\n');
  process.exit(64);
}

// The original loader requires task files through `global.require` (the iOS host's context provides it).
global.require = require;
const Anna = require(path.resolve(corePath));
let results = 0;
const manager = Anna.configured({ task: path.resolve(taskFolder) })(() => { results += 1; }, { debug: false, now: Date.now });

// The tree, with plain numeric IDs (as `anna record` writes them).
let nextID = 1;
function register(parent, name, index) {
  const id = nextID++;
  manager.registerNode(id, parent, name, index, null, null);
  return id;
}
const root = register(null, '__root__', null);
const app = register(root, 'app', null);
const cells = [];
for (let i = 0; i < screens; i++) {
  const screen = register(app, 'screen' + i, null);
  const list = register(screen, 'list', null);
  for (let index = 0; index < 20; index++) cells.push(register(list, 'cell', index));
}
const cellCount = Math.min(cells.length, 1000);
const values = [0, 1, 2, 3, 4, 5, 6, 7].map((v) => 'v' + v);

let errors = 0;
function record(k) {
  const id = cells[k % cellCount];
  try {
    switch (k & 3) {
      case 0: manager.recordEvent('did-select', {}, id); break;
      case 1: manager.recordEvent('ana-appeared', {}, id); break;
      case 2: manager.recordEvent('ana-updated', { 'key-path': 'text', value: values[k & 7] }, id); break;
      default: manager.recordEvent('scroll', { x: k }, id); break;
    }
  } catch (error) {
    errors += 1;
    if (errors === 1) process.stderr.write(`event ${k}: ${error && error.message}\n`);
  }
}

for (let k = 0; k < warmup; k++) record(k);
results = 0;
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
for (let k = 0; k < events; k++) record(k);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);

// One result per did-select (k mod 4 = 0) and per ana-updated (k mod 4 = 2).
const count = (remainder) => (events > remainder ? Math.floor((events - remainder + 3) / 4) : 0);
const expected = count(0) + count(2);
process.stdout.write(JSON.stringify({ events, warmupEvents: warmup, results, errors, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 }) + '\n');
if (results !== expected || errors > 0) {
  process.stderr.write(`w1-original: ${results} results and ${errors} errors, expected ${expected} results and none\n`);
  process.exit(1);
}

// W1 in-process on the original Anna core (coppercash/Anna, core/built/anna/index.js) under
// Node: the reference anna-bench compares W1 through the Swift API with. No stream, no
// parsing: the host calls the core's manager directly, as the iOS host does.
//
// The same work as anna-bench's W1 (the tree and mix of w1-mix.js) over the task folder
// anna-bench wrote (W1's 101 tasks).
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
const { prepare, expectedResults } = require('./w1-mix');
const w1 = prepare(require(path.resolve(corePath)), path.resolve(taskFolder), screens);

const warm = w1.record(0, warmup);
if (warm.errors > 0) {
  process.stderr.write(`w1-original: ${warm.errors} errors in the warm-up, the first: ${warm.firstError}\n`);
  process.exit(1);
}
const cpuBefore = process.cpuUsage();
const started = process.hrtime.bigint();
const { results, errors, firstError } = w1.record(0, events);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpuBefore);

const expected = expectedResults(events);
process.stdout.write(JSON.stringify({ events, warmupEvents: warmup, results, errors, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 }) + '\n');
if (firstError !== undefined) process.stderr.write(firstError + '\n');
if (results !== expected || errors > 0) {
  process.stderr.write(`w1-original: ${results} results and ${errors} errors, expected ${expected} results and none\n`);
  process.exit(1);
}

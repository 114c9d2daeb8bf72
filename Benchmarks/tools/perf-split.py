#!/usr/bin/env python3
"""Splits a `perf record -g` profile of `anna-bench measure throughput` by where the time went.

Each sample goes to the role of its thread: the caller (the threads that call `Analyzer.record`),
the script queue (the thread that runs JavaScript), delivery (the delegate queue), the engine's
background threads (JavaScriptCore's compilers and collector helpers), or other. A sample's role is
read from its frames, not from its thread's name, because Swift's cooperative threads and
dispatch's workers share names (and a worker serves several queues). With --events N and --cpu-seconds S (the measurement's own figures)
it also prints nanoseconds per event for each role.

Usage: perf-split.py perf.data [--events N --cpu-seconds S] [--top K]
"""
import argparse
import collections
import re
import subprocess

ROLES = [  # (role, a frame that marks it), first match wins
    ("script queue", re.compile(r"ScriptQueue.*drain|AnalyticsEngine|ModuleBridge")),
    ("delivery", re.compile(r"ResultDelivery|DeliveryMultiplex|PendingResults|ResultCounter")),
    ("caller", re.compile(r"Analyzer|ThroughputMeasurement|EventMix|WorkQueue")),
]


def role_of(frames):
    for role, pattern in ROLES:
        if any(pattern.search(frame) for frame in frames):
            return role
    return None


def samples(path):
    text = subprocess.run(["perf", "script", "-i", path, "-F", "comm,tid,ip,sym"], capture_output=True, text=True,
                          check=True).stdout
    current = None
    for line in text.splitlines():
        if not line.strip():
            if current:
                yield current
            current = None
        elif not line.startswith((" ", "\t")):
            match = re.match(r"\s*(.*?)\s+(\d+)\s*$", line)
            current = (match.group(1), int(match.group(2)), []) if match else None
        elif current is not None:
            parts = line.strip().split(None, 1)
            current[2].append(parts[1] if len(parts) > 1 else "[unknown]")
    if current:
        yield current


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("data")
    parser.add_argument("--events", type=float)
    parser.add_argument("--cpu-seconds", type=float)
    parser.add_argument("--top", type=int, default=12)
    options = parser.parse_args()
    by_thread = collections.defaultdict(list)
    names = {}
    for comm, tid, frames in samples(options.data):
        by_thread[tid].append(frames)
        names[tid] = comm
    # Dispatch's worker threads serve the script queue and the delegate queue alike, so each
    # sample goes to the role its own frames show; one that shows none (inside JavaScriptCore,
    # whose frames the unwinder cannot walk out of) goes to the role of the thread's previous
    # sample that showed one (the next, at the thread's start): a thread runs one block at a time.
    roles = collections.defaultdict(list)
    for tid, stacks in by_thread.items():
        if names[tid] in ("JITWorker", "HeapHelper"):
            roles["engine background"].extend(stacks)
            continue
        own = [role_of(frames) for frames in stacks]
        last = next((role for role in own if role), "other")
        for frames, role in zip(stacks, own):
            last = role or last
            roles[last].append(frames)
    total = sum(len(stacks) for stacks in roles.values())
    for role in ["caller", "script queue", "delivery", "engine background", "other"]:
        stacks = roles.get(role, [])
        share = len(stacks) / total if total else 0
        line = f"{role:18} {100 * share:5.1f}%"
        if options.events and options.cpu_seconds:
            line += f"  {share * options.cpu_seconds * 1e9 / options.events:6.0f} ns/event"
        print(line)
        leaves = collections.Counter(frames[0][:100] if frames else "[unknown]" for frames in stacks)
        for symbol, count in leaves.most_common(options.top):
            print(f"    {100 * count / max(len(stacks), 1):5.1f}%  {symbol}")


if __name__ == "__main__":
    main()

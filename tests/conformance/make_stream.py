#!/usr/bin/env python3
"""The NDJSON event stream `anna run` replays for a conformance fixture: one `Sender` node whose `call`
value is each logical event in turn (fixtures/conformance/module/task/Sender.js turns it into the call).

  python tests/conformance/make_stream.py fixtures/conformance/events.json > stream.ndjson
"""

import json
import sys


def stream_lines(fixture):
    """The stream's lines (without newlines) for a loaded fixture."""
    events = fixture["events"]
    if not events:
        raise ValueError("the fixture has no events")
    times = [event["time"] for event in events]
    if any(later <= earlier for earlier, later in zip(times, times[1:])):
        raise ValueError("event times must be strictly increasing")
    t0 = times[0]

    def line(record):
        return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    lines = [line({"op": "version", "version": 1}),
             line({"op": "register", "id": 1, "parent": None, "name": "__root__", "time": t0}),
             line({"op": "register", "id": 2, "parent": 1, "name": "sender", "namespace": "Sender", "time": t0})]
    for event in events:
        lines.append(line({"op": "event", "id": 2, "name": "ana-updated",
                           "properties": {"key-path": "call", "value": event}, "time": event["time"]}))
    return lines


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 64
    with open(argv[1], encoding="utf-8") as file:
        fixture = json.load(file)
    sys.stdout.reconfigure(encoding="utf-8")
    for text in stream_lines(fixture):
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Anna's Segment, PostHog and Amplitude wire formats against the vendors' official Python SDKs.

For each vendor the SDK sends fixtures/conformance/events.json to one local receiver and
`anna run --format VENDOR` sends the same logical events to another; the requests must have the same
keys at every level with the same JSON types (numbers are one type, null its own), the same path,
Content-Type, auth scheme and Content-Encoding, and the same values where values are not ids, times,
library names/versions or machine facts (os version, locale, time zone). Times must be the same instants.

  ANNA=.build/debug/anna .build/conformance-venv/bin/python tests/conformance/test_conformance.py
  .build/conformance-venv/bin/python tests/conformance/test_conformance.py --sdk-only   # no Anna needed
Options: --vendor NAME (repeatable), --keep (keep the temp dir), --sdk-only, --self-test (the SDK against
itself: checks the harness). Env ANNA_RUN_ARGS: extra
arguments for `anna run` (shell words). Exit 0 when every vendor passes, 1 otherwise.
"""

import argparse
import base64
import datetime
import fnmatch
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import traceback
import uuid

HERE = pathlib.Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, str(HERE))
import make_stream  # noqa: E402
import sdk_side  # noqa: E402

ROOT = HERE.parents[1]
FIXTURES = ROOT / "fixtures" / "conformance"
EVENTS = FIXTURES / "events.json"
MODULE = FIXTURES / "module"
ANNA = os.environ.get("ANNA", str(ROOT / ".build" / "debug" / "anna"))
ANNA_TIMEOUT = 120  # seconds for the whole `anna run` (it drains for at most 20)
MAX_PRINTED = 300   # differences printed per vendor

# Per vendor: the body's event array, the event's time field, and which paths (relative to the body or to
# one event; array indexes written [*]) are compared how. Everything not listed is compared exactly.
#   skip:    the key is the SDK's runtime, not the wire format: neither its presence nor its value is compared
#   any:     present with the same type, any value (ids, library, send time, machine facts)
#   instant: a time: the same instant (ISO 8601 string, or integer ms)
VENDORS = {
    "segment": {
        "events": "batch", "time": "timestamp",
        "body_any": ["sentAt"],
        "event_any": ["messageId", "context.library.name", "context.library.version", "context.os.version",
                      "context.locale", "context.timezone"],
        "event_skip": [],
        "instant": ["timestamp"],
    },
    "posthog": {
        "events": "batch", "time": "timestamp",
        "body_any": ["sent_at"],
        "event_any": ["uuid", "properties.$lib", "properties.$lib_version", "properties.$os_version",
                      "properties.$os_distro", "properties.$locale", "properties.$timezone"],
        "event_skip": ["properties.$python_runtime", "properties.$python_version"],
        "instant": ["timestamp"],
    },
    "amplitude": {
        "events": "events", "time": "time",
        "body_any": [],
        "event_any": ["insert_id", "library", "os_version", "language"],
        "event_skip": [],
        "instant": ["time"],
    },
}


# ---- JSON shapes and values ----

def json_type(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def pattern_of(path):
    """`batch[3].properties.items[0].id` -> `properties.items[*].id` style: indexes as [*]."""
    return re.sub(r"\[\d+\]", "[*]", path)


def matches(path, patterns):
    generic = pattern_of(path)
    return any(fnmatch.fnmatchcase(generic, pattern) for pattern in patterns)


def join(path, key):
    return f"{path}.{key}" if path else key


def to_instant(value):
    """A time as a UTC datetime: an ISO 8601 string with an offset, or integer milliseconds; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return sdk_side.ms_to_datetime(int(value)) if float(value).is_integer() else None
        except (OverflowError, ValueError):
            return None
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed.astimezone(datetime.timezone.utc) if parsed.tzinfo else None
    return None


def compare(sdk, anna, path, rules, problems, prefix=""):
    """Appends to `problems` every difference in keys, JSON types and (where `rules` say) values between
    the SDK's value and Anna's at `path` (relative to the rules' root; `prefix` goes before it in messages)."""
    where = prefix + path if path else (prefix.rstrip(".") or "<body>")
    sdk_type, anna_type = json_type(sdk), json_type(anna)
    if sdk_type != anna_type:
        problems.append(f"{where}: {sdk_type} in the SDK, {anna_type} in anna "
                        f"(sdk {short(sdk)}, anna {short(anna)})")
        return
    if sdk_type == "object":
        for key in list(sdk) + [k for k in anna if k not in sdk]:
            child = join(path, key)
            if matches(child, rules.get("skip", [])):
                continue
            if key not in anna:
                problems.append(f"{prefix}{child}: missing in anna (the SDK sends {json_type(sdk[key])} {short(sdk[key])})")
            elif key not in sdk:
                problems.append(f"{prefix}{child}: extra in anna ({json_type(anna[key])} {short(anna[key])}; the SDK has no such key)")
            else:
                compare(sdk[key], anna[key], child, rules, problems, prefix)
        return
    if sdk_type == "array":
        if len(sdk) != len(anna):
            problems.append(f"{where}: {len(sdk)} elements in the SDK, {len(anna)} in anna")
        for index, (a, b) in enumerate(zip(sdk, anna)):
            compare(a, b, f"{path}[{index}]", rules, problems, prefix)
        return
    if matches(path, rules.get("any", [])):
        return
    if matches(path, rules.get("instant", [])):
        a, b = to_instant(sdk), to_instant(anna)
        if b is None:
            problems.append(f"{where}: anna's {short(anna)} is not a time (ISO 8601 with offset, or ms)")
        elif a != b:
            problems.append(f"{where}: the SDK says {short(sdk)}, anna {short(anna)} (not the same instant)")
        elif isinstance(sdk, int) and not isinstance(anna, int):
            problems.append(f"{where}: the SDK sends an integer, anna {short(anna)}")
        return
    if sdk != anna:
        problems.append(f"{where}: the SDK sends {short(sdk)}, anna {short(anna)}")


def short(value, limit=80):
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "…"


# ---- requests ----

def header(request, name):
    for key, value in request["headers"].items():
        if key.lower() == name.lower():
            return value
    return None


def normalized_media(value):
    return None if value is None else value.replace(" ", "").lower()


def vendor_requests(vendor, requests):
    return [r for r in requests if r["method"] == "POST" and r["path"] == sdk_side.VENDOR_PATHS[vendor]]


def sorted_events(vendor, requests):
    """Every event of every upload, ordered by its time (the fixture's times strictly increase; uploads may
    arrive in any order), arrival order among equal or unreadable times."""
    config = VENDORS[vendor]
    events = []
    for request in vendor_requests(vendor, requests):
        body = request["json"]
        if isinstance(body, dict) and isinstance(body.get(config["events"]), list):
            events.extend(body[config["events"]])
    far = datetime.datetime.max.replace(tzinfo=datetime.timezone.utc)

    def key(indexed):
        index, event = indexed
        instant = to_instant(event.get(config["time"])) if isinstance(event, dict) else None
        return (instant or far, index)
    return [event for _, event in sorted(enumerate(events), key=key)]


def event_label(vendor, event):
    if not isinstance(event, dict):
        return "?"
    name = event.get("event") or event.get("event_type") or event.get("type")
    if vendor == "segment" and event.get("type") != "track":
        name = f"{event.get('type')} {event.get('name') or event.get('userId') or ''}".strip()
    return str(name)


def check_requests(vendor, fixture, sdk_requests, anna_requests):
    """Every difference between the two sides' requests, as readable lines."""
    config = VENDORS[vendor]
    path = sdk_side.VENDOR_PATHS[vendor]
    problems = []
    sdk_uploads, anna_uploads = vendor_requests(vendor, sdk_requests), vendor_requests(vendor, anna_requests)
    for request in anna_requests:
        if request not in anna_uploads:
            problems.append(f"anna made an unexpected request: {request['method']} {request['path']} (uploads go to POST {path})")
    if not sdk_uploads:
        return problems + ["the SDK made no upload (the harness is broken)"]
    if not anna_uploads:
        return problems + [f"anna made no upload to POST {path}"]

    reference = sdk_uploads[0]
    expected_auth = header(reference, "Authorization")
    if expected_auth is not None and vendor == "segment":
        wanted = "Basic " + base64.b64encode(f"{fixture['apiKey']}:".encode()).decode()
        if expected_auth != wanted:
            problems.append(f"the SDK's Authorization is {expected_auth!r}, not {wanted!r} (the harness is broken)")
    body_rules = {"any": config["body_any"], "skip": [config["events"]]}
    for number, request in enumerate(anna_uploads, 1):
        label = f"anna request {number}: "
        for name, normalize in (("Content-Type", normalized_media), ("Content-Encoding", normalized_media),
                                ("Authorization", lambda v: v)):
            want, got = normalize(header(reference, name)), normalize(header(request, name))
            if want != got:
                problems.append(f"{label}header {name}: the SDK sends {header(reference, name)!r}, anna {header(request, name)!r}")
        if request["json"] is None:
            problems.append(f"{label}the body is not JSON: {short(request['body'].decode('utf-8', 'replace'))}")
            continue
        compare(reference["json"], request["json"], "", body_rules, problems, prefix=label)
        key_field = "writeKey" if vendor == "segment" else "api_key"
        if isinstance(request["json"], dict) and request["json"].get(key_field) != fixture["apiKey"]:
            problems.append(f"{label}{key_field} is {short(request['json'].get(key_field))}, not the api key {fixture['apiKey']!r}")

    sdk_events, anna_events = sorted_events(vendor, sdk_requests), sorted_events(vendor, anna_requests)
    expected = expected_event_count(vendor, fixture)
    if len(sdk_events) != expected:
        problems.append(f"the SDK sent {len(sdk_events)} events, the fixture makes {expected} (the harness is broken)")
    if len(anna_events) != len(sdk_events):
        problems.append(f"anna sent {len(anna_events)} events, the SDK {len(sdk_events)}")
    event_rules = {"any": config["event_any"], "skip": config["event_skip"], "instant": config["instant"]}
    pairs, sdk_only, anna_only = pair_events(vendor, sdk_events, anna_events)
    for index in sdk_only:
        event = sdk_events[index]
        problems.append(f"-- event {index} ({event_label(vendor, event)!r} at {short(event.get(config['time']))}): "
                        "missing in anna")
    for index in anna_only:
        event = anna_events[index]
        problems.append(f"-- anna's event {index} ({event_label(vendor, event)!r} at {short(event.get(config['time']))}): "
                        "extra in anna (no SDK event left to pair it with)")
    for index, anna_index in pairs:
        sdk_event, anna_event = sdk_events[index], anna_events[anna_index]
        found = []
        compare(sdk_event, anna_event, "", event_rules, found, prefix=f"{config['events']}[{index}].")
        if found:
            problems.append(f"-- event {index}: the SDK's {event_label(vendor, sdk_event)!r}, "
                            f"anna's {event_label(vendor, anna_event)!r}"
                            + (f" (anna's event {anna_index})" if anna_index != index else ""))
            problems.extend("   " + line for line in found)
    return problems


def pair_events(vendor, sdk_events, anna_events):
    """Pairs each SDK event with Anna's event at the same instant (the fixture's times are unique), then
    the rest in order. Returns ([(sdk index, anna index)], unpaired SDK indexes, unpaired Anna indexes)."""
    field = VENDORS[vendor]["time"]

    def instant(event):
        return to_instant(event.get(field)) if isinstance(event, dict) else None
    anna_at = {}
    for index, event in enumerate(anna_events):
        moment = instant(event)
        if moment is not None:
            anna_at.setdefault(moment, index)
    pairs, used, left = [], set(), []
    for index, event in enumerate(sdk_events):
        match = anna_at.get(instant(event))
        if match is not None and match not in used:
            pairs.append((index, match))
            used.add(match)
        else:
            left.append(index)
    # The rest: by name first (a wrong time), then in order (a wrong name too).
    still = []
    for index in left:
        label = event_label(vendor, sdk_events[index])
        match = next((i for i in range(len(anna_events))
                      if i not in used and event_label(vendor, anna_events[i]) == label), None)
        if match is None:
            still.append(index)
        else:
            pairs.append((index, match))
            used.add(match)
    anna_left = [index for index in range(len(anna_events)) if index not in used]
    pairs.extend(zip(still, anna_left))
    return sorted(pairs), still[len(anna_left):], anna_left[len(still):]


def expected_event_count(vendor, fixture):
    """Amplitude's SDK sends nothing for an identify without traits; the others send every event."""
    if vendor != "amplitude":
        return len(fixture["events"])
    return sum(1 for e in fixture["events"] if e["type"] != "identify" or e.get("traits"))


def check_sdk_side(vendor, fixture, requests):
    """Sanity of the SDK side alone: every event arrived, at the fixture's instants, ids formatted."""
    problems = []
    events = sorted_events(vendor, requests)
    expected = [e for e in fixture["events"] if vendor != "amplitude" or e["type"] != "identify" or e.get("traits")]
    if len(events) != len(expected):
        problems.append(f"the SDK sent {len(events)} events, expected {len(expected)}")
    for index, (event, logical) in enumerate(zip(events, expected)):
        instant = to_instant(event.get(VENDORS[vendor]["time"]))
        if instant != sdk_side.ms_to_datetime(logical["time"]):
            problems.append(f"event {index}: time {event.get(VENDORS[vendor]['time'])!r} is not the fixture's {logical['time']}")
        if vendor == "posthog":
            try:
                uuid.UUID(event.get("uuid", ""))
            except ValueError:
                problems.append(f"event {index}: uuid {event.get('uuid')!r} is not a UUID")
    return problems


# ---- printing ----

def print_requests(title, requests):
    print(f"==== {title}: {len(requests)} request(s)")
    for number, request in enumerate(requests, 1):
        print(f"-- request {number}: {request['method']} {request['path']}")
        for name, value in request["headers"].items():
            print(f"{name}: {value}")
        print()
        if request["json"] is not None:
            print(json.dumps(request["json"], indent=2, ensure_ascii=False))
        else:
            print(request["body"].decode("utf-8", "replace"))
        print()


# ---- running Anna ----

def run_anna(vendor, fixture, folder, base_url):
    stream = folder / "stream.ndjson"
    stream.write_text("".join(line + "\n" for line in make_stream.stream_lines(fixture)), encoding="utf-8")
    command = [ANNA, "run", "--events", str(stream), "--module", str(MODULE), "--outbox", str(folder / "out.sqlite"),
               "--deliver", base_url + sdk_side.VENDOR_PATHS[vendor], "--format", vendor,
               "--api-key", fixture["apiKey"], "--anonymous-id", fixture["anonymousId"], "--drain-timeout", "20"]
    command += ["--app-name", fixture["app"]["name"], "--app-version", fixture["app"]["version"]]
    command += shlex.split(os.environ.get("ANNA_RUN_ARGS", ""))
    try:
        process = subprocess.run(command, cwd=ROOT, capture_output=True, timeout=ANNA_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"anna run did not finish within {ANNA_TIMEOUT} s: {shlex.join(command)}")
    if process.returncode != 0:
        raise AssertionError(
            f"anna run exited {process.returncode}: {shlex.join(command)}\n"
            f"stdout:\n{process.stdout.decode('utf-8', 'replace')[-4000:]}\n"
            f"stderr:\n{process.stderr.decode('utf-8', 'replace')[-4000:]}")


def conformance(vendor, fixture, folder):
    sdk_requests, sdk_errors = sdk_side.run_sdk(vendor, fixture)
    assert not sdk_errors, f"the {vendor} SDK reported errors: {sdk_errors}"
    sanity = check_sdk_side(vendor, fixture, sdk_requests)
    assert not sanity, "the SDK side is broken:\n" + "\n".join(sanity)
    with sdk_side.Receiver(vendor) as receiver:
        run_anna(vendor, fixture, folder, receiver.base_url)
        receiver.wait_for_events(len(sorted_events(vendor, sdk_requests)), seconds=5)
        anna_requests = receiver.snapshot()
    problems = check_requests(vendor, fixture, sdk_requests, anna_requests)
    if problems:
        (folder / "sdk-requests.json").write_text(dump_requests(sdk_requests), encoding="utf-8")
        (folder / "anna-requests.json").write_text(dump_requests(anna_requests), encoding="utf-8")
        shown = problems[:MAX_PRINTED]
        more = len(problems) - len(shown)
        raise AssertionError(f"{len(problems)} difference line(s) between the {vendor} SDK and anna:\n"
                             + "\n".join(shown) + (f"\n… and {more} more" if more > 0 else "")
                             + f"\n(both sides' requests: {folder}/sdk-requests.json, anna-requests.json; --keep keeps them)")


def dump_requests(requests):
    return json.dumps([{"method": r["method"], "path": r["path"], "headers": r["headers"], "body": r["json"]}
                       for r in requests], indent=2, ensure_ascii=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sdk-only", action="store_true", help="only send through the SDKs and print their requests")
    parser.add_argument("--vendor", action="append", choices=sorted(VENDORS), help="one vendor (repeatable)")
    parser.add_argument("--self-test", action="store_true",
                        help="compare two runs of the SDK (checks the harness: ids and send times differ, nothing else may)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument("--events", default=str(EVENTS), help="the fixture (default fixtures/conformance/events.json)")
    args = parser.parse_args()
    fixture = json.loads(pathlib.Path(args.events).read_text(encoding="utf-8"))
    vendors = args.vendor or ["segment", "posthog", "amplitude"]
    if not (args.sdk_only or args.self_test) and not os.access(ANNA, os.X_OK):
        print(f"FAIL: no anna binary at {ANNA} (set ANNA, or use --sdk-only)")
        return 1

    failures = []
    root = pathlib.Path(tempfile.mkdtemp(prefix="anna-conformance-"))
    try:
        for vendor in vendors:
            folder = root / vendor
            folder.mkdir()
            try:
                if args.sdk_only:
                    requests, errors = sdk_side.run_sdk(vendor, fixture)
                    print_requests(f"{vendor} SDK", requests)
                    problems = check_sdk_side(vendor, fixture, requests) + [f"SDK error: {e}" for e in errors]
                    assert not problems, "\n".join(problems)
                elif args.self_test:
                    first, _ = sdk_side.run_sdk(vendor, fixture)
                    second, _ = sdk_side.run_sdk(vendor, fixture)
                    problems = check_sdk_side(vendor, fixture, first) + check_requests(vendor, fixture, first, second)
                    assert not problems, "\n".join(problems)
                else:
                    conformance(vendor, fixture, folder)
                print(f"PASS {vendor}")
            except Exception:
                failures.append(vendor)
                print(f"FAIL {vendor}\n{traceback.format_exc()}")
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    print(f"{len(vendors) - len(failures)} of {len(vendors)} vendors pass" + (f"; failed: {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

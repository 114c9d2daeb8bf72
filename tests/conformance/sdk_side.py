"""The SDK side of the conformance test: a recording HTTP receiver and the three official Python SDKs
(segment-analytics-python, posthog, amplitude-analytics) driven with the logical events of a fixture
the way a real user of each SDK would send them, with the context Anna sends.

Imported by test_conformance.py; needs the venv of tests/conformance/README.md.
"""

import datetime
import gzip
import http.server
import json
import os
import pathlib
import platform
import threading
import time
import zlib

# The SDKs read these; a value in the caller's environment would change what they send.
for _name in ("POSTHOG_CAPTURE_MODE", "POSTHOG_CAPTURE_COMPRESSION", "POSTHOG_RELEASE_ID"):
    os.environ.pop(_name, None)

# Where each SDK posts, by default and so in these tests (the receiver's base URL + this path).
VENDOR_PATHS = {"segment": "/v1/batch", "posthog": "/batch/", "amplitude": "/2/httpapi"}


def success_body(vendor, body_bytes, parsed):
    """The body the vendor answers a successful upload with (Amplitude's SDK parses its `code`)."""
    if vendor == "segment":
        return {"success": True}
    if vendor == "posthog":
        return {"status": 1}
    events = parsed.get("events", []) if isinstance(parsed, dict) else []
    return {"code": 200, "events_ingested": len(events), "payload_size_bytes": len(body_bytes),
            "server_upload_time": int(time.time() * 1000)}


class Receiver:
    """An HTTP server on 127.0.0.1 (a random port) recording every request: method, path, headers, raw and
    decoded body. POSTs to the vendor's path get the vendor's success answer; anything else a 404."""

    def __init__(self, vendor):
        self.vendor = vendor
        self.requests = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _handle(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                decoded = raw
                encoding = (self.headers.get("Content-Encoding") or "").lower()
                try:
                    if encoding == "gzip":
                        decoded = gzip.decompress(raw)
                    elif encoding == "deflate":
                        decoded = zlib.decompress(raw)
                except Exception as error:  # recorded; the comparison reports it
                    decoded = f"<undecodable {encoding} body: {error}>".encode()
                try:
                    parsed = json.loads(decoded.decode("utf-8")) if decoded else None
                except Exception:
                    parsed = None
                record = {"method": self.command, "path": self.path, "headers": dict(self.headers.items()),
                          "raw": raw, "body": decoded, "json": parsed}
                with receiver.lock:
                    receiver.requests.append(record)
                if self.command == "POST" and self.path == VENDOR_PATHS[receiver.vendor]:
                    status, answer = 200, success_body(receiver.vendor, decoded, parsed)
                else:
                    status, answer = 404, {"error": "not found"}
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_POST = do_GET = do_PUT = _handle

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)

    def snapshot(self):
        with self.lock:
            return list(self.requests)

    def events(self):
        """The events of every upload to the vendor path, in arrival order."""
        key = "events" if self.vendor == "amplitude" else "batch"
        out = []
        for request in self.snapshot():
            if request["path"] == VENDOR_PATHS[self.vendor] and isinstance(request["json"], dict):
                out.extend(request["json"].get(key) or [])
        return out

    def wait_for_events(self, count, seconds=30.0):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if len(self.events()) >= count:
                return True
            time.sleep(0.05)
        return False


# ---- the context Anna sends, computed the way Anna computes it on this machine ----

def iana_timezone():
    """The IANA name of the local time zone: $TZ, /etc/timezone, the /etc/localtime link; UTC otherwise."""
    tz = os.environ.get("TZ", "").lstrip(":")
    if tz and ("/" in tz or tz == "UTC"):
        return tz
    try:
        name = pathlib.Path("/etc/timezone").read_text().strip()
        if name:
            return name
    except OSError:
        pass
    try:
        target = os.readlink("/etc/localtime")
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    except OSError:
        pass
    return "UTC"


def locale_tag():
    """A BCP 47 tag from $LC_ALL/$LC_MESSAGES/$LANG ("de_CH.UTF-8" -> "de-CH"); en-US for C/POSIX/unset."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "")
        if value:
            value = value.split(".")[0].split("@")[0]
            if value in ("C", "POSIX"):
                break
            return value.replace("_", "-")
    return "en-US"


def anna_context(app):
    """Anna's context in Segment naming (library aside, which each side sets itself)."""
    return {"app": {"name": app["name"], "version": app["version"]},
            "os": {"name": "Linux", "version": platform.release()},
            "locale": locale_tag(), "timezone": iana_timezone()}


def ms_to_datetime(ms):
    """An aware UTC datetime for milliseconds since the epoch (exact: no float rounding)."""
    return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(milliseconds=ms)


SESSION_IDLE_MS = 30 * 60 * 1000


def with_identity(fixture):
    """(event, userId or None, sessionId) for each event: the userId of the last identify at or
    before it, and the analytics session as Anna keeps it (a session starts at its first event's
    time in ms and ends after 30 minutes without one, judged on event times)."""
    user_id = None
    session_id = None
    last_time = None
    out = []
    for event in fixture["events"]:
        if event["type"] == "identify":
            user_id = event["userId"]
        if session_id is None or event["time"] - last_time > SESSION_IDLE_MS:
            session_id = event["time"]
        last_time = event["time"] if last_time is None else max(last_time, event["time"])
        out.append((event, user_id, session_id))
    return out


# ---- the three SDKs ----

def send_segment(fixture, base_url, timeout=30.0):
    from segment.analytics import Client
    errors = []
    client = Client(fixture["apiKey"], host=base_url, upload_interval=0.2, max_retries=1,
                    on_error=lambda error, batch: errors.append(error))
    context = anna_context(fixture["app"])
    anonymous_id = fixture["anonymousId"]
    for event, user_id, _ in with_identity(fixture):
        common = dict(anonymous_id=anonymous_id, context=json.loads(json.dumps(context)),
                      timestamp=ms_to_datetime(event["time"]))
        if event["type"] == "track":
            client.track(user_id=user_id, event=event["event"], properties=event.get("properties") or {}, **common)
        elif event["type"] == "screen":
            client.screen(user_id=user_id, name=event["name"], properties=event.get("properties") or {}, **common)
        else:
            client.identify(user_id=event["userId"], traits=event.get("traits") or {}, **common)
    _bounded(client.shutdown, timeout, "segment shutdown")
    return errors


# PostHog's own mobile SDKs (posthog-ios/android/flutter/react-native) name the app and locale
# properties like this; $os/$os_version/$os_distro the Python SDK sets itself (and overrides).
def posthog_context_properties(app):
    context = anna_context(app)
    return {"$app_name": app["name"], "$app_version": app["version"],
            "$locale": context["locale"], "$timezone": context["timezone"]}


def send_posthog(fixture, base_url, timeout=30.0):
    from posthog import Posthog
    errors = []
    client = Posthog(fixture["apiKey"], host=base_url, flush_at=100, flush_interval=0.2, max_retries=1,
                     is_server=False,            # a device, not a server: no $is_server
                     disable_geoip=True,          # the SDK default: sends $geoip_disable: true
                     enable_exception_autocapture=False, enable_local_evaluation=False,
                     on_error=lambda error, batch: errors.append(error))
    context_properties = posthog_context_properties(fixture["app"])
    anonymous_id = fixture["anonymousId"]
    for event, user_id, session_id in with_identity(fixture):
        timestamp = ms_to_datetime(event["time"])
        # posthog-js and the mobile SDKs send the session as $session_id.
        context_properties = {**posthog_context_properties(fixture["app"]), "$session_id": str(session_id)}
        if event["type"] == "track":
            properties = {**(event.get("properties") or {}), **context_properties}
            client.capture(event["event"], distinct_id=user_id or anonymous_id, properties=properties,
                           timestamp=timestamp)
        elif event["type"] == "screen":
            properties = {**(event.get("properties") or {}), **context_properties, "$screen_name": event["name"]}
            client.capture("$screen", distinct_id=user_id or anonymous_id, properties=properties,
                           timestamp=timestamp)
        else:
            # posthog 7.x has no identify(): the client SDKs' identify is this $identify event.
            properties = {**context_properties, "$anon_distinct_id": anonymous_id,
                          "$set": event.get("traits") or {}}
            client.capture("$identify", distinct_id=event["userId"], properties=properties, timestamp=timestamp)
    _bounded(lambda: client.flush(timeout_seconds=timeout), timeout + 5, "posthog flush")
    _bounded(client.shutdown, timeout, "posthog shutdown")
    return errors


AMPLITUDE_SCREEN_EVENT = "[Amplitude] Screen Viewed"
AMPLITUDE_SCREEN_NAME = "[Amplitude] Screen Name"


def amplitude_event_options(fixture, user_id, time_ms, session_id):
    context = anna_context(fixture["app"])
    return dict(user_id=user_id, device_id=fixture["anonymousId"], time=time_ms, session_id=session_id,
                app_version=fixture["app"]["version"], platform="Linux", os_name="Linux",
                os_version=context["os"]["version"], language=context["locale"])


def send_amplitude(fixture, base_url, timeout=30.0):
    from amplitude import Amplitude, BaseEvent, Config, EventOptions, Identify
    results = []
    config = Config(server_url=base_url + VENDOR_PATHS["amplitude"], flush_queue_size=200,
                    flush_interval_millis=200, flush_max_retries=2,
                    callback=lambda event, code, message: results.append((code, message)))
    client = Amplitude(fixture["apiKey"], config)
    for event, user_id, session_id in with_identity(fixture):
        options = amplitude_event_options(fixture, user_id, event["time"], session_id)
        if event["type"] == "track":
            client.track(BaseEvent(event["event"], event_properties=event.get("properties") or {}, **options))
        elif event["type"] == "screen":
            properties = {**(event.get("properties") or {}), AMPLITUDE_SCREEN_NAME: event["name"]}
            client.track(BaseEvent(AMPLITUDE_SCREEN_EVENT, event_properties=properties, **options))
        else:
            identify = Identify()
            for key, value in (event.get("traits") or {}).items():
                identify.set(key, value)
            client.identify(identify, EventOptions(**options))
    for future in client.flush():
        if future is not None:
            future.result(timeout=timeout)
    _bounded(client.shutdown, timeout, "amplitude shutdown")
    return [r for r in results if r[0] != 200]


SENDERS = {"segment": send_segment, "posthog": send_posthog, "amplitude": send_amplitude}


def _bounded(function, seconds, what):
    """Runs `function` in a daemon thread; raises when it does not return within `seconds`."""
    outcome = {}

    def run():
        try:
            function()
        except BaseException as error:  # handed to the caller
            outcome["error"] = error
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AssertionError(f"{what} did not return within {seconds:.0f} s")
    if "error" in outcome:
        raise outcome["error"]


def run_sdk(vendor, fixture, timeout=30.0):
    """Sends `fixture` through the vendor's SDK to a fresh receiver; returns (requests, errors)."""
    with Receiver(vendor) as receiver:
        errors = SENDERS[vendor](fixture, receiver.base_url, timeout)
        receiver.wait_for_events(len(fixture["events"]), seconds=5)
        return receiver.snapshot(), errors

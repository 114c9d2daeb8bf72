#!/usr/bin/env python3
"""Sends a few logical events (track with nested properties, screen, identify, a track after the identify)
through each official SDK to a local receiver and writes every request to /tmp/sdk-samples/<vendor>.txt
(method, path, headers, pretty JSON body) with a key/type outline of the body and its events.

  .build/conformance-venv/bin/python tests/conformance/capture_samples.py [OUTDIR]
"""

import json
import pathlib
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the sources
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import sdk_side  # noqa: E402

SAMPLE = {
    "anonymousId": "anon-7f3a2c9e-0001", "apiKey": "test-key-123",
    "app": {"name": "Conformance", "version": "1.2.3"},
    "events": [
        {"type": "track", "event": "Product Viewed", "time": 1790000000123,
         "properties": {"sku": "K-1", "price": 9.5, "count": 3, "tags": ["a", "b"], "gift": False, "note": None,
                        "shop": {"name": "Käse 🧀", "items": [{"id": 1, "meta": {"deep": True}}]}}},
        {"type": "screen", "name": "Home", "time": 1790000001000, "properties": {"from": "launch"}},
        {"type": "identify", "userId": "user-42", "time": 1790000002500,
         "traits": {"name": "Ada", "plan": {"tier": "pro"}, "age": 36}},
        {"type": "track", "event": "Checkout", "time": 1790000003000, "properties": {"total": 12.25}},
    ],
}


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
    return "object"


def outline(value, path="", out=None):
    out = [] if out is None else out
    out.append(f"{path or '<body>'}: {json_type(value)}" + (f" = {json.dumps(value, ensure_ascii=False)}"
                                                          if json_type(value) not in ("object", "array") else ""))
    if isinstance(value, dict):
        for key, item in value.items():
            outline(item, f"{path}.{key}" if path else key, out)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            outline(item, f"{path}[{index}]", out)
    return out


def main():
    outdir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/sdk-samples")
    outdir.mkdir(parents=True, exist_ok=True)
    for vendor in ("segment", "posthog", "amplitude"):
        requests, errors = sdk_side.run_sdk(vendor, SAMPLE)
        lines = [f"# {vendor}: {len(requests)} request(s); SDK-reported errors: {errors or 'none'}", ""]
        for index, request in enumerate(requests):
            lines.append(f"## request {index + 1}: {request['method']} {request['path']}")
            for name, value in request["headers"].items():
                lines.append(f"{name}: {value}")
            lines.append("")
            if request["json"] is not None:
                lines.append(json.dumps(request["json"], indent=2, ensure_ascii=False))
                lines.append("")
                lines.append("### outline (path: JSON type = value)")
                lines.extend(outline(request["json"]))
            else:
                lines.append(request["body"].decode("utf-8", "replace"))
            lines.append("")
        (outdir / f"{vendor}.txt").write_text("\n".join(lines))
        print(f"{vendor}: {len(requests)} request(s), errors: {errors or 'none'} -> {outdir / (vendor + '.txt')}")


if __name__ == "__main__":
    main()

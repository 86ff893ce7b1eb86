#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""validate-json.py SCHEMA KEY FILE: FILE must hold exactly one JSON document,
valid against SCHEMA (JSON Schema 2020-12), whose top-level keys are KEY (comma-separated, in order)
("-" to accept any). Exit 0 valid, 1 invalid, 3 when python3-jsonschema is
missing."""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(3)


def main():
    schema_path, key, path = sys.argv[1:4]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)  # fails on a second document or trailing junk
    except json.JSONDecodeError as e:
        print(f"{path}: not exactly one JSON document: {e}", file=sys.stderr)
        return 1
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=str)
    for e in errors:
        print(f"{path}: {e.message} at {list(e.absolute_path)}", file=sys.stderr)
    if errors:
        return 1
    if key != "-" and (not isinstance(doc, dict) or list(doc) != key.split(",")):
        print(f"{path}: top-level keys {list(doc)}, want {key.split(',')}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

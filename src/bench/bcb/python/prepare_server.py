"""The harness's syntax gate and sanitizer for many snippets in one interpreter.

argv[1]: the path of bcb_harness.py, loaded as a plain module (neither its test run
nor its warm-up starts). stdin: one JSON object per line, {"id", "code", "sanitize"}
(sanitize: an entry point, or null). stdout: one JSON line per request, in order,
{"id", "code", "syntax_error"} (syntax_error: its description, or null), or
{"id", "error"} when the gate itself failed.

Only parses code (compile and ast), never runs it: safe outside the sandbox. One
interpreter serves every request because starting Python costs ~0.5 s on slow
machines, and `memrl fidelity` asks for this once per vector and switch.
"""

import json
import sys
import types


def load_harness(path):
    module = types.ModuleType("bcb_harness")
    module.__file__ = path
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), path, "exec"), module.__dict__)
    return module


def serve(harness):
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            code, syntax_error = harness.gate(request["code"], "", request.get("sanitize"))
            reply = {"id": request["id"], "code": code, "syntax_error": syntax_error}
        except Exception as exc:  # e.g. RecursionError from compile on absurdly nested code
            reply = {"id": request["id"], "error": harness._describe(exc)}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve(load_harness(sys.argv[1]))

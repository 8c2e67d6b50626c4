"""A bridge that misbehaves on request, for the bridge conformance suite.

JSON lines on stdin: {"id": n, "cmd": ...}; replies {"id": n, "ok": ...} on stdout.
echo: answers with its value and pid. fail: answers ok false with a code.
noise: floods stdout with non-JSON lines and stderr with text, then answers.
hang: never answers. die: exits mid-request. flood: one endless line on stdout.
close: answers and exits.
"""
import json
import os
import sys
import time


def reply(rid, **fields):
    sys.stdout.write(json.dumps(dict(id=rid, **fields)) + "\n")
    sys.stdout.flush()


for raw in sys.stdin:
    try:
        req = json.loads(raw)
    except ValueError:
        continue  # a stray line (an engine's attach handshake)
    if not isinstance(req, dict):
        continue
    rid, cmd = req.get("id"), req.get("cmd")
    if cmd == "echo":
        reply(rid, ok=True, value=req.get("value"), pid=os.getpid())
    elif cmd == "fail":
        reply(rid, ok=False, error="no such thing", code="not_found")
    elif cmd == "noise":
        for i in range(20000):
            sys.stdout.write("noise line %d, not JSON\n" % i)
        sys.stdout.flush()
        for _ in range(200):
            sys.stderr.write("e" * 65536 + "\n")
        sys.stderr.flush()
        reply(rid, ok=True, value="after the noise")
    elif cmd == "hang":
        time.sleep(3600)
    elif cmd == "die":
        os._exit(3)
    elif cmd == "flood":
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    elif cmd == "close":
        reply(rid, ok=True)
        sys.exit(0)
    else:
        reply(rid, ok=False, error="unknown command", code="bad_request")

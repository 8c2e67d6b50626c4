"""Times BigCodeBench's own checker (bigcodebench.eval.untrusted_check from a checkout)
on the tasks given on stdin, as its evaluate.py runs them: a process pool of --workers,
each task checked in a forked child. Prints one JSON line per task and a summary line.
Used by `npm run bench:sandbox --bigcodebench <checkout>` (scripts/bench-sandbox.ts)."""

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed


def check(task):
    from bigcodebench.eval import untrusted_check

    started = time.monotonic()
    code = task["complete_prompt"] + "\n" + task["canonical_solution"]
    # evaluate.py's defaults: 30 GiB address space and data, 10 MiB stack, 1 s minimum; no ground-truth times.
    status, _details = untrusted_check(code, task["test"], task["entry_point"], 30 * 1024, 30 * 1024, 10, 1, 60)
    return {"id": task["task_id"], "status": status, "ms": int((time.monotonic() - started) * 1000)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkout", required=True)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, args.checkout)
    tasks = [json.loads(line) for line in sys.stdin if line.strip()]
    # Newer checkouts print what they intercept (subprocess calls, kills) to stdout:
    # the results keep a copy of stdout to themselves, and fd 1 (inherited by the
    # workers and the tests) goes to stderr.
    results = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for future in as_completed([pool.submit(check, t) for t in tasks]):
            print(json.dumps(future.result()), file=results, flush=True)
    print(json.dumps({"wall_ms": int((time.monotonic() - started) * 1000)}), file=results, flush=True)


if __name__ == "__main__":
    main()

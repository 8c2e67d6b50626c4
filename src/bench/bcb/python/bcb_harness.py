"""memrl's BigCodeBench test runner. Runs inside the sandbox, one task per process.

Input (stdin): one JSON object
    {"nonce": str, "code": str, "test": str,
     "prefix": str (put before the code: the task's code_prompt in calibrated mode),
     "sanitize": str | null (an entry point: run BigCodeBench's sanitizer on the code),
     "limits": {"address_space": int, "data": int, "stack": int},
     "mpl_fontlist": {"name": str, "json": str} | null}
Output (file descriptor 3, so test output cannot drown it): one JSON line
    {"nonce", "status", "tests_run", "failures", "errors", "first_error", "issues"}
status: pass | fail | syntax_error | runtime_error | error (harness problem).
Timeouts are decided by the caller, which kills the whole sandbox.
Run as module "__warm__" (a fork server's warm-up, stdin {"mpl_fontlist"}), it
only imports what every run imports, so the runs forked from it find them loaded.

Execution follows BigCodeBench's evaluator where it affects verdicts: solution
and tests form one module "__test__" (code + newline + test) that already has
sys, os and environ in scope; output is swallowed and stdin cannot be read; TZ is
UTC; exit()/quit() are unset; signals only reach the tested process and its
descendants, and shell commands that kill (or run ps) are faked; then unittest
runs TestCases and any failure or error fails the task.
"""

import ast
import builtins
import contextlib
import faulthandler
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import traceback
import types
import unittest

MODULE_NAME = "__test__"
MAX_MESSAGE = 1000
MAX_ISSUES = 5
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def _describe(exc):
    """'Type: first meaningful line of the message' for an exception instance."""
    if isinstance(exc, SyntaxError):
        where = " (line %s)" % exc.lineno if exc.lineno else ""
        return ("%s: %s%s" % (type(exc).__name__, exc.msg, where))[:MAX_MESSAGE]
    text = "".join(traceback.format_exception_only(type(exc), exc))
    text = _ANSI.sub("", text)  # NLTK colours its messages
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    head = lines[0]
    # Messages such as NLTK's LookupError start with an empty line or a rule of '*'.
    if not any(ch.isalnum() for ch in head.partition(":")[2]):
        detail = next((line for line in lines[1:] if any(ch.isalnum() for ch in line)), "")
        head = (head.rstrip(":") + ": " + detail) if detail else head.rstrip(":")
    return head[:MAX_MESSAGE]


# --------------------------------------------------------------------------
# Output channel. fd 3 is moved out of the way so stray writes to fd 3 miss it.

def _open_channel():
    try:
        fd = os.dup(3)
        os.close(3)
        return os.fdopen(fd, "w", encoding="utf-8")
    except OSError:
        return sys.__stdout__


# Only as the test program: a fork server's warm-up (see warm()) must leave its fds alone.
_channel = _open_channel() if __name__ == "__main__" else None
# Our own references: the tested code may patch or mock the module attributes.
_dumps = json.dumps
_exit = os._exit


def _report(nonce, status, **fields):
    record = {"nonce": nonce, "status": status, "tests_run": 0, "failures": 0, "errors": 0, "first_error": None}
    record.update(fields)
    _channel.write(_dumps(record) + "\n")
    _channel.flush()
    # Skip interpreter shutdown: leftover non-daemon threads or atexit hooks
    # from the tested code must not hold the sandbox open after the verdict.
    _exit(0)


# --------------------------------------------------------------------------
# Package aliases. Debian ships PyCryptodome only as "Cryptodome" (the
# pycryptodomex build); BigCodeBench's environment has the same library as
# "Crypto". Same code, other name: map imports of the missing name onto it.

PACKAGE_ALIASES = {"Crypto": "Cryptodome"}


class _AliasFinder:
    """Meta-path finder serving `alias[.sub]` from the already installed `target[.sub]`."""

    def __init__(self, alias, target):
        self.alias = alias
        self.target = target

    def find_spec(self, name, path=None, target=None):
        if name != self.alias and not name.startswith(self.alias + "."):
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        import importlib

        module = importlib.import_module(self.target + spec.name[len(self.alias):])
        self._saved_spec = getattr(module, "__spec__", None)
        return module

    def exec_module(self, module):
        # The import machinery stamped the alias spec on the real module: undo that.
        module.__spec__ = self._saved_spec


def _install_aliases():
    import importlib.util

    for alias, target in PACKAGE_ALIASES.items():
        try:
            if importlib.util.find_spec(alias) is None and importlib.util.find_spec(target) is not None:
                # First in line: otherwise the path finder would load second copies of submodules.
                sys.meta_path.insert(0, _AliasFinder(alias, target))
        except (ImportError, ValueError):
            pass


# --------------------------------------------------------------------------
# Environment guard, applied after our own imports and before untrusted code.

def _clamp_limit(kind, wanted):
    """Lower a limit to `wanted`, never above the hard limit the caller set."""
    soft, hard = resource.getrlimit(kind)
    value = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(kind, (value, value))
    except (ValueError, OSError):
        pass


class _ProcessGuard:
    """Lets the tested code signal only itself and processes descending from it.

    Inside the sandbox's PID namespace every process except the namespace init
    (pid 1) descends from this one, so "pid > 1" is exactly that set. Signals to
    pid 1, to "all processes" (-1) or to our whole group (0) are dropped, like
    BigCodeBench drops signals to processes the test did not start. (Tracking only
    subprocess.Popen children, as BigCodeBench does, also drops multiprocessing's
    signals to its own pool workers and hangs Pool.terminate().)
    """

    def __init__(self):
        self.pid = os.getpid()
        self.pgid = os.getpgid(0)
        self.real = {
            "kill": os.kill,
            "killpg": os.killpg,
            "system": os.system,
            "popen": os.popen,
            "execv": os.execv,
            "execvp": os.execvp,
            "execvpe": os.execvpe,
            "call": subprocess.call,
            "run": subprocess.run,
            "check_output": subprocess.check_output,
            "Popen": subprocess.Popen,
        }

    def install(self):
        guard = self
        real = self.real

        def kill(pid, sig):
            if pid == guard.pid or pid > 1:
                return real["kill"](pid, sig)
            return None

        def killpg(pgid, sig):
            if pgid == guard.pgid or pgid > 1:
                return real["killpg"](pgid, sig)
            return None

        def mentions(command, word):
            # A string is searched for the word; an argv list for the exact item.
            try:
                return word in command
            except TypeError:
                return False

        def system(command):
            return 0 if mentions(command, "kill") else real["system"](command)

        def popen(command, *args, **kwargs):
            if mentions(command, "kill"):
                return real["popen"](":", *args, **kwargs)
            return real["popen"](command, *args, **kwargs)

        def no_exec(*args, **kwargs):
            return None

        def call(command, *args, **kwargs):
            return 0 if mentions(command, "kill") else real["call"](command, *args, **kwargs)

        def run(*args, **kwargs):
            command = args[0] if args else kwargs.get("args")
            if mentions(command, "kill"):
                return subprocess.CompletedProcess(command, 0, b"", b"")
            if not kwargs.get("capture_output"):
                kwargs.setdefault("stdout", subprocess.PIPE)
                kwargs.setdefault("stderr", subprocess.PIPE)
            return real["run"](*args, **kwargs)

        def check_output(command, *args, **kwargs):
            return b"" if mentions(command, "ps") else real["check_output"](command, *args, **kwargs)

        class GuardedPopen(real["Popen"]):
            def __init__(self, *args, **kwargs):
                kwargs["start_new_session"] = True
                kwargs.setdefault("stdout", subprocess.PIPE)
                kwargs.setdefault("stderr", subprocess.PIPE)
                super().__init__(*args, **kwargs)

            def communicate(self, *args, **kwargs):
                try:
                    return super().communicate(*args, **kwargs)
                except subprocess.TimeoutExpired:
                    return None, None

            def kill(self):
                kill(self.pid, signal.SIGTERM)

            def terminate(self):
                kill(self.pid, signal.SIGTERM)

        os.kill, os.killpg, os.system, os.popen = kill, killpg, system, popen
        os.execv = os.execvp = os.execvpe = no_exec
        subprocess.call, subprocess.run, subprocess.check_output = call, run, check_output
        subprocess.Popen = GuardedPopen


_plt = None


def _prepare_matplotlib(fontlist):
    """Agg backend, and the font list made by the caller so no run rescans all fonts."""
    global _plt
    os.environ["MPLBACKEND"] = "Agg"
    if fontlist:
        try:
            cache_dir = os.environ.setdefault("MPLCONFIGDIR", "/tmp/.config/matplotlib")
            os.makedirs(cache_dir, exist_ok=True)
            with open(os.path.join(cache_dir, os.path.basename(fontlist["name"])), "w", encoding="utf-8") as f:
                f.write(fontlist["json"])
        except (OSError, KeyError, TypeError):
            pass  # matplotlib rebuilds it: slower, same result
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        _plt = plt
    except Exception:  # matplotlib missing or broken: tasks that need it will say so
        _plt = None


def _guard_environment():
    os.environ["TZ"] = "UTC"
    time.tzset()
    os.environ["OMP_NUM_THREADS"] = "1"
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"


def _apply_guard(limits):
    _guard_environment()
    _clamp_limit(resource.RLIMIT_AS, int(limits.get("address_space", 30 << 30)))
    _clamp_limit(resource.RLIMIT_DATA, int(limits.get("data", 30 << 30)))
    _clamp_limit(resource.RLIMIT_STACK, int(limits.get("stack", 10 << 20)))
    faulthandler.disable()
    builtins.exit = None
    builtins.quit = None
    if _plt is not None:
        _plt.close("all")
    _ProcessGuard().install()


# --------------------------------------------------------------------------
# Output swallowing: the tested code may print freely; nothing is read back.

class _Sink(io.StringIO):
    """Accepts writes (keeping only a bounded amount) and refuses reads."""

    LIMIT = 1 << 20

    def write(self, text):
        if self.tell() < self.LIMIT:
            super().write(text[: self.LIMIT])
        return len(text)

    def read(self, *args, **kwargs):
        raise OSError("stdin is not readable during tests")

    readline = read
    readlines = read

    def readable(self):
        return False


@contextlib.contextmanager
def _swallowed_io():
    sink = _Sink()
    saved = sys.stdout, sys.stderr, sys.stdin
    sys.stdout = sys.stderr = sys.stdin = sink
    try:
        yield
    finally:
        sys.stdout, sys.stderr, sys.stdin = saved


# --------------------------------------------------------------------------

class _Recorder(unittest.TestResult):
    """A TestResult that remembers failures and errors in the order they happen."""

    def __init__(self):
        super().__init__()
        self.issues = []

    def _note(self, test, kind, err):
        if len(self.issues) < MAX_ISSUES:
            name = getattr(test, "_testMethodName", None) or str(test)
            self.issues.append({"test": name, "kind": kind, "message": _describe(err[1])})

    def addError(self, test, err):
        super().addError(test, err)
        self._note(test, "error", err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._note(test, "failure", err)

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            kind = "failure" if issubclass(err[0], test.failureException) else "error"
            self._note(subtest, kind, err)



# --------------------------------------------------------------------------
# BigCodeBench's sanitizer (bigcodebench/sanitize.py: sanitize), the same rules on
# Python's ast instead of tree-sitter. It only parses the code, never runs it. Kept:
# top-level imports, then the top-level classes, functions and assignments the entry
# point reaches by name (the first definition of each name; decorated definitions are
# not definitions to it). Dropped: everything else at top level, such as demo calls,
# prints and `if __name__ == "__main__":` blocks.

def _parses(text):
    try:
        ast.parse(text)
        return True
    except (SyntaxError, MemoryError):
        return False


def _code_extract(text):
    """The contiguous run of lines (two or more) that parses and has the most non-blank lines."""
    lines = text.split("\n")
    if len(lines) < 2 or (lines[-1].strip() and _parses(text)):
        return text  # what the search below would find
    best, best_count = (0, 0), 0
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            if _parses("\n".join(lines[i : j + 1])):
                count = sum(1 for line in lines[i : j + 1] if line.strip())
                if count > best_count:
                    best, best_count = (i, j), count
    return "\n".join(lines[best[0] : best[1] + 1])


def _definition_name(node):
    """The name tree-sitter's grammar would give: the first plain identifier among the assignment's parts."""
    if isinstance(node, ast.Assign):
        if isinstance(node.targets[0], ast.Name):
            return node.targets[0].id
        return node.value.id if len(node.targets) == 1 and isinstance(node.value, ast.Name) else None
    if isinstance(node.target, ast.Name):
        return node.target.id
    return node.value.id if isinstance(node.value, ast.Name) else None


def _identifiers(node):
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.Attribute):
            names.add(n.attr)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.keyword) and n.arg:
            names.add(n.arg)
        elif isinstance(n, ast.alias):
            names.update(n.name.split("."))
            if n.asname:
                names.add(n.asname)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def _target_code(code, entry_point):
    code = _code_extract(code.strip())
    try:
        tree = ast.parse(code)
    except (SyntaxError, MemoryError):
        return ""  # tree-sitter would find no definitions in it either
    imports, definitions, seen = [], [], set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(node)
            continue
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.decorator_list:
                continue
            name = node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            name = _definition_name(node)
        else:
            continue
        if name not in seen:
            seen.add(name)
            definitions.append((name, node))
    graph = {name: _identifiers(node) for name, node in definitions}
    reachable, queue = {entry_point}, [entry_point]
    while queue:
        for dep in graph.get(queue.pop(0), ()):
            if dep not in reachable:
                reachable.add(dep)
                queue.append(dep)
    out = "".join(ast.get_source_segment(code, n) + "\n" for n in imports)
    out += "".join(ast.get_source_segment(code, n) + "\n" for name, n in definitions if name in reachable)
    out = out[:-1]
    # BigCodeBench's last step: drop trailing top-level lines that mention the entry point.
    lines = out.splitlines()
    outer = []
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].startswith(" "):
            break
        if entry_point in lines[i]:
            outer.append(i)
    if outer:
        out = "\n".join(lines[: outer[-1]])
    return out


def sanitize(code, entry_point):
    """BigCodeBench's sanitize(); like MemRL's sanitize_code, the code unchanged if it fails."""
    try:
        kept = _target_code(code, entry_point).strip()
        return kept if kept else _code_extract(code)
    except Exception:
        return code


def gate(code, prefix, entry_point):
    """(code to test, None), or (code as given, the syntax error's description).

    The syntax gate comes first, on the code as extracted (MemRL's order): code that
    does not compile is a syntax_error and never runs, sanitized or not; code that
    does is sanitized when an entry point is given. Pure: prepare_server.py reuses it.
    """
    try:
        compile(prefix + code, MODULE_NAME + ".py", "exec")
    except (SyntaxError, ValueError) as exc:
        return code, _describe(exc)
    return (sanitize(code, entry_point) if entry_point else code), None


# --------------------------------------------------------------------------

def main():
    try:
        payload = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        nonce = payload["nonce"]
        code = payload["code"]
        test = payload["test"]
        prefix = payload.get("prefix") or ""
        entry_point = payload.get("sanitize")
        limits = payload.get("limits") or {}
        fontlist = payload.get("mpl_fontlist")
    except Exception as exc:  # the caller sent something unusable
        _report(None, "error", first_error="harness input: " + _describe(exc))
        return

    code, syntax_error = gate(code, prefix, entry_point)
    if syntax_error is not None:
        _report(nonce, "syntax_error", first_error=syntax_error)
        return
    try:
        program = compile(prefix + code + "\n" + test, MODULE_NAME + ".py", "exec")
    except (SyntaxError, ValueError) as exc:
        # The solution compiles alone, so the test (or the joint) is at fault.
        _report(nonce, "error", first_error="test code does not compile: " + _describe(exc))
        return

    _prepare_matplotlib(fontlist)
    module = types.ModuleType(MODULE_NAME)
    module.__dict__.update(
        {"__builtins__": builtins, "__file__": MODULE_NAME + ".py", "__package__": None, "__doc__": None,
         "sys": sys, "os": os, "environ": os.environ}
    )
    sys.modules[MODULE_NAME] = module
    _install_aliases()
    _apply_guard(limits)

    with _swallowed_io():
        try:
            exec(program, module.__dict__)
        except BaseException as exc:
            failure = ("runtime_error", _describe(exc))
        else:
            failure = None
        if failure is None:
            cases = module.__dict__.get("TestCases")
            if not (isinstance(cases, type) and issubclass(cases, unittest.TestCase)):
                failure = ("runtime_error", "the test code defines no TestCases class")
        if failure is None:
            result = _Recorder()
            started = time.monotonic()
            try:
                unittest.TestLoader().loadTestsFromTestCase(cases).run(result)
            except BaseException as exc:
                failure = ("fail", "test run aborted: " + _describe(exc))
            tests_ms = int((time.monotonic() - started) * 1000)

    if failure is not None:
        _report(nonce, failure[0], first_error=failure[1])
        return
    bad = len(result.failures) + len(result.errors)
    first = result.issues[0] if result.issues else None
    _report(
        nonce,
        "fail" if bad else "pass",
        tests_run=result.testsRun,
        failures=len(result.failures),
        errors=len(result.errors),
        first_error=(first["test"] + ": " + first["message"]) if first else None,
        issues=result.issues,
        tests_ms=tests_ms,
    )


def warm():
    """A fork server's warm-up (stdin: {"mpl_fontlist"}): what every run imports, done once."""
    try:
        fontlist = json.loads(sys.stdin.read() or "{}").get("mpl_fontlist")
    except ValueError:
        fontlist = None
    _prepare_matplotlib(fontlist)
    # The environment the tested code's imports see: a fork server's templates import with it.
    _guard_environment()


if __name__ == "__main__":
    main()
elif __name__ == "__warm__":
    warm()

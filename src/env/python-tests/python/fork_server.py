"""memrl's warm Python: a fork server for untrusted test programs.

It runs as PID 1 of its own sandbox (bubblewrap --as-pid-1, or a container's main
process) and starts every test program as a fresh child forked from an interpreter
that has already imported the heavy libraries, instead of a new interpreter that
imports them again. Everything else about a run stays as in a fresh sandbox: the
child's parent is PID 1, it gets its own session, fds, environment, working
directory and rlimits, and when it ends every other process in the namespace is
killed and /tmp and /dev/shm are emptied before the next run.

Requests (stdin, one JSON object per line) and replies (our original stdout; our
fd 1 is pointed at stderr, so library chatter cannot corrupt the replies):

  {"op": "warm", "program": str, "input": str}
      runs `program` once in this interpreter as module "__warm__", stdin = input
      -> {"ok": true, "python": str} | {"ok": false, "error": str}
  {"op": "run", "program": str, "input": str, "env": {str: str},
   "preload": [module], "preload_ahead": int, "limits": {name: int}, "timeout": float,
   "result_bytes": int, "output_bytes": int, "merge_output": bool}
      -> {"result", "stderr", "exit_code", "timed_out", "duration_ms", "clean", "note",
          "prepare_ms", "templates_made", "restore_ms", "templates_kb", "copied_ahead_kb"}

`preload` names modules the program will import (the task's own imports): from a
list's third run on they are imported once in a template process forked from this
one and kept for later runs with the same list (its first two runs fork from the
template closest to the list and import the rest themselves; with `preload_ahead`,
the runs of the list still to come here, the count includes those); the test child
is forked from the template and handed over to PID 1 (double fork), so its parent is
PID 1 as in a fresh sandbox.
A source's (this process's, or a template's) first few test children report the pages
of its memory they copied on write (from /proc/self/pagemap at their exit), and its
later children copy those pages at once, first thing, with one madvise call per range:
on some VMs each copy-on-write fault costs ~25 us, and two children faulting at once
nearly take turns. A copy has the same bytes, so the test cannot tell; a report is
only ever a hint, checked against the source's own mappings and capped. What a
reporting child could notice: one more fd, its highest, and os._exit wrapped.
`clean` is false when the namespace could not be brought back to its first state
(a process survived, a file could not be removed, System V IPC objects remain):
the caller then retires this server.
"""

import atexit
import bisect
import builtins
import ctypes
import gc
import importlib
import io
import json
import os
import re
import resource
import select
import shutil
import signal
import socket
import stat
import sys
import time
import traceback
import types

_libc = ctypes.CDLL(None, use_errno=True)
_PR_SET_DUMPABLE = 4
MAX_FD = 65536
# Templates kept per server (each holds its own imported libraries in memory).
MAX_TEMPLATES = 16
# The run of an import list from which on it has a template of its own (see Server.template).
TEMPLATE_FROM_RUN = 3
# Memory the templates may add up to together (kB): a container's server
# gets 1 GiB on top of a test's memory limit (FORK_SERVER.containerExtraMb), for itself too.
TEMPLATE_MEMORY_KB = 768 << 10
# How long a template may take to hand over a child before it is given up.
TEMPLATE_REPLY_SEC = 10.0
# After the test ended and the rest was killed: how long its pipes may take to close.
DRAIN_SEC = 2.0
# How long a test child forked through a template waits for the middle process to exit
# (it exits right after the fork; only a machine under heavy load makes this take ms).
HANDOFF_SEC = 2.0
# Writable places a test can leave files in (/var/tmp is its own mount in a container, a link to /tmp in bubblewrap).
SCRATCH = tuple(p for p in ("/tmp", "/dev/shm", "/var/tmp") if os.path.isdir(p) and not os.path.islink(p))
WORKDIR = "/tmp/work"

# Copying ahead: reports asked of a source's first children, pages and ranges it copies at most.
PREFAULT_REPORTS = 2
PREFAULT_MAX_PAGES = 16384  # 64 MB
PREFAULT_MAX_RANGES = 4096  # keeps a template's message well under a socket's buffer
REPORT_BYTES = 1 << 20
PAGE = resource.getpagesize()
_MADV_POPULATE_WRITE = 23  # Linux 5.14; older kernels refuse it and the test faults as before

RLIMITS = {
    "as": resource.RLIMIT_AS,
    "nproc": resource.RLIMIT_NPROC,
    "fsize": resource.RLIMIT_FSIZE,
    "cpu": resource.RLIMIT_CPU,
    "nofile": resource.RLIMIT_NOFILE,
    "core": resource.RLIMIT_CORE,
}


_libc.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)


def _set_dumpable(flag):
    # Not dumpable: processes of the same user (the tests) can neither ptrace us nor open /proc/<pid>/fd or mem.
    _libc.prctl(_PR_SET_DUMPABLE, 1 if flag else 0, 0, 0, 0)


def _memfd(name, data):
    fd = os.memfd_create(name, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_fd(fd):
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


# --------------------------------------------------------------------------
# Copying ahead the pages a test will copy on write.

# (address, length) ranges this process's test children copy first; a template
# forked from us starts with ours until its own children have reported.
_PREFAULT = []
# Whether a page's pagemap entry says present (bit 63) and mapped by this process
# alone (bit 56): looked up by the entry's last byte, one character per page.
_COPIED = bytes(0x31 if b & 0x81 == 0x81 else 0x30 for b in range(256))


def _private_writable():
    """This process's private writable mappings, as (first page, end page)."""
    found = []
    with open("/proc/self/maps") as f:
        for line in f:
            fields = line.split()
            if fields[1].startswith("rw") and fields[1][3] == "p":
                lo, hi = (int(x, 16) // PAGE for x in fields[0].split("-"))
                found.append((lo, hi))
    return found


def _copied_pages(regions):
    """[first page, count] runs of the pages in `regions` that this process now holds alone."""
    runs = []
    with open("/proc/self/pagemap", "rb", buffering=0) as f:
        for lo, hi in regions:
            f.seek(lo * 8)
            flags = f.read((hi - lo) * 8)[7::8].translate(_COPIED)
            runs.extend([lo + m.start(), m.end() - m.start()] for m in re.finditer(rb"1+", flags))
    return runs


def _joined(spans, gap):
    """Sorted [first page, end page) spans as [first, end] lists, those at most `gap` pages apart joined."""
    out = []
    for a, b in spans:
        if out and a <= out[-1][1] + gap:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _use_prefault(runs):
    """Takes reported runs as what our children copy first: only pages inside our own
    private writable mappings, neighbours a page apart joined, within the caps."""
    regions = sorted(_private_writable())
    starts = [lo for lo, _hi in regions]
    pages = []
    for lo, count in sorted(runs):
        hi = lo + count
        # From the last region starting at or before `lo`, while they start before `hi`.
        i = max(0, bisect.bisect_right(starts, lo) - 1)
        while i < len(regions) and regions[i][0] < hi:
            a, b = max(lo, regions[i][0]), min(hi, regions[i][1])
            if a < b:
                pages.append((a, b))
            i += 1
    kept, total = [], 0
    for a, b in _joined(pages, 1)[:PREFAULT_MAX_RANGES]:
        if total + b - a > PREFAULT_MAX_PAGES:
            break
        kept.append((a * PAGE, (b - a) * PAGE))
        total += b - a
    _PREFAULT[:] = kept


def _copy_ahead():
    """Copies the pages of _PREFAULT into this process now, one madvise per range."""
    for address, length in _PREFAULT:
        _libc.madvise(address, length, _MADV_POPULATE_WRITE)


def _prefault_kb():
    return sum(length for _address, length in _PREFAULT) >> 10


class CopiedPages:
    """What a source's test children copied, as its first few report it; PID 1 keeps
    one for itself and one per template, and passes the union on to the source."""

    def __init__(self):
        self.asked = 0
        self.runs = []
        self.unsent = False

    def ask(self):
        """Whether the next child should report."""
        if self.asked >= PREFAULT_REPORTS:
            return False
        self.asked += 1
        return True

    def add(self, raw):
        """A child's report: a JSON list of [first page, count]; anything else is ignored."""
        try:
            runs = json.loads(raw)
            if not all(type(r) is list and len(r) == 2 and all(type(x) is int and 0 <= x < 1 << 52 for x in r) for r in runs):
                return
        except (ValueError, TypeError):
            return
        pages = set()  # what was kept so far first, then the report's, while they fit
        for lo, count in self.runs + runs:
            if len(pages) + count > PREFAULT_MAX_PAGES:
                break
            pages.update(range(lo, lo + count))
        union = _joined(((page, page + 1) for page in sorted(pages)), 0)
        self.runs = [[a, b - a] for a, b in union[:PREFAULT_MAX_RANGES]]
        self.unsent = True

    def take(self):
        """The runs, once after each change; None when the source has them already."""
        if not self.unsent:
            return None
        self.unsent = False
        return self.runs


# The reporting test child: its pid (a process the test forks has another), the
# mappings to look at, and the fd its report goes to.
_REPORT = {}
_os_exit = os._exit


def _exit_reporting(status):
    """os._exit for a reporting child: reports first (a test's harness often ends with
    os._exit, which skips everything else)."""
    if _REPORT.get("pid") == os.getpid():
        try:
            data = json.dumps(_copied_pages(_REPORT["regions"])).encode()
            view = memoryview(data)
            while view:
                view = view[os.write(_REPORT["fd"], view):]
        except BaseException:
            pass
    _os_exit(status)


# --------------------------------------------------------------------------
# The test child: from here on it must look like `python -B -c program` started
# fresh in the sandbox, under the requested limits.

# Random generators that exist in this process (found after the warm-up and after a
# template's imports): a child reseeds them, as a fresh interpreter would have seeded
# them at import. Modules a child imports itself seed their own.
_RNGS = []


def _find_rngs():
    import random

    numpy_random = sys.modules.get("numpy.random")
    kinds = (random.Random,) + ((numpy_random.RandomState, numpy_random.Generator) if numpy_random else ())
    found = {}
    for module in list(sys.modules.values()):
        try:
            values = list(vars(module).values())
        except TypeError:
            continue
        for value in values:
            # type(), not isinstance(): a lazy proxy (Django's settings) would evaluate itself.
            if issubclass(type(value), kinds) and value is not getattr(random, "_inst", None):
                found[id(value)] = value  # os.fork already reseeds random's global instance
    _RNGS[:] = found.values()


def _reseed():
    for value in _RNGS:
        try:
            if hasattr(value, "seed"):  # random.Random, numpy's RandomState
                value.seed()
            else:  # numpy's Generator
                value.bit_generator.state = type(value.bit_generator)().state
        except Exception:
            pass


# Compiled programs by source (the same harness runs test after test); filled by PID 1.
_COMPILED = {}


def _exit_status(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def _become_test(meta, program_fd, input_fd, out_fd, err_fd, result_fd, report_fd=None):
    """Turns this freshly forked process into the test program. Never returns."""
    _copy_ahead()
    try:
        if report_fd is not None:
            # Out of the test's way: the highest fd it may have, and closed in anything it execs.
            high = resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 1
            os.dup2(report_fd, high, inheritable=False)
            _REPORT.update(pid=os.getpid(), regions=_private_writable(), fd=high)
            os._exit = _exit_reporting
        os.setsid()
        # Read first: the fds may be numbered so that a dup2 below lands on this one.
        program = os.pread(program_fd, os.fstat(program_fd).st_size, 0).decode("utf-8")
        os.dup2(input_fd, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        os.dup2(result_fd, 3)
        if _REPORT:
            os.closerange(4, _REPORT["fd"])
            os.closerange(_REPORT["fd"] + 1, MAX_FD)
        else:
            os.closerange(4, MAX_FD)
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        _set_dumpable(True)
        for name, value in meta["limits"].items():
            which = RLIMITS[name]
            hard = resource.getrlimit(which)[1]
            value = int(value)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            resource.setrlimit(which, (value, value))
        os.chdir(WORKDIR)
        os.environ.clear()
        os.environ.update(meta["env"])
        sys.stdin = sys.__stdin__ = open(0, "r", encoding="utf-8", closefd=False)
        sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = sys.__stderr__ = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)
        sys.argv = ["-c"]
        importlib.invalidate_caches()
        _reseed()
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = main
        code = _COMPILED.get(program) or compile(program, "<string>", "exec")
        # Forked through a template, our parent is the middle process until it has
        # exited; a test reading os.getppid() must find PID 1, as in a fresh sandbox.
        deadline = time.monotonic() + HANDOFF_SEC
        while os.getppid() != 1 and time.monotonic() < deadline:
            time.sleep(0.0002)
    except BaseException:
        try:
            os.write(2, ("fork server: could not start the test: " + traceback.format_exc()).encode())
        finally:
            os._exit(70)
    status = 0
    try:
        exec(code, main.__dict__)
    except SystemExit as exc:
        status = _exit_status(exc)
    except BaseException:
        traceback.print_exc()
        status = 1
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    _exit_reporting(status)


# --------------------------------------------------------------------------
# Templates: processes holding a preload list's imports, forking test children.

def _template_main(modules, sock):
    """A new template (forked from PID 1 or from another template): imports the
    modules, then serves its socket. Never returns."""
    keep = sock.fileno()
    for fd in range(3, 1024):
        if fd != keep:
            try:
                os.close(fd)
            except OSError:
                pass
    signal.set_wakeup_fd(-1)
    # Its own children (middle processes, templates forked from it) are reaped by the kernel.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    failed = []
    # No collections while importing (~20% of a large import's time): what the imports
    # leave as garbage is collected once, before the heap is frozen.
    gc.disable()
    try:
        for name in modules:
            try:
                importlib.import_module(name)
            except BaseException:
                failed.append(name)
    finally:
        gc.enable()
    _find_rngs()
    _freeze_heap()
    sock.send(json.dumps({"failed": failed, "pid": os.getpid(), "kb": _private_kb()}).encode())
    if failed:
        os._exit(0)  # PID 1 makes a template without them: a failed import leaves half-imported state
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(sock, 1 << 18, 6)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        meta = json.loads(message)
        if meta.get("op") == "template":
            # A template with more modules, forked from this one: it imports only the rest.
            if os.fork() == 0:
                sock.close()
                _template_main(meta["modules"], socket.socket(fileno=fds[0]))
            os.close(fds[0])
            sock.send(b"ok")
            continue
        if "prefault" in meta:
            _use_prefault(meta.pop("prefault"))
        r, w = os.pipe()
        middle = os.fork()
        if middle == 0:
            # The middle process forks the test and exits at once: the test is handed over to PID 1.
            # Not ignoring SIGCHLD here: a test that ends before we exit must stay a zombie for PID 1 to reap.
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            child = os.fork()
            if child == 0:
                os.close(r)
                os.close(w)
                sock.close()
                _become_test(meta, *fds)
            os.write(w, str(child).encode())
            os._exit(0)
        os.close(w)
        pid = _read_fd(r)
        os.close(r)
        for fd in fds:
            os.close(fd)
        sock.send(b"%s %d" % (pid or b"0", _prefault_kb()))


def _freeze_heap():
    # What is alive now is kept out of every later collection (gc.freeze): a child's
    # collections then never write to the objects it shares with us, each write
    # copying a page (copy-on-write faults cost ~14 us each in some VMs). The child's
    # own objects are collected as in a fresh interpreter; what it could notice is
    # only that gc.get_objects() and gc.get_referrers() leave out the frozen ones.
    gc.collect()
    gc.freeze()


def _private_kb():
    """Memory this process holds alone (its own pages, not those it shares with the
    process it was forked from), in kB; 0 if unreadable."""
    total = 0
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                if line.startswith(("Private_Clean:", "Private_Dirty:")):
                    total += int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return total


def _with_packages(modules):
    """The modules and the packages above them (a.b.c: a, a.b, a.b.c), sorted."""
    out = set()
    for name in modules:
        parts = name.split(".")
        out.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return tuple(sorted(m for m in out if m not in sys.modules))


class Template:
    """A process that holds `modules` imported, forked from PID 1 or from `parent`."""

    def __init__(self, modules, parent=None):
        self.modules = modules
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if parent is None:
            if os.fork() == 0:
                ours.close()
                _template_main(modules, theirs)
        else:
            rest = [m for m in modules if m not in parent.modules]
            try:
                socket.send_fds(parent.sock, [json.dumps({"op": "template", "modules": rest}).encode()], [theirs.fileno()])
                if parent.sock.recv(64) != b"ok":
                    raise OSError("the parent template did not fork")
            except OSError:
                ours.close()
                theirs.close()
                raise
        theirs.close()
        self.sock = ours
        self.sock.settimeout(TEMPLATE_REPLY_SEC + 120)  # its imports may take a while on a cold disk
        reply = self.sock.recv(1 << 16)
        if not reply:
            self.sock.close()
            raise OSError("the template died while importing " + ", ".join(modules))
        reply = json.loads(reply)
        self.pid = reply["pid"]
        self.failed = reply["failed"]
        # What its imports added to the memory of the template it was forked from.
        self.kb = reply["kb"]
        # A pidfd, not the pid: a pid can be reused by a test's process once the template is gone.
        self.pidfd = os.pidfd_open(self.pid)
        self.sock.settimeout(TEMPLATE_REPLY_SEC)
        self.copied = CopiedPages()

    def alive(self):
        return not select.select([self.pidfd], [], [], 0)[0]

    def spawn(self, meta, fds):
        """Forks a test child: its pid (0 if none) and the kB it copies ahead."""
        socket.send_fds(self.sock, [json.dumps(meta).encode()], fds)
        pid, kb = (self.sock.recv(64) or b"0 0").split()
        return int(pid), int(kb)

    def stop(self):
        if self.alive():
            os.kill(self.pid, signal.SIGKILL)
        self.sock.close()
        os.close(self.pidfd)


# --------------------------------------------------------------------------
# PID 1.

class Server:
    def __init__(self):
        self.templates = {}  # its modules (sorted tuple) -> Template, least recently used first
        self.without = {}  # preload tuple -> the modules that failed to import in its template
        self.lists = {}  # module -> the preload tuples that need it
        self.asked = {}  # preload tuple -> how many runs asked for it
        self.statuses = {}  # reaped pid -> wait status
        self.made = 0  # templates made for the current run
        self.copied = CopiedPages()  # by the tests forked from us
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        os.set_blocking(self.wake_r, False)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        # As PID 1 only signals we handle reach us; keep SIGINT from becoming KeyboardInterrupt.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.modes = {path: stat.S_IMODE(os.stat(path).st_mode) for path in SCRATCH}
        # What the image put there and we do not own (a container's /tmp may hold some): a test cannot change it either.
        self.fixed = {path: {n for n in os.listdir(path) if os.lstat(os.path.join(path, n)).st_uid != os.getuid()} for path in SCRATCH}
        self.dev = sorted(os.listdir("/dev"))

    # ---- processes

    def reap(self):
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.statuses[pid] = status

    def sweep(self):
        """Kills every process but us and the templates; True once none is left."""
        for _ in range(200):
            self.reap()
            self.drop_dead()
            keep = {1, os.getpid()} | {t.pid for t in self.templates.values()}
            victims = []
            for name in os.listdir("/proc"):
                if name.isdigit() and int(name) not in keep:
                    victims.append(int(name))
            if not victims:
                return True
            for pid in victims:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.001)
        return False

    # ---- files

    def wipe(self):
        """Empties the scratch places and makes the working directory again; True when it all went."""
        def unlock(func, path, _exc):
            try:
                os.chmod(os.path.dirname(path), 0o700)
                if os.path.isdir(path) and not os.path.islink(path):
                    os.chmod(path, 0o700)
                    shutil.rmtree(path)
                else:
                    func(path)
            except OSError:
                pass

        for root in SCRATCH:
            try:
                os.chmod(root, self.modes[root])
            except OSError:
                pass  # not ours (a container's /dev/shm): then the test could not change it either
            try:
                names = os.listdir(root)
            except OSError:
                continue
            for name in names:
                if name in self.fixed[root]:
                    continue
                path = os.path.join(root, name)
                try:
                    if os.path.isdir(path) and not os.path.islink(path):
                        os.chmod(path, 0o700)
                        shutil.rmtree(path, onerror=unlock)
                    else:
                        os.unlink(path)
                except OSError:
                    pass
        try:
            os.mkdir(WORKDIR, 0o755)
        except OSError:
            pass
        return all(set(os.listdir(root)) - self.fixed[root] == ({"work"} if root == "/tmp" else set()) for root in SCRATCH)

    def restore(self):
        """Back to the state before the run; the reason it could not be, or None."""
        if not self.sweep():
            return "a process could not be killed"
        if not self.wipe():
            return "a scratch directory (" + ", ".join(SCRATCH) + ") could not be emptied"
        if sorted(os.listdir("/dev")) != self.dev:
            return "/dev changed"
        for kind in ("shm", "msg", "sem"):
            try:
                with open("/proc/sysvipc/" + kind) as f:
                    if len(f.read().splitlines()) > 1:
                        return "System V IPC objects remain"
            except OSError:
                pass
        return None

    # ---- requests

    def warm(self, req):
        saved = sys.stdin
        sys.stdin = io.StringIO(req.get("input") or "")
        try:
            module = types.ModuleType("__warm__")
            module.__dict__["__builtins__"] = builtins
            exec(compile(req["program"], "<warm>", "exec"), module.__dict__)
        finally:
            sys.stdin = saved
        _find_rngs()
        _freeze_heap()
        note = self.restore()
        if note:
            return {"ok": False, "error": "warming left the sandbox unclean: " + note}
        return {"ok": True, "python": sys.version.split()[0]}

    def template(self, preload, ahead=0):
        """The template for a preload list (made if need be, from the closest one), or None.
        `ahead`: how many more runs of the list the caller says will come to us."""
        stdlib = sys.stdlib_module_names
        key = tuple(sorted({m for m in preload if m.split(".")[0] not in stdlib and m not in sys.modules}))
        # Importing a.b imports package a first: a template holding a serves a.b's list too.
        wanted = _with_packages(m for m in key if m not in self.without.get(key, ()))
        for module in wanted:
            self.lists.setdefault(module, set()).add(key)
        self.asked[key] = self.asked.get(key, 0) + 1
        while wanted:
            template = self.kept(wanted)
            if template is not None:
                return template
            self.drop_dead()
            # Forked from the template holding the most of these modules, it imports only the rest.
            parents = [t for t in self.templates.values() if set(t.modules) <= set(wanted)]
            parent = self.steps_toward(wanted, max(parents, key=lambda t: len(t.modules), default=None))
            if self.asked[key] + ahead < TEMPLATE_FROM_RUN:
                # A list's first runs get no template of its own: most lists come once or
                # twice, and then a template costs more than it saves (its fork, the collection
                # and freeze after its imports, and the pages the runs copy from it). The run
                # forks from the closest template (or from us) and imports the rest itself, as
                # a fresh interpreter would. A list the caller says will come often enough
                # gets its template at once.
                return parent
            try:
                template = self.new_template(wanted, parent)
            except (OSError, ValueError):
                # It crashed importing them: runs with this list import them themselves.
                self.without[key] = key
                return None
            if not template.failed:
                self.templates[wanted] = template
                return template
            # Again without what failed: a failed import can leave half-imported modules behind.
            template.stop()
            self.without[key] = tuple(set(self.without.get(key, ())) | set(template.failed))
            wanted = tuple(m for m in wanted if m not in template.failed)
        return None

    def kept(self, modules):
        """The live template holding exactly these modules, now the most recently used, or None."""
        template = self.templates.pop(modules, None)
        if template is not None and template.alive():
            self.templates[modules] = template
            return template
        if template is not None:
            template.stop()
        return None

    def new_template(self, modules, parent):
        """A template for `modules` forked from `parent` (None: from us), room made for it first."""
        self.make_room(parent)
        self.made += 1
        return Template(modules, parent)

    def make_room(self, keep):
        """Room for one more template: the least recently used go (never `keep`) while
        there are MAX_TEMPLATES, or while they hold more than TEMPLATE_MEMORY_KB."""
        others = [k for k, t in self.templates.items() if t is not keep]
        while others and (len(self.templates) >= MAX_TEMPLATES or self.memory_kb() > TEMPLATE_MEMORY_KB):
            self.templates.pop(others.pop(0)).stop()

    def memory_kb(self):
        return sum(t.kb for t in self.templates.values())

    def steps_toward(self, wanted, parent):
        """The template to fork `wanted`'s from: `parent`, or templates made on the way
        from it, each adding the module most other lists name too, so that they fork
        from it instead of importing it again."""
        have = set(parent.modules) if parent else set()
        rest = [m for m in wanted if m not in have]
        while len(rest) > 1:
            shared = max(rest, key=lambda m: len(self.lists[m]))
            if len(self.lists[shared]) < 2:
                break
            have.add(shared)
            rest.remove(shared)
            step = tuple(sorted(have))
            found = self.kept(step)
            if found is not None:
                parent = found
                continue
            try:
                template = self.new_template(step, parent)
            except (OSError, ValueError):
                break
            if template.failed:
                template.stop()
                break
            self.templates[step] = template
            parent = template
        return parent

    def run(self, req):
        began = time.monotonic()
        self.made = 0
        if req["program"] not in _COMPILED:
            if len(_COMPILED) >= 4:
                _COMPILED.clear()
            try:
                _COMPILED[req["program"]] = compile(req["program"], "<string>", "exec")
            except (SyntaxError, ValueError):
                pass  # the child reports it as python -c would
        template = None
        try:
            template = self.template(req.get("preload") or [], req.get("preload_ahead") or 0)
        except Exception:
            template = None  # the child imports them itself
        meta = {"env": req["env"], "limits": req["limits"]}
        if template is not None:
            runs = template.copied.take()
            if runs is not None:
                meta["prefault"] = runs
        program_fd = _memfd("program", req["program"].encode("utf-8"))
        input_fd = _memfd("input", req["input"].encode("utf-8"))
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        res_r, res_w = os.pipe()
        # merge_output: the program's stdout goes where its stderr goes (as a container exec reports it).
        fds = [program_fd, input_fd, err_w if req.get("merge_output") else out_w, err_w, res_w]
        # Known only once the child is forked: from the template, or from us if it fails.
        copied = None
        report_r = report_w = None
        self.statuses.clear()
        started = time.monotonic()
        prepare_ms = int((started - began) * 1000)
        pid = ahead_kb = 0
        if template is not None:
            if template.copied.ask():
                report_r, report_w = os.pipe()
            try:
                pid, ahead_kb = template.spawn(meta, fds + ([report_w] if report_w is not None else []))
                copied = template.copied
            except (OSError, ValueError):
                self.drop(template)
                pid = 0
        if pid == 0:
            if report_w is None and self.copied.ask():
                report_r, report_w = os.pipe()
            copied = self.copied
            ahead_kb = _prefault_kb()
            pid = os.fork()
            if pid == 0:
                os.close(out_r)
                os.close(err_r)
                os.close(res_r)
                if report_r is not None:
                    os.close(report_r)
                _become_test(meta, *fds, report_fd=report_w)
        for fd in set(fds) | {out_w} | ({report_w} if report_w is not None else set()):
            os.close(fd)

        caps = {out_r: 0, err_r: int(req["output_bytes"]), res_r: int(req["result_bytes"])}
        kept = {out_r: bytearray(), err_r: bytearray(), res_r: bytearray()}
        open_fds = [out_r, err_r, res_r]
        if report_r is not None:
            caps[report_r] = REPORT_BYTES
            kept[report_r] = bytearray()
            open_fds.append(report_r)

        watch = [self.wake_r]

        def pump(timeout):
            ready, _, _ = select.select(open_fds + watch, [], [], max(0.0, timeout))
            for fd in ready:
                if fd == self.wake_r:
                    try:
                        os.read(self.wake_r, 4096)
                    except BlockingIOError:
                        pass
                    continue
                if fd not in caps:
                    continue  # the test's pidfd: the loop looks at it
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    open_fds.remove(fd)
                    os.close(fd)
                    continue
                room = caps[fd] - len(kept[fd])
                if room > 0:
                    kept[fd] += chunk[:room]

        deadline = started + float(req["timeout"])
        timed_out = False
        # Its end, seen through a pidfd as well: should its status ever be reaped elsewhere, the run still ends.
        try:
            pidfd = os.pidfd_open(pid)
            watch.append(pidfd)
        except OSError:
            pidfd = None
        while pid not in self.statuses:
            if pidfd is None or select.select([pidfd], [], [], 0)[0]:
                self.reap()
                break
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                break
            pump(min(deadline - now, 0.5))
            self.reap()
        if pidfd is not None:
            watch.remove(pidfd)
            os.close(pidfd)
        ended = time.monotonic()
        duration_ms = int((ended - started) * 1000)
        note = self.restore()
        drain_until = time.monotonic() + DRAIN_SEC
        while open_fds and time.monotonic() < drain_until:
            pump(drain_until - time.monotonic())
        if open_fds:
            note = note or "the test's output stayed open after every process was killed"
            for fd in open_fds:
                os.close(fd)

        if report_r is not None and kept[report_r]:
            copied.add(bytes(kept[report_r]))
            runs = self.copied.take()
            if runs is not None:
                # At once: templates forked from us from now on start with it too.
                _use_prefault(runs)
        status = self.statuses.get(pid)
        exit_code = None
        if status is not None:
            # As bubblewrap reports it: a signal as 128 + its number.
            exit_code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        return {
            "result": kept[res_r].decode("utf-8", "replace"),
            "stderr": kept[err_r].decode("utf-8", "replace"),
            "exit_code": exit_code,
            "timed_out": timed_out,
            "duration_ms": duration_ms,
            "clean": note is None,
            "note": note,
            # Where a run's time went besides the test: making or finding its template, and the clean-up after it.
            "prepare_ms": prepare_ms,
            "templates_made": self.made,
            "restore_ms": int((time.monotonic() - ended) * 1000),
            "templates_kb": self.memory_kb(),
            "copied_ahead_kb": ahead_kb,
        }

    def drop_dead(self):
        for t in [t for t in self.templates.values() if not t.alive()]:
            self.drop(t)

    def drop(self, template):
        for key, t in list(self.templates.items()):
            if t is template:
                del self.templates[key]
        template.stop()


def main():
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    os.chdir("/")
    _set_dumpable(False)
    server = Server()
    for line in requests:
        try:
            req = json.loads(line) if line.strip() else {}
        except ValueError:
            req = {}
        op = req.get("op") if isinstance(req, dict) else None
        if op is None:
            continue  # not a request: Podman's attach puts its own options on stdin first
        try:
            if op == "warm":
                reply = server.warm(req)
            elif op == "run":
                reply = server.run(req)
            else:
                reply = {"ok": False, "error": "unknown op %r" % (op,)}
        except Exception:
            reply = {"ok": False, "error": traceback.format_exc(limit=3)}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    main()

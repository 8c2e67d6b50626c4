/**
 * LLB os tasks in containers (`--evaluator docker`): one fresh container per task,
 * taken from a warm pool of single-use containers of the os image
 * (memrl/llb-os:latest, docker/llb-os.Dockerfile). Same OsEnvironment semantics as
 * the local sandbox (os-env.ts):
 * - root inside, with every capability dropped except the few that root's task
 *   work needs (users, ownership, permissions); no network; memory and
 *   process limits; no-new-privileges; the root filesystem writable (tasks edit
 *   /etc, /home, /var), discarded with the container.
 * - each command is a fresh `bash -c` with stdout and stderr interleaved, cut by
 *   `timeout -s KILL` at its limit (the command's whole process group); a host-side
 *   backstop removes the container if even that does not end it.
 * - background jobs survive across the commands of a task (PID 1 is a bash loop
 *   that reaps orphans, so finished jobs leave no zombies); they never hold the
 *   command's result open: the output goes through a FIFO read by a helper that is
 *   stopped shortly after the command itself exits.
 */
import { Box, ContainerGoneError, type BoxSpec } from '../../container/box.js';
import type { ContainerBackend } from '../../container/backend.js';
import type { ImageFacts } from '../../container/image.js';
import { WarmPool } from '../../container/pool.js';
import { shellEnv } from '../../sandbox/shell/sandbox.js';
import type { OsEnvironment, OsExecResult } from './os-env.js';
import { HarnessError } from '../../util/errors.js';

const MiB = 1024 * 1024;

/**
 * Capabilities kept for root inside: the smallest set that keeps every gold task
 * passing (measured by dropping each over the 500 tasks). CHOWN: useradd -m, chown
 * (13 of 16 sampled tasks fail without it); DAC_OVERRIDE: root reading and writing
 * other users' files (281 fail); FOWNER: chmod/touch on files root does not own (45);
 * FSETID: setgid bits on shared group directories (24); SETUID, SETGID: su/runuser.
 * KILL and AUDIT_WRITE (Docker's defaults) no task needs: without KILL, root cannot
 * signal other users' processes.
 */
export const OS_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID'];

/** Bytes of output kept per command (as the local sandbox's maxOutputBytes). */
export const OS_MAX_OUTPUT_BYTES = 256 * 1024;
/** Per-process caps inside, as the local sandbox's prlimit: file size, open files, core dumps. */
const FILE_SIZE_KIB = 256 * 1024;
const OPEN_FILES = 1024;
/** Margin of the host-side backstop over a command's own limit. */
const BACKSTOP_MARGIN_MS = 15_000;

/**
 * PID 1: waits forever and, being bash, reaps the orphans that background jobs
 * leave (sleep alone would keep them as zombies). Without a TERM trap it ignores
 * `kill 1` from inside, as a namespace's init does.
 */
export const OS_PID1 = ['/bin/bash', '-c', 'while :; do sleep 3600 & wait $!; done'];

/**
 * Runs one command. Script on stdin; $1 = time limit (s), $2 = bytes of output kept.
 * The command (bash -c, stdin /dev/null, stderr merged) writes into a FIFO; a reader
 * in its own session copies the first $2 bytes to our stdout (head with stdout
 * unbuffered, so killing it loses nothing it has read) and drains the rest. Once
 * the command has exited the reader gets 250 ms to finish, then its session is
 * killed: a background job still holding the FIFO cannot keep the result open.
 * Exit status: the command's; 137 when `timeout` killed it.
 */
export const EXEC_WRAPPER = `
script=$(cat; echo x); script=\${script%x}
ulimit -f ${FILE_SIZE_KIB}; ulimit -n ${OPEN_FILES}; ulimit -c 0; ulimit -t $(($1 + 10))
cd /root 2>/dev/null || cd /
f=/dev/shm/.memrl-out.$$
rm -f "$f"
if ! mkfifo -m 600 "$f" 2>/dev/null; then
  # /dev/shm unusable (the task may have removed it): run without the FIFO.
  exec timeout -s KILL "$1" bash -c "$script" 2>&1 </dev/null
fi
setsid sh -c 'stdbuf -o0 head -c "$1" 2>/dev/null || head -c "$1"; exec cat >/dev/null' sh "$2" <"$f" &
reader=$!
timeout -s KILL "$1" bash -c "$script" >"$f" 2>&1 </dev/null
rc=$?
rm -f "$f"
exec 2>/dev/null
for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$reader" 2>/dev/null || break; sleep 0.025; done
kill -KILL -- -"$reader" 2>/dev/null
wait "$reader" 2>/dev/null
exit $rc
`;

/** The container has failed under the task (killed from outside, engine gone, hung): an evaluator fault. */
export class OsContainerError extends HarnessError {
  constructor(message: string) {
    super(message, 'os_container');
    this.name = 'OsContainerError';
  }
}

export function osBoxSpec(image: string, backend: ContainerBackend): BoxSpec {
  return {
    image,
    role: 'llb-os',
    cmd: OS_PID1,
    env: shellEnv(),
    workdir: '/root',
    network: false,
    memoryBytes: backend.settings.memoryMb * MiB,
    pids: backend.settings.pids,
    capAdd: OS_CAPABILITIES,
    // Tasks edit /etc, /home, /var and /tmp as on a normal system; /tmp stays on the root as in the local sandbox.
    readOnlyRoot: false,
    tmpfs: {},
  };
}

export interface OsContainerOptions {
  /** Time limit of the init and evaluation scripts, seconds (default 60, as local). */
  scriptTimeoutSec?: number;
  /** Capabilities kept for root (default OS_CAPABILITIES); for measuring what the tasks need. */
  capabilities?: string[];
}

class ContainerOsEnvironment implements OsEnvironment {
  private disposed = false;

  constructor(
    private readonly pool: WarmPool,
    private readonly box: Box,
    private readonly scriptTimeoutSec: number,
  ) {}

  private async run(script: string, timeoutSec: number): Promise<OsExecResult> {
    if (this.disposed) throw new OsContainerError('os container already disposed');
    const started = Date.now();
    let r;
    try {
      r = await this.box.exec(['/bin/bash', '-c', EXEC_WRAPPER, 'memrl-exec', String(Math.max(1, Math.ceil(timeoutSec))), String(OS_MAX_OUTPUT_BYTES)], {
        input: script,
        timeoutMs: timeoutSec * 1000 + BACKSTOP_MARGIN_MS,
        maxOutputBytes: OS_MAX_OUTPUT_BYTES + 4096,
        // From /, which always exists; the wrapper moves to /root (the task may have removed it).
        workdir: '/',
      });
    } catch (err) {
      throw new OsContainerError(err instanceof ContainerGoneError ? err.message : `os container ${this.box.shortId}: ${(err as Error).message}`);
    }
    if (r.timedOut) {
      // `timeout` inside did not end it: the container is wedged; nothing of the task can be trusted.
      await this.box.remove();
      throw new OsContainerError(`os container ${this.box.shortId} did not finish a command ${BACKSTOP_MARGIN_MS / 1000} s after its ${timeoutSec} s limit; removed`);
    }
    const timedOut = r.exitCode === 137 && Date.now() - started >= timeoutSec * 1000;
    return { output: r.stdout, exitCode: timedOut ? null : r.exitCode, timedOut };
  }

  async init(script: string): Promise<void> {
    if (script.trim() === '') return;
    await this.run(script, this.scriptTimeoutSec);
  }

  exec(command: string, timeoutSec: number): Promise<OsExecResult> {
    return this.run(command, timeoutSec);
  }

  async check(script: string): Promise<boolean> {
    const r = await this.run(script, this.scriptTimeoutSec);
    return !r.timedOut && r.exitCode === 0;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.pool.retire(this.box);
  }
}

/** The os half of `--evaluator docker` for one run: a warm pool of task containers. */
export class OsContainerFactory {
  private constructor(
    readonly backend: ContainerBackend,
    readonly image: ImageFacts,
    private readonly pool: WarmPool,
    private readonly opts: OsContainerOptions,
  ) {}

  /** Checks the image (pulling it if allowed); the pool fills on first use. */
  static async open(backend: ContainerBackend, image: string, opts: OsContainerOptions = {}): Promise<OsContainerFactory> {
    const facts = await backend.image(image);
    const spec = { ...osBoxSpec(image, backend), ...(opts.capabilities ? { capAdd: opts.capabilities } : {}) };
    return new OsContainerFactory(backend, facts, new WarmPool(backend.engine, spec, backend.concurrency), opts);
  }

  /** A fresh container for one task. Warm ones that died while waiting (killed from outside) are skipped. */
  async create(): Promise<OsEnvironment> {
    let box: Box;
    try {
      box = await this.pool.acquire();
    } catch (err) {
      if (err instanceof ContainerGoneError) throw new OsContainerError(`no running os container: ${err.message}`);
      throw err;
    }
    return new ContainerOsEnvironment(this.pool, box, this.opts.scriptTimeoutSec ?? 60);
  }

  /** Root, a writable /etc, the tools the tasks use: one throwaway container. */
  async check(): Promise<{ ok: true } | { ok: false; reason: string }> {
    let env: OsEnvironment | undefined;
    try {
      env = await this.create();
      const r = await env.exec('id -u && touch /etc/memrl-probe && useradd memrl-probe && echo ok', 20);
      if (r.exitCode !== 0 || !/^0\nok/.test(r.output)) return { ok: false, reason: `os container probe failed: ${r.output.trim().slice(0, 300)}` };
      return { ok: true };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    } finally {
      await env?.dispose();
    }
  }

  describe(): Record<string, unknown> {
    return {
      backend: 'docker',
      engine: this.backend.info,
      image: this.image,
      capabilities: this.opts.capabilities ?? OS_CAPABILITIES,
      memoryMb: this.backend.settings.memoryMb,
      pids: this.backend.settings.pids,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

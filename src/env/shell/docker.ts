/**
 * The shell kind in containers: one fresh container per task, taken from a warm pool
 * of single-use containers of the image (a plain distribution with the tools the
 * tasks use). Same ShellEnvironment semantics as the local sandbox (local.ts):
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
import { HarnessError } from '../../util/errors.js';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { openContainerBackend, type ContainerBackend, type ContainerPlacement } from '../container/backend.js';
import { ContainerGoneError, type Box, type BoxSpec } from '../container/box.js';
import { describeError } from '../container/engine.js';
import type { ImageFacts } from '../container/image.js';
import { warmBoxPool, type BoxPool } from '../container/warm-boxes.js';
import { DEFAULT_SHELL_LIMITS, SHELL_CONTAINER_BACKSTOP_MS, SHELL_CPU_MARGIN_SEC, SHELL_SCRIPT_TIMEOUT_SEC } from '../limits.js';
import { shellEnv, type ShellEnvironment, type ShellEnvironments, type ShellExecResult, type ShellSettings } from './contract.js';

const MiB = 1024 * 1024;

/**
 * Capabilities kept for root inside: the smallest set that keeps every task of the
 * 500-task shell gold check passing (measured by dropping each over the 500 tasks). CHOWN: useradd -m, chown
 * (13 of 16 sampled tasks fail without it); DAC_OVERRIDE: root reading and writing
 * other users' files (281 fail); FOWNER: chmod/touch on files root does not own (45);
 * FSETID: setgid bits on shared group directories (24); SETUID, SETGID: su/runuser.
 * KILL and AUDIT_WRITE (Docker's defaults) no task needs: without KILL, root cannot
 * signal other users' processes.
 */
export const SHELL_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'SETUID', 'SETGID'];

/** Bytes of output kept per command (as the local sandbox's maxOutputBytes). */
export const SHELL_MAX_OUTPUT_BYTES = DEFAULT_SHELL_LIMITS.maxOutputBytes;
/** Per-process caps inside, as the local sandbox's prlimit: file size, open files, core dumps. */
const FILE_SIZE_KIB = DEFAULT_SHELL_LIMITS.fileSizeBytes / 1024;
const OPEN_FILES = DEFAULT_SHELL_LIMITS.openFiles;

/**
 * PID 1: waits forever and, being bash, reaps the orphans that background jobs
 * leave (sleep alone would keep them as zombies). Without a TERM trap it ignores
 * `kill 1` from inside, as a namespace's init does.
 */
export const SHELL_PID1 = ['/bin/bash', '-c', 'while :; do sleep 3600 & wait $!; done'];

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
ulimit -f ${FILE_SIZE_KIB}; ulimit -n ${OPEN_FILES}; ulimit -c 0; ulimit -t $(($1 + ${SHELL_CPU_MARGIN_SEC}))
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

/** The container has failed under the task (killed from outside, engine gone, hung): a harness fault. */
export class ShellContainerError extends HarnessError {
  constructor(message: string) {
    super(message, 'shell_container');
    this.name = 'ShellContainerError';
  }
}

export function shellBoxSpec(placement: ContainerPlacement, capabilities = SHELL_CAPABILITIES): BoxSpec {
  return {
    image: placement.image,
    role: placement.role,
    cmd: SHELL_PID1,
    env: shellEnv(),
    workdir: '/root',
    network: false,
    memoryBytes: placement.settings.memoryMb * MiB,
    pids: placement.settings.pids,
    capAdd: capabilities,
    // Tasks edit /etc, /home, /var and /tmp as on a normal system; /tmp stays on the root as in the local sandbox.
    readOnlyRoot: false,
    tmpfs: {},
  };
}

class ContainerShellEnvironment implements ShellEnvironment {
  private disposed = false;

  constructor(
    private readonly pool: BoxPool,
    private readonly box: Box,
    private readonly scriptTimeoutSec: number,
  ) {}

  private async run(script: string, timeoutSec: number): Promise<ShellExecResult> {
    if (this.disposed) throw new ShellContainerError('shell container already disposed');
    const started = Date.now();
    let r;
    try {
      r = await this.box.exec(['/bin/bash', '-c', EXEC_WRAPPER, 'memrl-exec', String(Math.max(1, Math.ceil(timeoutSec))), String(SHELL_MAX_OUTPUT_BYTES)], {
        input: script,
        timeoutMs: timeoutSec * 1000 + SHELL_CONTAINER_BACKSTOP_MS,
        maxOutputBytes: SHELL_MAX_OUTPUT_BYTES + 4096,
        // From /, which always exists; the wrapper moves to /root (the task may have removed it).
        workdir: '/',
      });
    } catch (err) {
      throw new ShellContainerError(err instanceof ContainerGoneError ? err.message : `shell container ${this.box.shortId}: ${(err as Error).message}`);
    }
    if (r.timedOut) {
      // `timeout` inside did not end it: the container is wedged; nothing of the task can be trusted.
      await this.box.remove();
      throw new ShellContainerError(`shell container ${this.box.shortId} did not finish a command ${SHELL_CONTAINER_BACKSTOP_MS / 1000} s after its ${timeoutSec} s limit; removed`);
    }
    const timedOut = r.exitCode === 137 && Date.now() - started >= timeoutSec * 1000;
    return { output: r.stdout, exitCode: timedOut ? null : r.exitCode, timedOut };
  }

  async init(script: string): Promise<void> {
    if (script.trim() === '') return;
    await this.run(script, this.scriptTimeoutSec);
  }

  exec(command: string, timeoutSec: number): Promise<ShellExecResult> {
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

/** The shell kind in containers for one run: a warm pool of single-use task containers. */
export class DockerShellEnvironments implements ShellEnvironments {
  readonly backend = 'docker' as const;
  readonly maxOutputBytes = SHELL_MAX_OUTPUT_BYTES;

  private constructor(
    private readonly containers: ContainerBackend,
    readonly image: ImageFacts,
    private readonly pool: BoxPool,
    private readonly capabilities: string[],
    private readonly scriptTimeoutSec: number,
  ) {}

  /** Checks the engine and the image (pulling it if allowed): a UserError when either is missing. The pool fills on first use. */
  static async open(settings: ShellSettings): Promise<DockerShellEnvironments> {
    if (!settings.docker) throw new ShellContainerError('the docker shell backend needs container settings (engine, image)');
    const placement = settings.docker;
    const containers = await openContainerBackend(placement.settings, placement.concurrency);
    const facts = await containers.image(placement.image);
    const capabilities = settings.capabilities ?? SHELL_CAPABILITIES;
    const pool = warmBoxPool(containers.engine, shellBoxSpec(placement, capabilities), containers.concurrency);
    return new DockerShellEnvironments(containers, facts, pool, capabilities, settings.scriptTimeoutSec ?? SHELL_SCRIPT_TIMEOUT_SEC);
  }

  /** A fresh container for one task. Warm ones that died while waiting (killed from outside) are skipped. */
  async create(): Promise<ShellEnvironment> {
    let box: Box;
    try {
      box = await this.pool.acquire();
    } catch (err) {
      if (err instanceof ContainerGoneError) throw new ShellContainerError(`no running shell container: ${err.message}`);
      throw err;
    }
    return new ContainerShellEnvironment(this.pool, box, this.scriptTimeoutSec);
  }

  /** Root, a writable /etc, the tools the tasks use: one throwaway container. */
  async check(): Promise<EnvCheck> {
    let env: ShellEnvironment | undefined;
    try {
      env = await this.create();
      const r = await env.exec('id -u && touch /etc/memrl-probe && useradd memrl-probe && echo ok', 20);
      if (r.exitCode !== 0 || !/^0\nok/.test(r.output)) return { ok: false, reason: `shell container probe failed: ${r.output.trim().slice(0, 300)}` };
      return { ok: true, detail: `${this.image.image} (${this.image.id.replace(/^sha256:/, '').slice(0, 12)})` };
    } catch (err) {
      return { ok: false, reason: describeError(err) };
    } finally {
      await env?.dispose();
    }
  }

  async describe(): Promise<EvaluatorFacts> {
    return {
      backend: 'docker',
      engine: this.containers.info,
      image: this.image,
      capabilities: this.capabilities,
      memoryMb: this.containers.settings.memoryMb,
      pids: this.containers.settings.pids,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

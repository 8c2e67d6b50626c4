/**
 * BigCodeBench verdicts in containers (`--evaluator docker`): the harness, payload
 * and verdict rules of the local sandbox (evaluate.ts), one fresh container per
 * test run.
 *
 * A run takes a started container from a warm pool (user nobody, no network,
 * read-only root, tmpfs /tmp, memory and pids limits, no capabilities,
 * no-new-privileges), execs the harness with the payload on stdin under the same
 * rlimits as the local sandbox, and removes the container afterwards, whatever
 * happened. The harness's fd-3 result channel becomes the exec's stdout and the
 * program's own stdout goes to stderr, so its prints never reach the channel (the
 * nonce is checked as well).
 *
 * Faults on our side (engine unreachable, image missing, container killed from
 * outside) give status 'error' with the reason, never a model failure.
 */
import type { DockerSettings } from '../../config/types.js';
import { imageOf, openContainerBackend, type ContainerBackend } from '../../container/backend.js';
import { Box, ContainerGoneError, type BoxSpec, type ExecResult } from '../../container/box.js';
import { describeError } from '../../container/engine.js';
import type { ImageFacts } from '../../container/image.js';
import { WarmPool } from '../../container/pool.js';
import { baseSandboxEnv } from '../../sandbox/bwrap.js';
import { prlimitPrefix, resolveLimits, type SandboxLimits } from '../../sandbox/limits.js';
import { cachedFontList, FONTLIST_MAX_BYTES, FONTLIST_SCRIPT, parseFontList, type MatplotlibFontList } from '../../sandbox/mpl-fontlist.js';
import { CORE_BCB_MODULES, pythonProbeArgs } from '../../sandbox/python-libs.js';
import { libraryVersionsArgs, parseLibraryVersions } from '../../sandbox/python-versions.js';
import { UserError } from '../../util/errors.js';
import type { BcbTask } from './dataset.js';
import {
  clampTimeout,
  DEFAULT_TIMEOUT_SEC,
  HARNESS_ENV,
  harnessPayload,
  harnessSha256,
  harnessSource,
  newNonce,
  RESULT_CHANNEL_BYTES,
  verdictOf,
  type BcbEvalOptions,
  type BcbEvalResult,
} from './evaluate.js';
import type { BcbRuntimeFacts } from './evaluator.js';

/**
 * The image's python3, found on the sandbox PATH (/usr/local/bin first): Debian's
 * /usr/bin/python3 in memrl/bcb, /usr/local/bin/python3 in python:3.x-based images.
 */
export const IMAGE_PYTHON = 'python3';
const PRLIMIT = '/usr/bin/prlimit';
const MiB = 1024 * 1024;

/**
 * Working directory as in the local sandbox, then the result channel on the exec's
 * stdout and the program's stdout on stderr. "$@" is prlimit + python + harness.
 */
const EXEC_SHIM = 'mkdir -p /tmp/work && cd /tmp/work && exec "$@" 3>&1 1>&2';

/**
 * The sandbox's rlimits, minus RLIMIT_NPROC: without a user namespace per
 * container it would count every uid-65534 process on the host (other containers
 * included); the container's pids limit bounds processes instead.
 */
function rlimitArgs(limits: SandboxLimits): string[] {
  return prlimitPrefix(limits, PRLIMIT).filter((a) => !a.startsWith('--nproc='));
}

interface Opened {
  backend: ContainerBackend;
  image: ImageFacts;
  pool: WarmPool;
}

interface PythonFacts {
  version: string;
  missing: string[];
  /** The interpreter's path inside the image. */
  executable?: string;
}

export class DockerBcbEvaluator {
  readonly backend = 'docker' as const;
  private opened: Promise<Opened> | undefined;
  private python: Promise<PythonFacts> | undefined;
  private closed = false;
  /** Removals still under way: close() waits for them. */
  private readonly retiring = new Set<Promise<void>>();

  constructor(
    private readonly settings: DockerSettings,
    private readonly concurrency: number,
    private readonly timeoutSec: number = DEFAULT_TIMEOUT_SEC,
  ) {}

  /** Engine, image and pool, once; a failure is not kept, so a restarted engine is found again. */
  private open(): Promise<Opened> {
    if (this.closed) return Promise.reject(new Error('the BigCodeBench container evaluator is closed'));
    if (!this.opened) {
      const p = (async (): Promise<Opened> => {
        const backend = await openContainerBackend(this.settings, this.concurrency);
        const image = await backend.image(imageOf(this.settings, 'bcb'));
        // By id: every container of the run comes from the image the manifest names.
        return { backend, image, pool: new WarmPool(backend.engine, this.boxSpec(image.id), backend.concurrency) };
      })();
      this.opened = p;
      p.catch(() => {
        if (this.opened === p) this.opened = undefined;
      });
    }
    return this.opened;
  }

  private boxSpec(image: string): BoxSpec {
    const tmpfsBytes = resolveLimits(this.timeoutSec).tmpfsBytes;
    return {
      image,
      role: 'bcb',
      cmd: ['sleep', 'infinity'],
      // The same clean environment as the local sandbox: nothing of ours reaches the code.
      env: baseSandboxEnv(),
      user: '65534:65534',
      workdir: '/tmp',
      network: false,
      memoryBytes: this.settings.memoryMb * MiB,
      pids: this.settings.pids,
      readOnlyRoot: true,
      // The local sandbox links /var/tmp to /tmp: give it a writable place here too.
      tmpfs: { '/tmp': tmpfsBytes, '/var/tmp': tmpfsBytes },
    };
  }

  /** Runs a helper program (font list, library probe) in a container of its own. */
  private async runHelper(o: Opened, argv: string[], maxOutputBytes: number): Promise<ExecResult> {
    const box = await o.pool.acquire();
    try {
      return await box.exec(argv, { timeoutMs: 120_000, maxOutputBytes, env: { ...HARNESS_ENV } });
    } finally {
      await o.pool.retire(box);
    }
  }

  /** matplotlib's font list, built once per engine and image (see mpl-fontlist.ts). */
  private fontList(o: Opened): Promise<MatplotlibFontList | null> {
    return cachedFontList(`docker\u0000${o.backend.engine.address}\u0000${o.image.id}`, async () => {
      const res = await this.runHelper(o, [IMAGE_PYTHON, '-c', FONTLIST_SCRIPT], FONTLIST_MAX_BYTES);
      return res.exitCode === 0 && !res.truncated ? parseFontList(res.stdout) : null;
    });
  }

  private pythonFacts(o: Opened): Promise<PythonFacts> {
    if (!this.python) {
      const p = (async (): Promise<PythonFacts> => {
        const res = await this.runHelper(o, [IMAGE_PYTHON, ...pythonProbeArgs()], 1024 * 1024);
        try {
          return JSON.parse(res.stdout.trim().split('\n').pop() ?? '') as PythonFacts;
        } catch {
          const detail = (res.stderr.trim().split('\n').pop() ?? '') || `exit code ${res.exitCode}`;
          throw new UserError(`cannot run ${IMAGE_PYTHON} in image ${imageOf(this.settings, 'bcb')} (${detail}); build it with: bash scripts/build-images.sh bcb`);
        }
      })();
      this.python = p;
      p.catch(() => {
        if (this.python === p) this.python = undefined;
      });
    }
    return this.python;
  }

  async preflight(): Promise<BcbRuntimeFacts> {
    const o = await this.open();
    const py = await this.pythonFacts(o);
    const missingCore = CORE_BCB_MODULES.filter((m) => py.missing.includes(m));
    if (missingCore.length > 0) {
      throw new UserError(`image ${imageOf(this.settings, 'bcb')} lacks ${missingCore.join(', ')}; rebuild it with: bash scripts/build-images.sh bcb`);
    }
    return { backend: 'docker', python: py.executable ?? IMAGE_PYTHON, pythonVersion: py.version, missingLibs: py.missing, image: { name: imageOf(this.settings, 'bcb'), id: o.image.id } };
  }

  /** The library versions inside the image, read as for the local sandbox (python-versions.ts). */
  private async libraryVersions(o: Opened): Promise<Record<string, string> | { error: string }> {
    try {
      const res = await this.runHelper(o, [IMAGE_PYTHON, ...libraryVersionsArgs()], 1024 * 1024);
      return parseLibraryVersions(res.stdout);
    } catch (err) {
      return { error: `could not read library versions: ${describeError(err)}` };
    }
  }

  async describe(): Promise<Record<string, unknown>> {
    const o = await this.open();
    const py = await this.pythonFacts(o);
    const { maxProcesses: _unused, ...rlimits } = resolveLimits(this.timeoutSec);
    return {
      backend: 'docker',
      engine: { name: o.backend.info.name, version: o.backend.info.version, apiVersion: o.backend.info.apiVersion, address: o.backend.info.address },
      image: { name: imageOf(this.settings, 'bcb'), id: o.image.id, digests: o.image.digests, created: o.image.created },
      python: py.executable ?? IMAGE_PYTHON,
      pythonVersion: py.version,
      missingLibs: py.missing,
      libraryVersions: await this.libraryVersions(o),
      timeoutSec: this.timeoutSec,
      limits: { ...rlimits, memoryBytes: this.settings.memoryMb * MiB, pids: this.settings.pids, network: 'none', user: '65534:65534' },
      harnessSha256: harnessSha256(),
    };
  }

  async evaluate(task: Pick<BcbTask, 'code_prompt' | 'test'>, code: string, opts: BcbEvalOptions = {}): Promise<BcbEvalResult> {
    const mode = opts.mode ?? 'reference';
    const timeoutSec = clampTimeout(opts.timeoutSec);
    const started = Date.now();
    const fault = (firstError: string, durationMs = Date.now() - started): BcbEvalResult => ({ status: 'error', firstError, durationMs, mode, timeoutSec });

    let o: Opened;
    try {
      o = await this.open();
    } catch (err) {
      return fault(`container evaluator unavailable: ${describeError(err)}`);
    }
    const nonce = newNonce();
    const input = harnessPayload(task, code, mode, nonce, await this.fontList(o));
    if (opts.signal?.aborted) return fault('aborted');

    let box: Box;
    try {
      box = await o.pool.acquire();
    } catch (err) {
      return fault(err instanceof ContainerGoneError ? err.message : `no container to run the tests (engine ${o.backend.engine.address}): ${describeError(err)}`);
    }
    try {
      const limits = resolveLimits(timeoutSec, opts.limits);
      let res: ExecResult;
      try {
        res = await box.exec(['/bin/sh', '-c', EXEC_SHIM, 'sh', ...rlimitArgs(limits), IMAGE_PYTHON, '-B', '-c', harnessSource()], {
          input,
          env: { ...HARNESS_ENV },
          timeoutMs: timeoutSec * 1000,
          maxOutputBytes: RESULT_CHANNEL_BYTES,
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
      } catch (err) {
        return fault(err instanceof ContainerGoneError ? err.message : `container ${box.shortId}: ${describeError(err)}`);
      }
      if (res.aborted) return fault('aborted', res.durationMs);
      if (!res.timedOut && res.exitCode !== 0) {
        // No clean exit: if the container itself is gone, someone else ended it, not the code.
        const state = await box.state();
        if (!state.running) return fault(new ContainerGoneError(box.id, state.detail).message, res.durationMs);
      }
      // A signal shows as exit code 128 + n, as the local sandbox reports it ('exited with code 137').
      const run = { result: res.stdout, stderr: res.stderr, timedOut: res.timedOut, exitCode: res.exitCode, exitSignal: null, durationMs: res.durationMs };
      return verdictOf(run, nonce, mode, timeoutSec);
    } finally {
      // Single use, and on a timeout this is what stops the code. Off the task's
      // critical path: the verdict is known, the next task need not wait for it.
      this.retireLater(o.pool, box);
    }
  }

  private retireLater(pool: WarmPool, box: Box): void {
    const p = pool.retire(box).finally(() => this.retiring.delete(p));
    this.retiring.add(p);
  }

  async close(): Promise<void> {
    this.closed = true;
    const opened = this.opened;
    this.opened = undefined;
    try {
      if (opened) await (await opened).pool.close();
    } catch {
      // never opened: nothing to release
    }
    await Promise.all([...this.retiring]);
  }
}

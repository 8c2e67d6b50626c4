/**
 * Python tests in containers: one fresh container per run, taken from a warm pool
 * (user nobody, no network, read-only root, tmpfs /tmp, memory and pids limits, no
 * capabilities, no-new-privileges). The program is exec'd with its input on stdin
 * under the same rlimits as the local sandbox, and the container is removed
 * afterwards, whatever happened. The fd-3 result channel becomes the exec's stdout
 * and the program's own stdout goes to stderr, so its prints never reach the channel.
 *
 * Faults on our side (engine unreachable, image missing, container killed from
 * outside) come back as `fault`, never as the program's failure.
 */
import { UserError } from '../../util/errors.js';
import { baseSandboxEnv } from '../bwrap/bwrap-args.js';
import type { EnvCheck, EvaluatorFacts, PeerProcess } from '../contract.js';
import { openContainerBackend, type ContainerBackend, type ContainerPlacement } from '../container/backend.js';
import { Box, ContainerGoneError, type BoxSpec, type ExecResult } from '../container/box.js';
import { containerProcess } from '../container/main-process.js';
import { describeError } from '../container/engine.js';
import type { ImageFacts } from '../container/image.js';
import { warmBoxPool, type BoxPool } from '../container/warm-boxes.js';
import { CONTAINER_HELPER_TIMEOUT_SEC, FONTLIST_MAX_BYTES, FORK_SERVER, HELPER_OUTPUT_BYTES, PRLIMIT_PATH, prlimitPrefix, resolveLimits, type SandboxLimits } from '../limits.js';
import { PYTHON_TEST_ENV, type HelperResult, type PythonModules, type PythonModulesQuery, type PythonRunRequest, type PythonRunResult, type PythonTestRunner, type PythonTestsSettings } from './contract.js';
import { childLimits, ForkServers, forkServerSource, type ForkServerStats } from './fork-server.js';
import { cachedFontList, FONTLIST_SCRIPT, parseFontList, type MatplotlibFontList } from './fontlist.js';
import { libraryVersionsArgs, missingRequired, moduleProbeArgs, parseLibraryVersions, parseModuleProbe, queryKey } from './probe.js';

/**
 * The image's python3, found on the sandbox PATH (/usr/local/bin first): Debian's
 * /usr/bin/python3 in Debian-based images, /usr/local/bin/python3 in python:3.x-based ones.
 */
export const IMAGE_PYTHON = 'python3';
const MiB = 1024 * 1024;
/** The user tests run as, as in the local sandbox. */
const NOBODY = '65534:65534';
/** How the images are made (scripts/build-images.sh builds every image memrl uses). */
const BUILD_IMAGES = 'bash scripts/build-images.sh';

/**
 * Working directory as in the local sandbox, then the result channel on the exec's
 * stdout and the program's stdout on stderr. "$@" is prlimit + python + program.
 */
const EXEC_SHIM = 'mkdir -p /tmp/work && cd /tmp/work && exec "$@" 3>&1 1>&2';

/**
 * The sandbox's rlimits, minus RLIMIT_NPROC: without a user namespace per
 * container it would count every uid-65534 process on the host (other containers
 * included); the container's pids limit bounds processes instead.
 */
function rlimitArgs(limits: SandboxLimits): string[] {
  return prlimitPrefix(limits, PRLIMIT_PATH).filter((a) => !a.startsWith('--nproc='));
}

interface Opened {
  backend: ContainerBackend;
  image: ImageFacts;
  pool: BoxPool;
}

export class DockerPythonTestRunner implements PythonTestRunner {
  readonly backend = 'docker' as const;
  private readonly placement: ContainerPlacement;
  private readonly timeoutSec: number;
  private opened: Promise<Opened> | undefined;
  private readonly modules = new Map<string, Promise<PythonModules>>();
  private closed = false;
  /** Removals still under way: close() waits for them. */
  private readonly retiring = new Set<Promise<void>>();
  private readonly forkServer: boolean;
  /** Fork servers, one container each. */
  private readonly forkServers = new ForkServers();

  constructor(settings: PythonTestsSettings) {
    if (!settings.docker) throw new UserError('the docker python-tests backend needs container settings (engine, image)');
    this.placement = settings.docker;
    this.timeoutSec = settings.timeoutSec ?? 60;
    this.forkServer = settings.forkServer ?? true;
  }

  private get imageName(): string {
    return this.placement.image;
  }

  /** Engine, image and pool, once; a failure is not kept, so a restarted engine is found again. */
  private open(): Promise<Opened> {
    if (this.closed) return Promise.reject(new Error('the python-tests containers are closed'));
    if (!this.opened) {
      const p = (async (): Promise<Opened> => {
        const backend = await openContainerBackend(this.placement.settings, this.placement.concurrency);
        const image = await backend.image(this.imageName);
        // By id: every container of the run comes from the image the manifest names.
        return { backend, image, pool: warmBoxPool(backend.engine, this.boxSpec(image.id), backend.concurrency) };
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
      role: this.placement.role,
      cmd: ['sleep', 'infinity'],
      // The same clean environment as the local sandbox: nothing of ours reaches the code.
      env: baseSandboxEnv(),
      user: NOBODY,
      workdir: '/tmp',
      network: false,
      memoryBytes: this.placement.settings.memoryMb * MiB,
      pids: this.placement.settings.pids,
      readOnlyRoot: true,
      // The local sandbox links /var/tmp to /tmp: give it a writable place here too.
      tmpfs: { '/tmp': tmpfsBytes, '/var/tmp': tmpfsBytes },
    };
  }

  async ready(): Promise<void> {
    await this.open();
  }

  /** Runs a helper program (font list, probes) in a container of its own. */
  async helper(args: string[], opts: { timeoutSec: number; maxOutputBytes: number }): Promise<HelperResult> {
    const o = await this.open();
    const box = await o.pool.acquire();
    try {
      const res = await box.exec([IMAGE_PYTHON, ...args], { timeoutMs: opts.timeoutSec * 1000, maxOutputBytes: opts.maxOutputBytes, env: { ...PYTHON_TEST_ENV } });
      return { stdout: res.stdout, stderr: res.stderr, exitCode: res.exitCode, truncated: res.truncated };
    } finally {
      await o.pool.retire(box);
    }
  }

  /** Built once per engine and image (see fontlist.ts). Throws when the engine or image is not there. */
  async fontList(): Promise<MatplotlibFontList | null> {
    let o: Opened;
    try {
      o = await this.open();
    } catch (err) {
      throw new PythonEnvUnavailable(err);
    }
    return cachedFontList(
      `docker\u0000${o.backend.engine.address}\u0000${o.image.id}`,
      async () => {
        const res = await this.helper(['-c', FONTLIST_SCRIPT], { timeoutSec: CONTAINER_HELPER_TIMEOUT_SEC, maxOutputBytes: FONTLIST_MAX_BYTES });
        return res.exitCode === 0 && !res.truncated ? parseFontList(res.stdout) : null;
      },
      // An image never changes: its id says what its fonts are.
      async () => `image ${o.image.id}`,
    );
  }

  /** Throws a UserError when the engine or image is missing, or the image's python3 does not run. */
  pythonModules(query: PythonModulesQuery): Promise<PythonModules> {
    const key = queryKey(query);
    let p = this.modules.get(key);
    if (!p) {
      p = this.probeModules(query);
      this.modules.set(key, p);
      // Not kept when it failed: a restarted engine is found again.
      p.catch(() => {
        if (this.modules.get(key) === p) this.modules.delete(key);
      });
    }
    return p;
  }

  private async probeModules(query: PythonModulesQuery): Promise<PythonModules> {
    const res = await this.helper(moduleProbeArgs(query), { timeoutSec: CONTAINER_HELPER_TIMEOUT_SEC, maxOutputBytes: HELPER_OUTPUT_BYTES });
    const probe = parseModuleProbe(res.stdout);
    if (!probe) {
      const detail = (res.stderr.trim().split('\n').pop() ?? '') || `exit code ${res.exitCode}`;
      throw new UserError(`cannot run ${IMAGE_PYTHON} in image ${this.imageName} (${detail}); build it with: ${BUILD_IMAGES}`);
    }
    const python = probe.executable ?? IMAGE_PYTHON;
    const lacking = missingRequired(query, probe.missing);
    if (lacking.length > 0) {
      return { ok: false, python, version: probe.version, missing: probe.missing, reason: `image ${this.imageName} lacks ${lacking.join(', ')}; rebuild it with: ${BUILD_IMAGES}` };
    }
    return { ok: true, python, version: probe.version, missing: probe.missing };
  }

  async libraryVersions(query: PythonModulesQuery): Promise<Record<string, string> | { error: string }> {
    try {
      const res = await this.helper(libraryVersionsArgs(query), { timeoutSec: CONTAINER_HELPER_TIMEOUT_SEC, maxOutputBytes: HELPER_OUTPUT_BYTES });
      return parseLibraryVersions(res.stdout);
    } catch (err) {
      return { error: `could not read library versions: ${describeError(err)}` };
    }
  }

  /**
   * A fork server's container: the server is its main process (PID 1), stdio
   * attached, hardened like every test container. Its memory and process limits are
   * those of a test container plus the server's own share, so a test has what a
   * container of its own would give it.
   */
  private async launchForkServer(o: Opened, serverLimits: SandboxLimits): Promise<PeerProcess> {
    const base = this.boxSpec(o.image.id);
    const spec: BoxSpec = {
      ...base,
      entrypoint: [...rlimitArgs(serverLimits), IMAGE_PYTHON, '-B', '-c', forkServerSource()],
      cmd: [],
      env: { ...baseSandboxEnv(), ...PYTHON_TEST_ENV },
      memoryBytes: base.memoryBytes + FORK_SERVER.containerExtraMb * MiB,
      pids: base.pids + FORK_SERVER.containerExtraPids,
      openStdin: true,
    };
    const box = await Box.create(o.backend.engine, spec);
    try {
      const io = await box.attach();
      await box.container.start();
      // Podman hands the attach options to stdin without a newline: end that line (the server skips it).
      io.stdin.write('\n');
      // Said as a test container's end is said: a run it dies under is that fault.
      return containerProcess(box, io, (b) => this.retireBox(b), { endedHint: 'it was killed from outside or the engine restarted' });
    } catch (err) {
      await this.retireBox(box);
      throw err;
    }
  }

  private retireBox(box: Box): Promise<void> {
    const p = box.remove().finally(() => this.retiring.delete(p));
    this.retiring.add(p);
    return p;
  }

  async run(req: PythonRunRequest): Promise<PythonRunResult> {
    const o = this.forkServer && req.warm ? await this.open().catch(() => undefined) : undefined; // a missing engine is reported below
    if (o && req.warm) {
      const limits = resolveLimits(req.timeoutSec, req.limits);
      const warm = await this.forkServers.run(`${o.backend.engine.address}\u0000${o.image.id}`, req, req.warm, limits, () => {
        // No RLIMIT_NPROC in containers (see rlimitArgs); stdout joins stderr as in an exec.
        const { nproc: _nproc, ...child } = childLimits(limits);
        return { launch: (serverLimits) => this.launchForkServer(o, serverLimits), child: { limits: child, mergeOutput: true } };
      });
      if (warm) return warm;
    }
    return this.runInOwnContainer(req);
  }

  /** One run in a fresh container of the warm pool, removed afterwards. */
  private async runInOwnContainer(req: PythonRunRequest): Promise<PythonRunResult> {
    const started = Date.now();
    const fault = (message: string, durationMs = Date.now() - started): PythonRunResult => ({
      fault: message,
      result: '',
      stderr: '',
      timedOut: false,
      exitCode: null,
      exitSignal: null,
      durationMs,
    });
    let o: Opened;
    try {
      o = await this.open();
    } catch (err) {
      return fault(new PythonEnvUnavailable(err).message);
    }
    if (req.signal?.aborted) return fault('aborted');
    let box: Box;
    try {
      box = await o.pool.acquire();
    } catch (err) {
      return fault(err instanceof ContainerGoneError ? err.message : `no container to run the tests (engine ${o.backend.engine.address}): ${describeError(err)}`);
    }
    try {
      const limits = resolveLimits(req.timeoutSec, req.limits);
      let res: ExecResult;
      try {
        res = await box.exec(['/bin/sh', '-c', EXEC_SHIM, 'sh', ...rlimitArgs(limits), IMAGE_PYTHON, '-B', '-c', req.program], {
          input: req.input,
          env: { ...PYTHON_TEST_ENV, ...req.env },
          timeoutMs: req.timeoutSec * 1000,
          // One cap per stream: the result channel's.
          maxOutputBytes: req.resultBytes,
          ...(req.signal ? { signal: req.signal } : {}),
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
      return { result: res.stdout, stderr: res.stderr, timedOut: res.timedOut, exitCode: res.exitCode, exitSignal: null, durationMs: res.durationMs };
    } finally {
      // Single use, and on a timeout this is what stops the code. Off the run's
      // critical path: the result is known, the next run need not wait for it.
      this.retireLater(o.pool, box);
    }
  }

  private retireLater(pool: BoxPool, box: Box): void {
    const p = pool.retire(box).finally(() => this.retiring.delete(p));
    this.retiring.add(p);
  }

  async check(): Promise<EnvCheck> {
    try {
      const o = await this.open();
      const py = await this.pythonModules({ modules: [] });
      return py.ok ? { ok: true, detail: `${o.image.image} (${o.image.id.replace(/^sha256:/, '').slice(0, 12)}), python ${py.version}` } : { ok: false, reason: py.reason };
    } catch (err) {
      return { ok: false, reason: describeError(err) };
    }
  }

  /** Engine, image and limits; throws a UserError when the engine or image is missing. */
  async describe(): Promise<EvaluatorFacts> {
    const o = await this.open();
    const { maxProcesses: _unused, ...rlimits } = resolveLimits(this.timeoutSec);
    const { settings } = this.placement;
    return {
      backend: 'docker',
      engine: { name: o.backend.info.name, version: o.backend.info.version, apiVersion: o.backend.info.apiVersion, address: o.backend.info.address },
      image: { name: this.imageName, id: o.image.id, digests: o.image.digests, created: o.image.created },
      limits: { ...rlimits, memoryBytes: settings.memoryMb * MiB, pids: settings.pids, network: 'none', user: NOBODY },
      forkServer: this.forkServers.describe(this.forkServer),
    };
  }

  /** What the fork servers did (ForkServers.stats). */
  forkServerStats(): ForkServerStats {
    return this.forkServers.stats();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.forkServers.close();
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

/** The container environment cannot be reached (no engine, no image): no run can say anything about a program. */
export class PythonEnvUnavailable extends UserError {
  constructor(readonly reason: unknown) {
    super(`container evaluator unavailable: ${describeError(reason)}`, 'env_unavailable');
    this.name = 'PythonEnvUnavailable';
  }
}

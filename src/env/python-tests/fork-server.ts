/**
 * Warm Python for test runs: a fork server (python/fork_server.py) running as PID 1
 * of a long-lived sandbox, which has already imported the heavy libraries and forks
 * one fresh child per test, instead of a new sandbox and interpreter per test that
 * imports them again. A server is retired after FORK_SERVER.runsPerServer runs, when it says
 * it could not restore its sandbox, or when it dies; a pool keeps idle servers for a
 * while. A run no server could take (none would start, or the one at hand had died)
 * is played by the caller in a fresh sandbox; a server that breaks down during a run
 * makes that run a fault of ours, as a sandbox that goes away under a run does.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { PeerMessage, PeerProcess } from '../contract.js';
import { readLines } from '../lines.js';
import { onAbort } from '../../util/abort.js';
import { FORK_SERVER, type SandboxLimits } from '../limits.js';
import { asset } from '../../util/paths.js';
import { baseSandboxEnv } from '../bwrap/bwrap-args.js';
import { PYTHON_TEST_ENV, type PythonRunRequest, type PythonRunResult, type PythonWarmup } from './contract.js';

let serverText: string | undefined;
/** Source of fork_server.py, run as `python -B -c <source>`. */
export function forkServerSource(): string {
  serverText ??= readFileSync(asset('src', 'env', 'python-tests', 'python', 'fork_server.py'), 'utf8');
  return serverText;
}

/** The rlimits a test child sets itself (the server's own are the ceiling). */
export function childLimits(limits: SandboxLimits): Record<string, number> {
  return { as: limits.addressSpaceBytes, nproc: limits.maxProcesses, fsize: limits.fileSizeBytes, cpu: limits.cpuSeconds, nofile: limits.openFiles, core: 0 };
}

/**
 * The server's own limits for test runs under `limits`: the same, but no CPU limit
 * of its own (it lives across many tests; each child gets the run's CPU limit).
 */
export function serverLimits(limits: SandboxLimits): SandboxLimits {
  return { ...limits, cpuSeconds: FORK_SERVER.serverCpuSeconds };
}

/**
 * Servers are shared by runs in the same place (interpreter, or engine and image)
 * with the same warm-up and sandbox limits (the CPU limit is the child's).
 */
export function poolKey(where: string, warm: PythonWarmup, limits: SandboxLimits): string {
  const { cpuSeconds: _cpu, ...shared } = limits;
  let warmHash = warmHashes.get(warm);
  if (warmHash === undefined) {
    warmHash = createHash('sha256').update(JSON.stringify([warm.program, warm.input])).digest('hex');
    warmHashes.set(warm, warmHash);
  }
  return JSON.stringify([where, warmHash, shared]);
}

/** A caller that keeps its warm-up object from run to run has its text hashed once. */
const warmHashes = new WeakMap<PythonWarmup, string>();

interface RunReply {
  result: string;
  stderr: string;
  exit_code: number | null;
  timed_out: boolean;
  duration_ms: number;
  clean: boolean;
  note: string | null;
  prepare_ms: number;
  templates_made: number;
  restore_ms: number;
  templates_kb: number;
  copied_ahead_kb?: number;
}

/** A reply, or why there is none: the server was already unusable, the run was aborted, the backstop passed, or it broke down under the run. */
type Answer = { reply: PeerMessage } | { failed: string; kind: 'unusable' | 'aborted' | 'timeout' | 'broken' };

/** One server: one request at a time. */
export class ForkServer {
  runs = 0;
  /** The affinity of its last run that had one (PythonRunRequest.affinity). */
  affinity: number | undefined;
  /** Why this server may not take another run, once it may not. */
  retired: string | undefined;
  private waiting: ((a: Answer) => void) | undefined;
  private stderrTail = '';

  private constructor(
    private readonly proc: PeerProcess,
    /** Where its time besides the tests is added up (its pool's stats). */
    private readonly stats: ForkServerStats,
  ) {
    readLines(proc.stdout, FORK_SERVER.maxReplyBytes, {
      line: (text) => {
        let reply: PeerMessage;
        try {
          reply = JSON.parse(text) as PeerMessage;
        } catch {
          // Out of step with it from here on.
          this.retire(`unreadable reply from the fork server: ${text.slice(0, 200)}`);
          this.answer({ failed: this.retired!, kind: 'broken' });
          return;
        }
        this.answer({ reply });
      },
      overflow: () => {
        this.retire('the fork server sent an over-long reply');
        this.answer({ failed: this.retired!, kind: 'broken' });
      },
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    void proc.exited.then((why) => {
      const last = this.stderrTail.trim().split('\n').pop();
      this.retire(`the fork server ${why}${last ? `: ${last}` : ''}`);
      this.answer({ failed: this.retired!, kind: 'broken' });
    });
  }

  /** Starts a server and runs the warm-up in it; throws with the reason when either fails. */
  static async start(proc: PeerProcess, warm: PythonWarmup, stats: ForkServerStats): Promise<ForkServer> {
    const server = new ForkServer(proc, stats);
    const a = await server.ask({ op: 'warm', program: warm.program, input: warm.input }, FORK_SERVER.warmTimeoutMs);
    if ('failed' in a || a.reply.ok !== true) {
      await server.stop();
      throw new Error('failed' in a ? a.failed : `warming the fork server failed: ${String(a.reply.error)}`);
    }
    return server;
  }

  private answer(a: Answer): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.(a);
  }

  private retire(why: string): void {
    this.retired ??= why;
  }

  private ask(request: PeerMessage, timeoutMs: number, signal?: AbortSignal): Promise<Answer> {
    if (this.retired) return Promise.resolve({ failed: this.retired, kind: 'unusable' });
    return new Promise<Answer>((resolve) => {
      let stopWaiting = (): void => undefined;
      const done = (a: Answer): void => {
        clearTimeout(timer);
        stopWaiting();
        resolve(a);
      };
      const aborted = (): void => {
        this.retire('aborted');
        void this.stop();
        this.answer({ failed: 'aborted', kind: 'aborted' });
      };
      const timer = setTimeout(() => {
        this.retire('no reply in time');
        void this.stop();
        this.answer({ failed: 'no reply in time', kind: 'timeout' });
      }, timeoutMs);
      this.waiting = done;
      if (signal?.aborted) aborted();
      else if (signal) stopWaiting = onAbort(signal, aborted);
      this.proc.stdin.write(JSON.stringify(request) + '\n', (err) => {
        if (err) this.answer({ failed: `cannot write to the fork server: ${err.message}`, kind: 'broken' });
      });
    });
  }

  /**
   * One test run. Undefined when the server could not take it (the caller plays it in
   * a fresh sandbox). A run that was aborted, or during which the server broke down,
   * comes back as a fault; one that outlived the backstop as a timeout.
   */
  async run(req: PythonRunRequest, limits: Record<string, number>, mergeOutput: boolean): Promise<PythonRunResult | undefined> {
    this.runs++;
    const started = Date.now();
    const a = await this.ask(
      {
        op: 'run',
        program: req.program,
        input: req.input,
        // What a fresh sandbox's program gets: the clean base, the test environment, the request's.
        env: { ...baseSandboxEnv(), ...PYTHON_TEST_ENV, ...req.env },
        preload: req.preload ?? [],
        preload_ahead: req.preloadAhead ?? 0,
        limits,
        timeout: req.timeoutSec,
        result_bytes: req.resultBytes,
        output_bytes: req.outputBytes,
        merge_output: mergeOutput,
      },
      req.timeoutSec * 1000 + FORK_SERVER.replyMarginMs,
      req.signal,
    );
    if ('failed' in a) {
      const durationMs = Date.now() - started;
      if (a.kind === 'unusable') return undefined;
      if (a.kind === 'timeout') return { result: '', stderr: '', timedOut: true, exitCode: null, exitSignal: 'SIGKILL', durationMs };
      // As when a fresh sandbox or container goes away under a run: a fault of ours, not a verdict.
      return { fault: a.failed, result: '', stderr: '', timedOut: false, exitCode: null, exitSignal: null, durationMs };
    }
    const r = a.reply as unknown as RunReply;
    if (typeof r.result !== 'string') {
      this.retire(`the fork server could not run a test: ${String(a.reply.error ?? 'malformed reply')}`);
      return undefined;
    }
    this.stats.prepareMs += r.prepare_ms ?? 0;
    this.stats.templates += r.templates_made ?? 0;
    this.stats.restoreMs += r.restore_ms ?? 0;
    this.stats.templateMbPeak = Math.max(this.stats.templateMbPeak, Math.round((r.templates_kb ?? 0) / 1024));
    if ((r.copied_ahead_kb ?? 0) > 0) {
      this.stats.copiedAheadRuns++;
      this.stats.copiedAheadKb += r.copied_ahead_kb!;
    }
    if (!r.clean) this.retire(`its sandbox could not be restored: ${r.note ?? 'unknown'}`);
    if (this.runs >= FORK_SERVER.runsPerServer) this.retire('served its runs');
    return {
      result: r.result,
      stderr: r.stderr,
      timedOut: r.timed_out,
      // Killed at the timeout like a fresh sandbox's process group.
      exitCode: r.timed_out ? null : r.exit_code,
      exitSignal: r.timed_out ? 'SIGKILL' : null,
      durationMs: r.duration_ms,
    };
  }

  async stop(): Promise<void> {
    this.retire('stopped');
    await this.proc.stop();
  }
}

/** Idle servers of one warm-up and limits; a server is started when none is idle. */
export class ForkServerPool {
  private readonly idle: { server: ForkServer; timer: NodeJS.Timeout }[] = [];
  private readonly busy = new Set<ForkServer>();
  /** Set when a server could not be started: runs go to fresh sandboxes from then on. */
  unavailable: string | undefined;
  /**
   * Servers started, runs they carried out, runs they could not (played in fresh
   * sandboxes), and where the servers' time went besides the tests: starting and
   * warming up, templates, clean-up.
   */
  readonly stats: ForkServerStats = emptyStats();

  constructor(
    private readonly launch: (limits: SandboxLimits) => Promise<PeerProcess>,
    private readonly warm: PythonWarmup,
    private readonly limits: SandboxLimits,
    /** How the backend runs a test: the rlimits its child sets itself, and whether its stdout joins stderr. */
    private readonly child: NonNullable<ForkServerLaunch['child']> = { limits: childLimits(limits), mergeOutput: false },
  ) {}

  /** An idle server (the one that last ran `affinity`'s runs, if it is idle), else a new one. */
  private async take(affinity: number | undefined): Promise<ForkServer | undefined> {
    for (;;) {
      const own = affinity === undefined ? -1 : this.idle.findIndex((e) => e.server.affinity === affinity);
      const [entry] = own >= 0 ? this.idle.splice(own, 1) : this.idle.splice(-1, 1);
      if (!entry) break;
      clearTimeout(entry.timer);
      if (!entry.server.retired) return entry.server;
      void entry.server.stop(); // died while idle
    }
    if (this.unavailable) return undefined;
    try {
      const t0 = Date.now();
      const server = await ForkServer.start(await this.launch(serverLimits(this.limits)), this.warm, this.stats);
      this.stats.startMs += Date.now() - t0;
      this.stats.started++;
      return server;
    } catch (err) {
      this.unavailable = err instanceof Error ? err.message : String(err);
      return undefined;
    }
  }

  private give(server: ForkServer): void {
    this.busy.delete(server);
    if (server.retired) {
      void server.stop();
      return;
    }
    const entry = {
      server,
      timer: setTimeout(() => {
        const i = this.idle.indexOf(entry);
        if (i >= 0) this.idle.splice(i, 1);
        void server.stop();
      }, FORK_SERVER.idleMs),
    };
    entry.timer.unref();
    this.idle.push(entry);
  }

  /** Undefined when no server could take the run: the caller plays it in a fresh sandbox. */
  async run(req: PythonRunRequest): Promise<PythonRunResult | undefined> {
    const server = await this.take(req.affinity);
    if (!server) {
      this.stats.missed++;
      return undefined;
    }
    this.busy.add(server);
    if (req.affinity !== undefined) server.affinity = req.affinity;
    try {
      const result = await server.run(req, this.child.limits, this.child.mergeOutput);
      this.stats[result ? 'served' : 'missed']++;
      return result;
    } finally {
      this.give(server);
    }
  }

  async close(): Promise<void> {
    const all = [...this.idle.map((e) => (clearTimeout(e.timer), e.server)), ...this.busy];
    this.idle.length = 0;
    await Promise.all(all.map((s) => s.stop()));
  }
}

/** How a backend's fork servers are started, and how their test children run. */
export interface ForkServerLaunch {
  launch: (serverLimits: SandboxLimits) => Promise<PeerProcess>;
  /** The rlimits the child sets itself, and whether its stdout joins stderr (default: all of childLimits, apart). */
  child?: { limits: Record<string, number>; mergeOutput: boolean };
}

/** A backend's pools: one per place, warm-up and sandbox limits (poolKey). */
export class ForkServers {
  private readonly pools = new Map<string, ForkServerPool>();

  /** Undefined when no server could take the run: the caller plays it in a fresh sandbox or container. */
  run(where: string, req: PythonRunRequest, warm: PythonWarmup, limits: SandboxLimits, how: () => ForkServerLaunch): Promise<PythonRunResult | undefined> {
    const key = poolKey(where, warm, limits);
    let pool = this.pools.get(key);
    if (!pool) {
      const { launch, child } = how();
      pool = new ForkServerPool(launch, warm, limits, child);
      this.pools.set(key, pool);
    }
    return pool.run(req);
  }

  /** For describe(): off, on, or on but why no server could be started. */
  describe(enabled: boolean): boolean | { unavailable: string } {
    const unavailable = [...this.pools.values()].map((p) => p.unavailable).find(Boolean);
    return enabled && unavailable ? { unavailable } : enabled;
  }

  /** The pools' stats, added up (the template memory: the largest). */
  stats(): ForkServerStats {
    const total = emptyStats();
    for (const p of this.pools.values()) {
      for (const k of Object.keys(total) as (keyof ForkServerStats)[]) if (k !== 'templateMbPeak') total[k] += p.stats[k];
      total.templateMbPeak = Math.max(total.templateMbPeak, p.stats.templateMbPeak);
    }
    return total;
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((p) => p.close()));
  }
}

export interface ForkServerStats {
  started: number;
  served: number;
  missed: number;
  startMs: number;
  templates: number;
  prepareMs: number;
  restoreMs: number;
  /** The most memory one server's templates held at once (MB: what each one's imports added, measured in it after them). */
  templateMbPeak: number;
  /** Runs whose child copied ahead the pages earlier children of its template had copied on write, and how much in all. */
  copiedAheadRuns: number;
  copiedAheadKb: number;
}

function emptyStats(): ForkServerStats {
  return { started: 0, served: 0, missed: 0, startMs: 0, templates: 0, prepareMs: 0, restoreMs: 0, templateMbPeak: 0, copiedAheadRuns: 0, copiedAheadKb: 0 };
}

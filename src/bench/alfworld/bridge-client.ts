/**
 * The TypeScript side of the ALFWorld bridge: talks JSON lines to `python3 -u
 * bridge.py` (see python/bridge.py for the protocol), wherever a transport runs it
 * (a local child process, or a container: bridge-process.ts, bridge-container.ts).
 * A request that times out kills the process; a crashed or killed process fails its
 * pending requests with a BridgeFault and is restarted on the next request. The
 * bridge's stderr goes to the log. A small pool runs several bridges for concurrent
 * episodes.
 */
import { createInterface } from 'node:readline';
import type { Logger } from 'pino';
import { BridgeFault, localTransport, type BridgeProcess, type BridgeTransport } from './bridge-process.js';
import { HarnessError } from '../../util/errors.js';

export { BRIDGE_SCRIPT, BridgeFault } from './bridge-process.js';

export type AlfworldEnvKind = 'standin' | 'alfworld';

export interface BridgeOptions {
  env: AlfworldEnvKind;
  seed: number;
  /** ALFWorld's environment config (its YAML, as an object). */
  config?: unknown;
  envType?: string;
  /** Stand-in only: games per task type per split. */
  gamesPerType?: Partial<Record<'train' | 'valid_seen' | 'valid_unseen', number>>;
  python?: string;
  script?: string;
  /** Per-request timeout; init gets initTimeoutMs. */
  timeoutMs: number;
  initTimeoutMs?: number;
  log?: Logger;
  /** Extra environment variables for the bridge (PYTHONPATH for tests). */
  extraEnv?: Record<string, string>;
  /** Where bridges run; default a local child process (python, script, extraEnv). */
  transport?: BridgeTransport;
}

/** The bridge answered with ok: false (a bad request: unknown game, empty split, missing package). */
/** The bridge answered a request with an error; `code` is the bridge's (missing_alfworld, bad_request, ...). */
export class BridgeRequestError extends HarnessError {
  constructor(message: string, code: string) {
    super(message, code);
    this.name = 'BridgeRequestError';
  }
}

export interface GameInfo {
  index: number;
  game_file: string;
  task_type: string;
  observation?: string;
}

export interface ResetReply {
  observation: string;
  task_type: string;
  game_file: string;
  admissible_commands: string[];
  expert_plan?: string[];
}

export interface StepReply {
  observation: string;
  reward: number;
  done: boolean;
  won: boolean;
  admissible_commands: string[];
  expert_plan?: string[];
}

interface Pending {
  resolve(value: Record<string, unknown>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class BridgeClient {
  private proc: BridgeProcess | undefined;
  private ready: Promise<void> | undefined;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private readonly transport: BridgeTransport;
  /** Times the process was (re)started. */
  starts = 0;
  envLabel: string | undefined;
  /** The environment package's version (alfworld.__version__), when it has one. */
  envVersion: string | null = null;

  constructor(private readonly opts: BridgeOptions) {
    this.transport = opts.transport ?? localTransport({ python: opts.python, script: opts.script, extraEnv: opts.extraEnv });
  }

  /** The local child's pid (tests kill it to simulate a crash). */
  get pid(): number | undefined {
    const pid = this.proc?.where.pid;
    return typeof pid === 'number' ? pid : undefined;
  }

  /** The bridge container's id, with the docker transport. */
  get containerId(): string | undefined {
    const id = this.proc?.where.container;
    return typeof id === 'string' ? id : undefined;
  }

  private async start(): Promise<void> {
    this.starts += 1;
    const proc = await this.transport.launch();
    this.proc = proc;
    const log = this.opts.log;
    createInterface({ input: proc.stderr }).on('line', (line) => log?.warn({ event: 'alfworld_bridge_stderr', ...proc.where, line }, 'bridge stderr'));
    createInterface({ input: proc.stdout }).on('line', (line) => this.onLine(line));
    proc.stdin.on('error', () => undefined); // reported through `exited` / the write callback
    void proc.exited.then((why) => {
      if (this.proc === proc && this.pending.size > 0) log?.error({ event: 'alfworld_bridge_exit', ...proc.where, why }, 'bridge died');
      this.detach(proc, new BridgeFault(`the ALFWorld bridge ${why}`));
    });
    const r = await this.send(
      {
        cmd: 'init',
        env: this.opts.env,
        seed: this.opts.seed,
        config: this.opts.config ?? null,
        env_type: this.opts.envType ?? 'AlfredTWEnv',
        games_per_type: this.opts.gamesPerType ?? null,
      },
      this.opts.initTimeoutMs ?? Math.max(this.opts.timeoutMs, 300_000),
    );
    this.envLabel = String(r.env_label);
    this.envVersion = typeof r.env_version === 'string' ? r.env_version : null;
  }

  private onLine(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.opts.log?.warn({ event: 'alfworld_bridge_noise', line }, 'non-JSON line on bridge stdout');
      return;
    }
    const id = Number(msg.id);
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    if (msg.ok === true) p.resolve(msg);
    else p.reject(new BridgeRequestError(String(msg.error ?? 'bridge error'), String(msg.code ?? 'bad_request')));
  }

  /** Forget a dead or hung process (the next request starts a new one) and fail what it owed. */
  private detach(proc: BridgeProcess, err: Error): void {
    if (this.proc !== proc) return;
    this.proc = undefined;
    this.ready = undefined;
    this.failAll(err);
    void proc.stop();
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(err);
    }
  }

  private send(msg: Record<string, unknown>, timeoutMs: number): Promise<Record<string, unknown>> {
    const proc = this.proc;
    if (!proc) return Promise.reject(new BridgeFault('the ALFWorld bridge is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.opts.log?.error({ event: 'alfworld_bridge_timeout', ...proc.where, cmd: msg.cmd, timeoutMs }, 'bridge hung; killed');
        reject(new BridgeFault(`the ALFWorld bridge did not answer "${String(msg.cmd)}" within ${Math.round(timeoutMs / 1000)} s; it was restarted`));
        this.detach(proc, new BridgeFault('the ALFWorld bridge was killed after a timeout'));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      proc.stdin.write(`${JSON.stringify({ id, ...msg })}\n`, (err) => {
        if (err) this.detach(proc, new BridgeFault(`cannot write to the ALFWorld bridge: ${err.message}`));
      });
    });
  }

  /** Send one request, starting (or restarting) the process first if needed. */
  async request<R = Record<string, unknown>>(msg: Record<string, unknown>, timeoutMs = this.opts.timeoutMs): Promise<R> {
    const p = this.proc;
    if (p && !p.running) this.detach(p, new BridgeFault('the ALFWorld bridge died'));
    if (!this.ready) this.ready = this.start();
    try {
      await this.ready;
    } catch (err) {
      this.kill();
      throw err;
    }
    return (await this.send(msg, timeoutMs)) as R;
  }

  listGames(split: string, observations = true): Promise<{ games: GameInfo[] }> {
    return this.request({ cmd: 'list', split, observations }, Math.max(this.opts.timeoutMs, 600_000));
  }

  reset(args: { split?: string; index?: number; gameFile?: string; expert?: boolean }): Promise<ResetReply> {
    return this.request({ cmd: 'reset', split: args.split, index: args.index, game_file: args.gameFile, expert: args.expert ?? false });
  }

  step(action: string, expert = false): Promise<StepReply> {
    return this.request({ cmd: 'step', action, expert });
  }

  /** Stops the process at once (the next request starts a new one). */
  kill(): void {
    const p = this.proc;
    this.ready = undefined;
    if (p) this.detach(p, new BridgeFault('the ALFWorld bridge was stopped'));
  }

  /** Ask the bridge to exit; stop it if it does not within a second. */
  async close(): Promise<void> {
    // A start in flight: let it settle so its process is not left behind.
    await this.ready?.catch(() => undefined);
    const proc = this.proc;
    if (!proc) return;
    let timer: NodeJS.Timeout | undefined;
    try {
      await this.send({ cmd: 'close' }, 1000);
      await Promise.race([proc.exited, new Promise((r) => (timer = setTimeout(r, 1000)))]);
    } catch {
      // stopped below
    } finally {
      clearTimeout(timer);
    }
    if (this.proc === proc) this.proc = undefined;
    this.ready = undefined;
    await proc.stop();
  }
}

/** Up to `size` bridges; an episode holds one for its whole length. */
export class BridgePool {
  private idle: BridgeClient[] = [];
  private all: BridgeClient[] = [];
  private waiters: ((c: BridgeClient) => void)[] = [];

  private readonly opts: BridgeOptions;

  constructor(
    opts: BridgeOptions,
    private readonly size: number,
  ) {
    // One transport for the pool (one engine connection, one place that removes containers).
    this.opts = { ...opts, transport: opts.transport ?? localTransport({ python: opts.python, script: opts.script, extraEnv: opts.extraEnv }) };
  }

  get transport(): BridgeTransport {
    return this.opts.transport!;
  }

  async acquire(): Promise<BridgeClient> {
    const c = this.idle.pop();
    if (c) return c;
    if (this.all.length < this.size) {
      const fresh = new BridgeClient(this.opts);
      this.all.push(fresh);
      return fresh;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(c: BridgeClient): void {
    const w = this.waiters.shift();
    if (w) w(c);
    else this.idle.push(c);
  }

  async use<R>(fn: (c: BridgeClient) => Promise<R>): Promise<R> {
    const c = await this.acquire();
    try {
      return await fn(c);
    } finally {
      this.release(c);
    }
  }

  get clients(): readonly BridgeClient[] {
    return this.all;
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((c) => c.close()));
    await this.transport.close();
  }
}

/**
 * ALFWorld's side of the bridge: the protocol of python/bridge.py (init, list,
 * reset, step, close) over the env's bridge client (env/bridge/client.ts), which
 * owns the JSON-lines envelope, timeouts, restarts and output caps wherever a
 * transport runs the bridge (a local child process, or a container). A small pool
 * runs several bridges for concurrent episodes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { BridgeClient as JsonLinesClient } from '../../env/bridge/client.js';
import type { PeerMessage } from '../../env/contract.js';
import type { BridgeFile, BridgeSettings, BridgeTransport } from '../../env/bridge/contract.js';
import type { ContainerSettings } from '../../env/container/backend.js';
import { BridgeFault, BridgeRequestError } from '../../env/bridge/faults.js';
import { openEnv } from '../../env/registry.js';
import { asset } from '../../util/paths.js';
import { Pool } from '../../util/pool.js';

export { BridgeFault, BridgeRequestError };

export const BRIDGE_DIR = asset('src', 'bench', 'alfworld', 'python');
export const BRIDGE_SCRIPT = asset('src', 'bench', 'alfworld', 'python', 'bridge.py');
/** For messages and log events. */
export const BRIDGE_LABEL = 'the ALFWorld bridge';
const LOG_EVENT = 'alfworld_bridge';

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
  transport?: BridgeTransport | Promise<BridgeTransport>;
}

/** Where the bridge's files go inside a container. */
export const CONTAINER_BRIDGE_DIR = '/opt/memrl-bridge';
const BRIDGE_FILES = ['bridge.py', 'standin.py'];

export interface ContainerBridgeOptions {
  settings: ContainerSettings;
  /** Bridges at once (the run's concurrency). */
  concurrency: number;
  /** Image with python3 (and alfworld for the real env). */
  image: string;
  extraEnv?: Record<string, string>;
  /** More files next to bridge.py (it puts its own folder on sys.path): tests add a fake alfworld package. */
  files?: BridgeFile[];
}

/**
 * Each bridge in a container of `image` whose main process is `python3 -u bridge.py`;
 * the bridge's Python files are copied in before the start, so any image with
 * python3 works (plus the alfworld package and data for the real env).
 */
export function containerBridgeSettings(opts: ContainerBridgeOptions): BridgeSettings {
  return {
    label: BRIDGE_LABEL,
    command: ['python3', '-u', `${CONTAINER_BRIDGE_DIR}/bridge.py`],
    ...(opts.extraEnv ? { env: opts.extraEnv } : {}),
    docker: { settings: opts.settings, image: opts.image, role: 'alfworld', concurrency: opts.concurrency },
    files: [...BRIDGE_FILES.map((name) => ({ name, content: readFileSync(join(BRIDGE_DIR, name)) })), ...(opts.files ?? [])],
    filesDir: CONTAINER_BRIDGE_DIR,
  };
}

/** The docker bridge transport from the env registry. */
export function containerBridgeTransport(opts: ContainerBridgeOptions): Promise<BridgeTransport> {
  return openEnv('bridge', 'docker', containerBridgeSettings(opts));
}

/** `python3 -u bridge.py` as a child of this process, through the env registry. */
export function localBridgeTransport(opts: Pick<BridgeOptions, 'python' | 'script' | 'extraEnv'> = {}): Promise<BridgeTransport> {
  return openEnv('bridge', 'local', {
    label: BRIDGE_LABEL,
    command: [opts.python ?? 'python3', '-u', opts.script ?? BRIDGE_SCRIPT],
    ...(opts.extraEnv ? { env: opts.extraEnv } : {}),
  });
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

export class BridgeClient extends JsonLinesClient {
  envLabel: string | undefined;
  /** The environment package's version (alfworld.__version__), when it has one. */
  envVersion: string | null = null;

  constructor(opts: BridgeOptions) {
    super({
      transport: opts.transport ?? localBridgeTransport(opts),
      label: BRIDGE_LABEL,
      logEvent: LOG_EVENT,
      timeoutMs: opts.timeoutMs,
      ...(opts.log ? { log: opts.log } : {}),
      hello: {
        request: {
          cmd: 'init',
          env: opts.env,
          seed: opts.seed,
          config: opts.config ?? null,
          env_type: opts.envType ?? 'AlfredTWEnv',
          games_per_type: opts.gamesPerType ?? null,
        },
        timeoutMs: opts.initTimeoutMs ?? Math.max(opts.timeoutMs, 300_000),
      },
    });
  }

  protected override onHello(r: PeerMessage): void {
    this.envLabel = String(r.env_label);
    this.envVersion = typeof r.env_version === 'string' ? r.env_version : null;
  }

  listGames(split: string, observations = true): Promise<{ games: GameInfo[] }> {
    return this.request({ cmd: 'list', split, observations }, Math.max(this.timeoutMs, 600_000));
  }

  reset(args: { split?: string; index?: number; gameFile?: string; expert?: boolean }): Promise<ResetReply> {
    return this.request({ cmd: 'reset', split: args.split, index: args.index, game_file: args.gameFile, expert: args.expert ?? false });
  }

  step(action: string, expert = false): Promise<StepReply> {
    return this.request({ cmd: 'step', action, expert });
  }
}

/** Up to `size` bridges (the shared Pool, 'reuse'); an episode holds one for its whole length. */
export class BridgePool extends Pool<BridgeClient> {
  /** One transport for the pool (one engine connection, one place that removes containers). */
  readonly transport: Promise<BridgeTransport>;
  /** Every client made, in order, also after close (tests read their start counts). */
  private readonly made: BridgeClient[];

  constructor(opts: BridgeOptions, size: number) {
    const transport = Promise.resolve(opts.transport ?? localBridgeTransport(opts));
    transport.catch(() => undefined); // surfaced by the first request
    const made: BridgeClient[] = [];
    super({
      policy: 'reuse',
      size,
      create: async () => {
        const c = new BridgeClient({ ...opts, transport });
        made.push(c);
        return c;
      },
      destroy: (c) => c.close(),
    });
    this.transport = transport;
    this.made = made;
  }

  get clients(): readonly BridgeClient[] {
    return this.made;
  }

  override async close(): Promise<void> {
    await super.close();
    await (await this.transport.catch(() => null))?.close();
  }
}

/**
 * The bridge in a container (`--evaluator docker`): each bridge is one container
 * whose main process is `python3 -u bridge.py`, its stdio attached. The bridge's
 * Python files are copied in before start, so any image with python3 works (plus the
 * alfworld package and data for the real env). Hardened like every evaluator box: no
 * network, memory and process limits, no capabilities, read-only root (when the
 * engine lets files be copied into one) with a tmpfs /tmp as HOME.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerSettings } from '../../config/types.js';
import { openContainerBackend, type ContainerBackend } from '../../container/backend.js';
import { Box, type BoxSpec } from '../../container/box.js';
import { describeError } from '../../container/engine.js';
import type { ImageFacts } from '../../container/image.js';
import { UserError } from '../../util/errors.js';
import { BRIDGE_DIR, BridgeFault, type BridgeProcess, type BridgeTransport } from './bridge-process.js';

/** Where the bridge's files go inside the container. */
export const CONTAINER_BRIDGE_DIR = '/opt/memrl-bridge';
const BRIDGE_FILES = ['bridge.py', 'standin.py'];
/** How long to wait for the engine to say why a bridge's stream ended. */
const STATE_WAIT_MS = 3000;

export interface ContainerTransportOptions {
  settings: DockerSettings;
  /** Bridges at once (the run's concurrency). */
  concurrency: number;
  /** Image with python3 (and alfworld for the real env). */
  image: string;
  extraEnv?: Record<string, string>;
  /** More files next to bridge.py (it puts its own folder on sys.path): tests add a fake alfworld package. */
  files?: { name: string; content: string | Buffer }[];
}

export interface ContainerTransport extends BridgeTransport {
  /** Containers started so far (tests). */
  readonly started: number;
}

export function containerTransport(opts: ContainerTransportOptions): ContainerTransport {
  let backend: Promise<ContainerBackend> | undefined;
  // Docker refuses to copy into a read-only root (Podman allows it): then fall back to a writable one, once.
  let readOnlyRoot = true;
  let closed = false;
  let started = 0;
  const live = new Set<Box>();
  const removals = new Set<Promise<void>>();

  const files = [
    ...BRIDGE_FILES.map((name) => ({ name, content: readFileSync(join(BRIDGE_DIR, name)) })),
    ...(opts.files ?? []),
  ];

  const open = async (): Promise<{ backend: ContainerBackend; facts: ImageFacts }> => {
    if (!backend) {
      backend = openContainerBackend(opts.settings, opts.concurrency);
      // Not cached when it failed: a later attempt may find the engine up.
      backend.catch(() => (backend = undefined));
    }
    const b = await backend;
    return { backend: b, facts: await b.image(opts.image) };
  };

  const release = (box: Box): Promise<void> => {
    const p = box.remove().finally(() => {
      live.delete(box);
      removals.delete(p);
    });
    removals.add(p);
    return p;
  };

  const spec = (): BoxSpec => ({
    image: opts.image,
    role: 'alfworld',
    entrypoint: ['python3', '-u', `${CONTAINER_BRIDGE_DIR}/bridge.py`],
    cmd: [],
    // HOME on the tmpfs: libraries that write caches find a writable place; no .pyc next to the bridge.
    env: { HOME: '/tmp', PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', ...(opts.extraEnv ?? {}) },
    workdir: '/tmp',
    memoryBytes: opts.settings.memoryMb * 1024 * 1024,
    pids: opts.settings.pids,
    readOnlyRoot,
    openStdin: true,
  });

  const create = async (b: ContainerBackend): Promise<Box> => {
    const box = await Box.create(b.engine, spec());
    live.add(box);
    try {
      await box.putFiles(CONTAINER_BRIDGE_DIR, files);
      return box;
    } catch (err) {
      await release(box);
      if (readOnlyRoot && /read-?only/i.test(describeError(err))) {
        readOnlyRoot = false;
        return create(b);
      }
      throw err;
    }
  };

  return {
    kind: 'docker',
    get started() {
      return started;
    },
    async launch(): Promise<BridgeProcess> {
      if (closed) throw new BridgeFault('the ALFWorld bridge containers were closed');
      // No engine / no image: a UserError that stops the run with one line.
      const { backend: b } = await open();
      let box: Box | undefined;
      let io: Awaited<ReturnType<Box['attach']>>;
      try {
        box = await create(b);
        io = await box.attach();
        await box.container.start();
        // docker-modem sends the attach options as a JSON body, which Podman hands to
        // stdin without a newline: end that line so the first request is not glued to
        // it (the bridge answers the stray line with id null, which the client ignores).
        io.stdin.write('\n');
        started += 1;
      } catch (err) {
        if (box) await release(box);
        if (err instanceof UserError) throw err;
        throw new BridgeFault(`cannot start the ALFWorld bridge container from ${opts.image}: ${describeError(err)}`);
      }
      if (closed) {
        await release(box);
        throw new BridgeFault('the ALFWorld bridge containers were closed');
      }
      return containerProcess(box, io, release);
    },
    async close() {
      closed = true;
      await Promise.all([...[...live].map((box) => release(box)), ...removals]);
    },
    async describe() {
      const { backend: b, facts: f } = await open();
      return {
        backend: 'docker',
        engine: `${b.info.name} ${b.info.version}`,
        address: b.info.address,
        image: opts.image,
        imageId: f.id,
        ...(f.digests.length ? { imageDigests: f.digests } : {}),
        network: 'none',
        readOnlyRoot,
        memoryMb: opts.settings.memoryMb,
        pids: opts.settings.pids,
      };
    },
  };
}

/**
 * Box.remove() swallows errors, so a remove the engine refused (a container still
 * being stopped) would go unnoticed: check that it is gone, and try again a few times.
 */
type Attached = Awaited<ReturnType<Box['attach']>>;

function containerProcess(box: Box, io: Attached, release: (box: Box) => Promise<void>): BridgeProcess {
  // An idle bridge must not keep node alive (as a local child); pending requests hold a timer.
  (io.stdin as unknown as { unref?: () => void }).unref?.();
  let ended = false;
  let settle: (why: string) => void = () => undefined;
  const exited = new Promise<string>((resolve) => (settle = resolve));
  const onEnd = (): void => {
    if (ended) return;
    ended = true;
    // Why it ended, from the engine (briefly: a dead engine must not delay failing the episode).
    const wait = new Promise<{ running: boolean; detail: string }>((r) => setTimeout(() => r({ running: true, detail: 'the engine did not say why' }), STATE_WAIT_MS).unref());
    void Promise.race([box.state(), wait]).then((s) => {
      settle(`container ${box.shortId} ${s.running ? `stopped talking (${s.detail})` : s.detail}`);
      void release(box);
    });
  };
  io.stdout.once('end', onEnd);
  io.stdin.once('close', onEnd);
  io.stdin.once('error', onEnd);
  return {
    where: { container: box.id },
    stdin: io.stdin,
    stdout: io.stdout,
    stderr: io.stderr,
    exited,
    get running() {
      return !ended && !io.stdin.destroyed && io.stdin.writable;
    },
    async stop() {
      if (!ended) {
        ended = true;
        settle(`container ${box.shortId} was stopped`);
      }
      io.stdin.destroy();
      await release(box);
    },
  };
}

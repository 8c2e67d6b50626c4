/**
 * A bridge in a container: each bridge is one container whose main process is the
 * bridge command, its stdio attached. The bridge's files are copied in before the
 * start, so any image with the program's interpreter works. Hardened like every
 * container: no network, memory and process limits, no capabilities, read-only root
 * (when the engine lets files be copied into one) with a tmpfs /tmp as HOME.
 */
import { UserError } from '../../util/errors.js';
import type { EnvCheck, EvaluatorFacts } from '../contract.js';
import { openContainerBackend, type ContainerBackend, type ContainerPlacement } from '../container/backend.js';
import { Box, type BoxSpec } from '../container/box.js';
import { containerProcess, type Attached } from '../container/main-process.js';
import { describeError } from '../container/engine.js';
import type { ImageFacts } from '../container/image.js';
import type { BridgeFile, BridgeProcess, BridgeSettings, BridgeTransport } from './contract.js';
import { BridgeFault } from './faults.js';

/** Where the bridge's files go inside the container unless the settings say. */
export const CONTAINER_BRIDGE_DIR = '/opt/memrl-bridge';

export class DockerBridgeTransport implements BridgeTransport {
  readonly backend = 'docker' as const;
  private opened: Promise<ContainerBackend> | undefined;
  // Docker refuses to copy into a read-only root (Podman allows it): then fall back to a writable one, once.
  private readOnlyRoot = true;
  private closed = false;
  /** Containers started so far (tests). */
  started = 0;
  private readonly live = new Set<Box>();
  private readonly removals = new Set<Promise<void>>();
  private readonly placement: ContainerPlacement;
  private readonly files: BridgeFile[];

  constructor(private readonly settings: BridgeSettings) {
    if (!settings.docker) throw new BridgeFault(`${settings.label}: the docker bridge backend needs container settings (engine, image)`);
    this.placement = settings.docker;
    this.files = settings.files ?? [];
  }

  private async open(): Promise<{ backend: ContainerBackend; facts: ImageFacts }> {
    if (!this.opened) {
      const p = openContainerBackend(this.placement.settings, this.placement.concurrency);
      this.opened = p;
      // Not kept when it failed: a later attempt may find the engine up.
      p.catch(() => {
        if (this.opened === p) this.opened = undefined;
      });
    }
    const b = await this.opened;
    return { backend: b, facts: await b.image(this.placement.image) };
  }

  private release(box: Box): Promise<void> {
    const p = box.remove().finally(() => {
      this.live.delete(box);
      this.removals.delete(p);
    });
    this.removals.add(p);
    return p;
  }

  private spec(): BoxSpec {
    const { settings } = this.placement;
    return {
      image: this.placement.image,
      role: this.placement.role,
      entrypoint: this.settings.command,
      cmd: [],
      // HOME on the tmpfs: libraries that write caches find a writable place; no .pyc next to the bridge.
      env: { HOME: '/tmp', PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', ...(this.settings.env ?? {}) },
      workdir: '/tmp',
      memoryBytes: settings.memoryMb * 1024 * 1024,
      pids: settings.pids,
      readOnlyRoot: this.readOnlyRoot,
      openStdin: true,
    };
  }

  private async create(b: ContainerBackend): Promise<Box> {
    const box = await Box.create(b.engine, this.spec());
    this.live.add(box);
    try {
      if (this.files.length) await box.putFiles(this.settings.filesDir ?? CONTAINER_BRIDGE_DIR, this.files);
      return box;
    } catch (err) {
      await this.release(box);
      if (this.readOnlyRoot && /read-?only/i.test(describeError(err))) {
        this.readOnlyRoot = false;
        return this.create(b);
      }
      throw err;
    }
  }

  async launch(): Promise<BridgeProcess> {
    const label = this.settings.label;
    if (this.closed) throw new BridgeFault(`${label} containers were closed`);
    // No engine / no image: a UserError that stops the run with one line.
    const { backend: b } = await this.open();
    let box: Box | undefined;
    let io: Attached;
    try {
      box = await this.create(b);
      io = await box.attach();
      await box.container.start();
      // docker-modem sends the attach options as a JSON body, which Podman hands to
      // stdin without a newline: end that line so the first request is not glued to
      // it (a JSON-lines bridge answers the stray line with id null, which the client ignores).
      io.stdin.write('\n');
      this.started += 1;
    } catch (err) {
      if (box) await this.release(box);
      if (err instanceof UserError) throw err;
      throw new BridgeFault(`cannot start ${label} container from ${this.placement.image}: ${describeError(err)}`);
    }
    if (this.closed) {
      await this.release(box);
      throw new BridgeFault(`${label} containers were closed`);
    }
    return containerProcess(box, io, (x) => this.release(x));
  }

  /** The engine and the image are there. */
  async check(): Promise<EnvCheck> {
    try {
      const { facts } = await this.open();
      return { ok: true, detail: `${this.placement.image} (${facts.id.replace(/^sha256:/, '').slice(0, 12)})` };
    } catch (err) {
      return { ok: false, reason: describeError(err) };
    }
  }

  async describe(): Promise<EvaluatorFacts> {
    const { backend: b, facts: f } = await this.open();
    const { settings } = this.placement;
    return {
      backend: 'docker',
      engine: `${b.info.name} ${b.info.version}`,
      address: b.info.address,
      image: this.placement.image,
      imageId: f.id,
      ...(f.digests.length ? { imageDigests: f.digests } : {}),
      network: 'none',
      readOnlyRoot: this.readOnlyRoot,
      memoryMb: settings.memoryMb,
      pids: settings.pids,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...[...this.live].map((box) => this.release(box)), ...this.removals]);
  }
}

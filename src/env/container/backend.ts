/**
 * What a container backend needs for one run: the engine (checked once), the
 * container settings (memrl.evaluator.docker), and how many containers may run at
 * once. Opening it also removes the containers that crashed memrl runs left behind.
 */
import { sweepOrphans } from './cleanup.js';
import { openEngine, type Engine, type EngineInfo } from './engine.js';
import { ensureImage, type ImageFacts } from './image.js';

/** How containers are reached and limited: the shape of memrl.evaluator.docker without its image slots. */
export interface ContainerSettings {
  /** Engine address, or null for DOCKER_HOST / the usual sockets. */
  host: string | null;
  /** Memory limit of each container, MiB (swap equal to it). */
  memoryMb: number;
  /** Process limit of each container. */
  pids: number;
  /** Pull an image that is not on the engine, or fail at once. */
  pull: 'missing' | 'never';
}

/** Where one kind's containers run: engine settings, the image, the label role, how many at once. */
export interface ContainerPlacement {
  settings: ContainerSettings;
  image: string;
  /** What the containers are for (the dev.memrl.role label): the caller's name, e.g. its benchmark's. */
  role: string;
  /** Containers per pool (the run's --concurrency). */
  concurrency: number;
}

export interface ContainerBackend {
  engine: Engine;
  info: EngineInfo;
  settings: ContainerSettings;
  /** Containers per pool (the run's --concurrency). */
  concurrency: number;
  /** The image, pulled if allowed and missing; facts for the run manifest. */
  image(name: string): Promise<ImageFacts>;
}

export async function openContainerBackend(settings: ContainerSettings, concurrency: number): Promise<ContainerBackend> {
  const { engine, info } = await openEngine(settings.host);
  await sweepOrphans(engine).catch(() => 0);
  return {
    engine,
    info,
    settings,
    concurrency: Math.max(1, concurrency),
    image: (name) => ensureImage(engine, name, settings.pull),
  };
}

/**
 * What a container-backed evaluator needs for one run: the engine (checked once),
 * the settings of memrl.evaluator.docker, and how many containers may run at once.
 * Opening it also removes the containers that crashed memrl runs left behind.
 */
import type { DockerSettings } from '../config/types.js';
import { sweepOrphans } from './cleanup.js';
import { openEngine, type Engine, type EngineInfo } from './engine.js';
import { ensureImage, type ImageFacts } from './image.js';

export interface ContainerBackend {
  engine: Engine;
  info: EngineInfo;
  settings: DockerSettings;
  /** Containers per pool (the run's --concurrency). */
  concurrency: number;
  /** The image, pulled if allowed and missing; facts for the run manifest. */
  image(name: string): Promise<ImageFacts>;
}

export async function openContainerBackend(settings: DockerSettings, concurrency: number): Promise<ContainerBackend> {
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

/**
 * What a container-backed evaluator needs for one run: the engine (checked once),
 * the settings of memrl.evaluator.docker, and how many containers may run at once.
 * Opening it also removes the containers that crashed memrl runs left behind.
 */
import type { DockerSettings } from '../config/types.js';
import { UserError } from '../util/errors.js';
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

/** The image of a slot of memrl.evaluator.docker.images (the schema fills every registered slot). */
export function imageOf(settings: DockerSettings, slot: string): string {
  const image = settings.images[slot];
  if (!image) throw new UserError(`memrl.evaluator.docker.images.${slot} is not set; name the image to run in`, 'image_unset');
  return image;
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

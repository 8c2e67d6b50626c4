/**
 * Making sure an evaluator image is on the engine before the first container: look it
 * up, pull it when allowed, or stop with one line saying how to build it.
 */
import { UserError } from '../../util/errors.js';
import { IMAGE_PULL_TIMEOUT_MS } from '../limits.js';
import { describeError, type Engine } from './engine.js';

export const BUILD_HINT = 'build the images with: bash scripts/build-images.sh (or docker pull it on a machine with a registry)';

export class ImageUnavailableError extends UserError {
  constructor(image: string, address: string, detail: string) {
    super(`image ${image} is not on the container engine at ${address} (${detail}); ${BUILD_HINT}`);
    this.name = 'ImageUnavailableError';
  }
}

export interface ImageFacts {
  image: string;
  id: string;
  /** Registry digests, when the image came from one. */
  digests: string[];
  created: string | null;
}

const known = new Map<string, Promise<ImageFacts>>();

/** Inspects the image, pulling it first when it is missing and `pull` allows. Cached per engine and image. */
export function ensureImage(engine: Engine, image: string, pull: 'missing' | 'never'): Promise<ImageFacts> {
  const key = `${engine.address} ${image}`;
  let p = known.get(key);
  if (!p) {
    p = lookupOrPull(engine, image, pull);
    known.set(key, p);
    p.catch(() => known.delete(key));
  }
  return p;
}

async function inspect(engine: Engine, image: string): Promise<ImageFacts | null> {
  try {
    const info = await engine.docker.getImage(image).inspect();
    return { image, id: info.Id, digests: info.RepoDigests ?? [], created: info.Created ?? null };
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return null;
    throw new UserError(`cannot look up image ${image} on ${engine.address}: ${describeError(err)}`);
  }
}

async function lookupOrPull(engine: Engine, image: string, pull: 'missing' | 'never'): Promise<ImageFacts> {
  const found = await inspect(engine, image);
  if (found) return found;
  if (pull === 'never') throw new ImageUnavailableError(image, engine.address, 'memrl.evaluator.docker.pull is never');
  try {
    await pullImage(engine, image);
  } catch (err) {
    throw new ImageUnavailableError(image, engine.address, `pull failed: ${describeError(err)}`);
  }
  const after = await inspect(engine, image);
  if (!after) throw new ImageUnavailableError(image, engine.address, 'the pull reported success but the image is not there');
  return after;
}

async function pullImage(engine: Engine, image: string): Promise<void> {
  const stream = await engine.docker.pull(image);
  await new Promise<void>((resolvePull, reject) => {
    const timer = setTimeout(() => reject(new Error(`no result after ${IMAGE_PULL_TIMEOUT_MS / 60_000} min`)), IMAGE_PULL_TIMEOUT_MS);
    engine.docker.modem.followProgress(
      stream,
      (err: Error | null, events: { error?: string }[]) => {
        clearTimeout(timer);
        const failed = err ?? (events ?? []).find((e) => e.error);
        if (failed) reject(failed instanceof Error ? failed : new Error((failed as { error: string }).error));
        else resolvePull();
      },
    );
  });
}

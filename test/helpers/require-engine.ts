/**
 * The real container engine for `--evaluator docker` tests (Podman's Docker API here).
 * Outside CI a missing engine or image skips the suites (reason printed); under
 * CI=true they run and fail, so a CI machine without the engine cannot pass by skipping.
 */
import { openEngine, type Engine } from '../../src/env/container/engine.js';

export const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');

export interface EngineRequirement {
  ok: boolean;
  reason: string;
  /** Pass to describe.skipIf(): true only when missing AND not in CI. */
  skip: boolean;
  engine?: Engine;
}

/** The engine (DOCKER_HOST or the usual sockets) with every image in `images` present. */
export async function requireEngine(images: string[] = []): Promise<EngineRequirement> {
  let engine: Engine | undefined;
  let reason = '';
  try {
    engine = (await openEngine(null)).engine;
    for (const image of images) {
      try {
        await engine.docker.getImage(image).inspect();
      } catch {
        reason = `image ${image} missing; build it with: bash scripts/build-images.sh`;
        break;
      }
    }
  } catch (err) {
    reason = (err as Error).message;
  }
  const ok = reason === '';
  if (!ok && !IN_CI) process.stderr.write(`[skip] container tests: ${reason}\n`);
  return { ok, reason, skip: !ok && !IN_CI, ...(engine ? { engine } : {}) };
}

/** Containers of this test process still on the engine (tests assert none are left). */
export async function leftoverContainers(engine: Engine): Promise<string[]> {
  const list = await engine.docker.listContainers({ all: true, filters: { label: [`dev.memrl.pid=${process.pid}`] } });
  return list.map((c) => c.Id);
}

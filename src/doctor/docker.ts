/** `memrl doctor`'s container checks: the engine, each image a registered benchmark may run in, a probe container. */
import type { DockerSettings } from '../config/types.js';
import { Box } from '../env/container/box.js';
import { openEngine, type Engine } from '../env/container/engine.js';
import { BUILD_HINT } from '../env/container/image.js';
import { settle, type DoctorCheck, type ProbeOutcome as Outcome } from './probes.js';

/** Starts and removes one tiny container: proves the runtime works, not just the API. */
async function probeContainer(engine: Engine, image: string, settings: DockerSettings): Promise<Outcome> {
  const box = await Box.start(engine, { image, role: 'probe', cmd: ['sleep', '30'], memoryBytes: settings.memoryMb * 1024 * 1024, pids: settings.pids });
  try {
    const r = await box.exec(['sh', '-c', 'echo ok'], { timeoutMs: 20_000 });
    return r.stdout.trim() === 'ok' ? { ok: true, detail: 'a container started and ran a command' } : { ok: false, detail: `probe command failed: ${r.stderr.trim()}` };
  } finally {
    await box.remove();
  }
}

/** An image to look for on the engine: which part needs it, and advice beyond building the images. */
export interface ImageCheck {
  part: string;
  image: string;
  instead?: string;
}

export async function dockerChecks(settings: DockerSettings, images: readonly ImageCheck[]): Promise<DoctorCheck[]> {
  let engine: Engine;
  try {
    const opened = await openEngine(settings.host);
    engine = opened.engine;
    const checks: DoctorCheck[] = [
      { backend: 'docker', part: 'engine', ok: true, detail: `${opened.info.name} ${opened.info.version} (API ${opened.info.apiVersion}) at ${opened.info.address}` },
    ];
    let present: string | undefined;
    for (const { part, image, instead } of images) {
      const r = await settle(async () => {
        try {
          const info = await engine.docker.getImage(image).inspect();
          present ??= image;
          return { ok: true, detail: `${image} present (${info.Id.replace(/^sha256:/, '').slice(0, 12)})` };
        } catch (err) {
          if ((err as { statusCode?: number }).statusCode === 404) {
            const pull = settings.pull === 'missing' ? 'will be pulled at first use if a registry is reachable; ' : '';
            return { ok: false, detail: `${image} not on the engine; ${pull}${BUILD_HINT}${instead ? `; ${instead}` : ''}` };
          }
          throw err;
        }
      });
      checks.push({ backend: 'docker', part, ...r });
    }
    if (present) {
      const probe = await settle(() => probeContainer(engine, present!, settings));
      checks.push({ backend: 'docker', part: 'container start', ...probe });
    }
    return checks;
  } catch (err) {
    return [{ backend: 'docker', part: 'engine', ok: false, detail: (err as Error).message }];
  }
}

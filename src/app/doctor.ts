/** `memrl doctor`'s checks: every registered benchmark's local checks and the queue's Redis, then the engine and every image they may use. */
import type { EvaluatorSettings } from '../config/types.js';
import type { DoctorCheck } from '../core/benchmark.js';
import type { ImageCheck } from '../doctor/docker.js';
import type { Registry } from './registry.js';

export async function doctorChecks(registry: Registry, evaluator: EvaluatorSettings, only?: 'local' | 'docker'): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  if (only !== 'docker') {
    for (const b of registry.benchmarks) if (b.doctor?.local) checks.push(...(await b.doctor.local(evaluator)));
    const { probeRedis } = await import('../doctor/probes.js');
    checks.push({ backend: 'local', part: 'queue (sweep, run --queue, worker)', ...probeRedis() });
  }
  if (only !== 'local') {
    const docker = evaluator.docker;
    const images: ImageCheck[] = registry.benchmarks.flatMap((b) => [
      ...(b.images ?? []).map((slot) => ({ part: `${slot.key.replace(/_/g, ' ')} image`, image: docker.images[slot.key] ?? slot.image, ...(slot.instead ? { instead: slot.instead } : {}) })),
      ...(b.doctor?.extraImages?.(docker) ?? []),
    ]);
    const { dockerChecks } = await import('../doctor/docker.js');
    checks.push(...(await dockerChecks(docker, images)));
  }
  return checks;
}

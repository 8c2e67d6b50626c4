/**
 * What the BigCodeBench container tests need: the engine with memrl/bcb:latest
 * (scripts/build-images.sh bcb). Outside CI a missing piece skips them (reason
 * printed); under CI=true they run and fail, like the bwrap and MariaDB suites.
 */
import type { Engine } from '../../src/env/container/engine.js';
import { LABEL_PID, LABEL_ROLE } from '../../src/env/container/labels.js';
import { requireEngine, type EngineRequirement } from '../helpers/require-engine.js';

export const BCB_IMAGE = 'memrl/bcb:latest';

export function requireBcbImage(): Promise<EngineRequirement> {
  return requireEngine([BCB_IMAGE]);
}

/** BCB containers of this test process still on the engine (running or not). */
export async function ourBcbContainers(engine: Engine, extraLabels: string[] = []): Promise<string[]> {
  const list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL_PID}=${process.pid}`, `${LABEL_ROLE}=bcb`, ...extraLabels] } });
  return list.map((c) => c.Id);
}

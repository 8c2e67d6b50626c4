/**
 * The memory writer's fidelity switches: where writing a memory can differ from the
 * reference's MemoryService (memrl/service/). Declared here, beside the writer, and
 * registered with the config so profiles and overrides reach them.
 */
import type { FidelitySwitch } from '../util/fidelity.js';

export const WRITER_SWITCHES: readonly FidelitySwitch[] = [];

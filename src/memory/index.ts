/**
 * The memory engine's public surface. Typical use by the runner, per batch:
 *   sel = engine.retrieve(embed(key), rng)            // every task, before any commit
 *   ... run the episode with sel.selected injected ...
 *   content = await writer.write({task, trajectory, success, tags})
 *   engine.commit(results in commit order, now)       // the batch barrier
 */
export { MemoryEngine, type DirectInsert, type EngineOptions } from './engine.js';
export { defaultMemoryParams, checkMemoryParams } from './params.js';
export { MemoryWriter, MEMORY_TEMPLATES, type MemoryWriterOptions, type WriteInput, type WrittenMemory } from './writer.js';
export { replayOps } from './replay.js';
export type { MemoryStats } from './stats.js';
export * from './types.js';

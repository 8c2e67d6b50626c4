/**
 * Intra-dataset task similarity, as the paper relates it to MemRL's gain: the mean
 * cosine over all pairs of distinct tasks of their key embeddings, with the run's own
 * embedder. With unit vectors, Σ_{i≠j} v_i·v_j = |Σ v_i|² − Σ |v_i|², so it costs one
 * pass over the vectors, not n² dot products.
 */
import type { Embedder } from '../embed/types.js';

export async function meanPairwiseCosine(embedder: Embedder, keys: readonly string[]): Promise<number | null> {
  if (keys.length < 2) return null;
  const vectors = await embedder.embed([...keys]);
  return meanPairwiseCosineOf(vectors);
}

export function meanPairwiseCosineOf(vectors: readonly ArrayLike<number>[]): number | null {
  const n = vectors.length;
  if (n < 2) return null;
  const dim = vectors[0]!.length;
  const sum = new Float64Array(dim);
  let self = 0;
  for (const v of vectors) {
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += v[d]! * v[d]!;
    norm = Math.sqrt(norm);
    if (norm === 0) continue;
    for (let d = 0; d < dim; d++) sum[d]! += v[d]! / norm;
    self += 1;
  }
  let total = 0;
  for (let d = 0; d < dim; d++) total += sum[d]! * sum[d]!;
  return (total - self) / (n * (n - 1));
}

/** One key per task: the memories' source keys, first seen wins. */
export function taskKeys(memories: readonly { key: string; taskId?: string }[]): string[] {
  const seen = new Map<string, string>();
  for (const m of memories) {
    const task = m.taskId ?? m.key;
    if (!seen.has(task)) seen.set(task, m.key);
  }
  return [...seen.values()];
}

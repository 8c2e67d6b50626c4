/**
 * The on-disk side of embedding caching (the in-memory CachedEmbedder sits in
 * front of it). Key = provider, base_url, api_version, model, dimensions, chunk
 * length and the exact text; the vector is stored as base64 float32. Only texts
 * not found are sent, in one inner call; concurrent requests for the same text
 * share it. In replay mode (`layers.offline`) a missing text is an error.
 */
import { hashKey, lookup, normalizeBaseUrl, ReplayMissError, store, type CacheLayers } from '../llm/cache.js';
import type { Embedder } from './types.js';

export interface EmbedCacheIdentity {
  provider: string;
  baseUrl: string;
  apiVersion?: string;
  model: string;
  dimensions?: number;
  maxTextLen?: number;
}

export function embeddingCacheKey(id: EmbedCacheIdentity, text: string) {
  return {
    v: 1,
    op: 'embedding',
    provider: id.provider,
    baseUrl: normalizeBaseUrl(id.baseUrl),
    apiVersion: id.apiVersion ?? null,
    model: id.model,
    dimensions: id.dimensions ?? null,
    maxTextLen: id.maxTextLen ?? 0,
    text,
  };
}

function toBase64(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

function fromBase64(s: string): Float32Array {
  const b = Buffer.from(s, 'base64');
  // Copy into a fresh, aligned buffer.
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
}

export class DiskCachedEmbedder implements Embedder {
  readonly label: string;
  hits = 0;
  misses = 0;
  private readonly inflight = new Map<string, Promise<Float32Array>>();

  constructor(
    private readonly inner: Embedder,
    private readonly id: EmbedCacheIdentity,
    private readonly layers: CacheLayers,
    /** Called once per embed() call answered entirely from the cache (the ledger counts it as a cached call). */
    private readonly onCachedCall?: () => void,
  ) {
    this.label = inner.label;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = texts.map((t) => hashKey(embeddingCacheKey(this.id, t)));
    const found = new Map<string, Promise<Float32Array>>();
    const missing: { k: string; text: string }[] = [];
    texts.forEach((text, i) => {
      const k = keys[i] as string;
      if (found.has(k)) return;
      const e = lookup(this.layers, k);
      if (e?.vector) {
        this.hits++;
        found.set(k, Promise.resolve(fromBase64(e.vector)));
        return;
      }
      const shared = this.inflight.get(k);
      if (shared) {
        found.set(k, shared);
        return;
      }
      if (this.layers.offline) {
        throw new ReplayMissError(
          `replay: no recorded embedding (${this.label}) for text "${text.slice(0, 60)}" in ${this.layers.offline.from} (no live call was made)`,
          this.label,
        );
      }
      missing.push({ k, text });
    });
    if (missing.length === 0 && texts.length > 0) this.onCachedCall?.();
    if (missing.length > 0) {
      this.misses += missing.length;
      const pending = this.inner.embed(
        missing.map((m) => m.text),
        signal,
      );
      missing.forEach(({ k, text }, i) => {
        const p = pending.then((vs) => {
          const v = vs[i];
          if (!v) throw new Error(`${this.label}: embedder returned ${vs.length} vectors for ${missing.length} texts`);
          store(this.layers, { k, kind: 'embedding', vector: toBase64(v), tags: { text: text.slice(0, 80) } });
          return v;
        });
        this.inflight.set(k, p);
        found.set(k, p);
        // Errors are not cached: the entry leaves the in-flight map either way.
        void p.then(
          () => this.inflight.delete(k),
          () => this.inflight.delete(k),
        );
      });
    }
    return Promise.all(keys.map((k) => found.get(k) as Promise<Float32Array>));
  }
}

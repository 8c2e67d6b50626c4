/**
 * Secrets out of anything printed or written (memrl config, run manifests, logs).
 * Placeholder keys such as sk-REPLACE_ME are kept: they are not secret and show
 * the user that no key was configured.
 */
import { isPlaceholderKey } from './credentials.js';
import { REDACTED, redactUrlCredentials } from '../llm/redact.js';
import type { ConfigTree } from './yaml-source.js';

export { REDACTED };

const SECRET_KEY = /^(api[_-]?key|secret|password|token|access[_-]?token|auth[_-]?token)$/i;
const URL_KEY = /^(base[_-]?url|url|endpoint)$/i;

/** A deep copy of `value` with secret values replaced by '<redacted>'. */
export function redactConfig<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((item) => walk(item));
  if (value !== null && typeof value === 'object') {
    const out: ConfigTree = {};
    for (const [k, child] of Object.entries(value)) out[k] = walk(child, k);
    return out;
  }
  if (typeof value !== 'string' || key === undefined) return value;
  if (SECRET_KEY.test(key)) return isPlaceholderKey(value) || value === 'none' ? value : REDACTED;
  if (URL_KEY.test(key)) return redactUrlCredentials(value);
  return value;
}

export { redactUrlCredentials };

/**
 * The tree as shown and recorded: endpoint settings of an offline provider (the sim
 * model, the local embedder) are left out, so no made-up key or URL is displayed.
 */
export function withoutUnusedEndpoints<T>(tree: T): T {
  const out = structuredClone(tree) as Record<string, ConfigTree | undefined>;
  const drop = (section: ConfigTree | undefined) => {
    if (!section) return;
    for (const k of ['api_key', 'base_url', 'api_version']) delete section[k];
  };
  if (out.llm?.provider === 'sim') drop(out.llm);
  if (out.embedding?.provider === 'local') drop(out.embedding);
  return out as T;
}

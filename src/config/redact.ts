/**
 * Secrets out of anything printed or written (memrl config, run manifests, logs): the
 * rules live in util/redact.ts; here only what a config adds. Placeholder keys such as
 * sk-REPLACE_ME are kept: they are not secret and show the user that no key was configured.
 */
import { isPlaceholderKey } from './credentials.js';
import { REDACTED, redactTree, redactUrlCredentials } from '../util/redact.js';
import type { ConfigTree } from './yaml-source.js';

export { REDACTED, redactUrlCredentials };

/** A deep copy of `value` with secret values (api_key, tokens, passwords, URL credentials) replaced by '<redacted>'. */
export function redactConfig<T>(value: T): T {
  return redactTree(value, (v) => isPlaceholderKey(v) || v === 'none');
}

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

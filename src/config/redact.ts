/**
 * Secrets out of anything printed or written (memrl config, run manifests, logs).
 * Placeholder keys such as sk-REPLACE_ME are kept: they are not secret and show
 * the user that no key was configured.
 */
import { isPlaceholderKey } from './credentials.js';
import { REDACTED, redactUrlCredentials } from '../llm/redact.js';

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
    const out: Record<string, unknown> = {};
    for (const [k, child] of Object.entries(value)) out[k] = walk(child, k);
    return out;
  }
  if (typeof value !== 'string' || key === undefined) return value;
  if (SECRET_KEY.test(key)) return isPlaceholderKey(value) || value === 'none' ? value : REDACTED;
  if (URL_KEY.test(key)) return redactUrlCredentials(value);
  return value;
}

export { redactUrlCredentials };

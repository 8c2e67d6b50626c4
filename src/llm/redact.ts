/**
 * Keeping API keys out of messages. Providers echo parts of a bad key back
 * ("Incorrect API key provided: sk-abc***wxyz"), so we scrub both the exact key
 * we hold, masked echoes of it, and anything shaped like a key or a bearer token.
 */

const KEY_SHAPES: RegExp[] = [
  // OpenAI-style keys, including masked echoes such as sk-proj-****abcd.
  /\bsk-[A-Za-z0-9_\-*.]{3,}/g,
  /\bBearer\s+[A-Za-z0-9_\-.=:*/+]+/gi,
  /(api[-_]?key["']?\s*[:=]\s*["']?)[^\s"',}]+/gi,
];

/** A masked token: characters, then *** / ... / …, then characters ("azJU...wX7h"). */
const MASKED = /([A-Za-z0-9_-]*)(?:\*{2,}|\.{3}|…)([A-Za-z0-9_-]*)/g;

/** Fewer kept characters than this cannot identify a key (and would hit ordinary words). */
const MIN_KEPT = 3;

export function redactSecrets(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short "keys" (e.g. 'x' for a local server) would shred ordinary words.
    if (!secret || secret.length < 6) continue;
    out = out.split(secret).join('***');
    // The key's own beginning or end around a mask: a provider's echo of it, whatever its shape.
    out = out.replace(MASKED, (m, head: string, tail: string) =>
      (head.length >= MIN_KEPT && secret.startsWith(head)) || (tail.length >= MIN_KEPT && secret.endsWith(tail)) ? '***' : m,
    );
  }
  out = out.replace(KEY_SHAPES[0]!, 'sk-***');
  out = out.replace(KEY_SHAPES[1]!, 'Bearer ***');
  out = out.replace(KEY_SHAPES[2]!, '$1***');
  return out;
}

export const REDACTED = '<redacted>';

/** https://user:pass@host/... → https://<redacted>@host/... (also ?api-key=...). */
export function redactUrlCredentials(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  if (parsed.username || parsed.password) {
    parsed.username = REDACTED;
    parsed.password = '';
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (/key|token|secret|sig/i.test(name)) {
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  return changed ? parsed.toString() : url;
}

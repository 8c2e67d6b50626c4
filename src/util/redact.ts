/**
 * The one place that decides what a secret looks like and replaces it, for everything
 * memrl prints or writes: run.json (its config and the recorded command line), the run
 * log, provider error messages, the HTML report and the viewer's manifest.
 *
 * Secrets recognised:
 * - the exact keys memrl holds, and masked echoes of them (`sk-proj-****wxyz`);
 * - anything key- or token-shaped (`sk-…`, `hf_…`, `ghp_…`, `Bearer …`, `Basic …`,
 *   `api_key=…`, `Authorization: …`, `x-api-key: …`);
 * - credentials inside URLs (`http://user:PASSWORD@host`, `redis://:PASSWORD@host`)
 *   and key-like query parameters (`?api-key=…`, `&token=…`, `&sig=…`);
 * - on a command line, the value of a secret flag (`--api-key`, `--token`,
 *   `--password`, …) and `NAME=value` words whose NAME is secret-like (`HF_TOKEN=…`).
 */

export const REDACTED = '<redacted>';

/** Config keys and flag names whose values are secrets (`api_key`, `hf_token`, `--password`, `authorization`). */
const SECRET_NAME = /(^|[-_.])(api[-_]?key|apikey|secret|password|passwd|token|access[-_]?token|auth[-_]?token|authorization|credentials?|private[-_]?key)$/i;

/** Names that end like a secret but hold none: the name of the variable that holds the key. */
const NOT_SECRET_NAME = /(^|[-_])(env|file|path|var|limit|budget)$/i;

export function isSecretName(name: string): boolean {
  const bare = name.replace(/^-+/, '');
  return SECRET_NAME.test(bare) && !NOT_SECRET_NAME.test(bare);
}

const KEY_SHAPES: readonly [RegExp, string][] = [
  // OpenAI-style keys, including masked echoes such as sk-proj-****abcd.
  [/\bsk-[A-Za-z0-9_\-*.]{3,}/g, 'sk-***'],
  // Hugging Face, GitHub, Slack, Anthropic-style tokens.
  [/\b(hf|ghp|gho|ghs|github_pat|xox[abpr])_[A-Za-z0-9_]{8,}/g, '$1_***'],
  [/\bBearer\s+[A-Za-z0-9_\-.=:*/+~]+/gi, 'Bearer ***'],
  [/\bBasic\s+[A-Za-z0-9+/=]{8,}/g, 'Basic ***'],
  // Header lines and JSON/YAML/query pairs: authorization: x, "x-api-key": "y", api_key=z, token: t.
  [
    /((?<![A-Za-z0-9])(?:authorization|proxy-authorization|x-api-key|api[-_]?key|access[-_]?token|auth[-_]?token|hf[-_]?token|token|password|secret)["']?\s*[:=]\s*["']?)(?!\*\*\*|<redacted>|Bearer \*\*\*|Basic \*\*\*)[^\s"',}&]+/gi,
    '$1***',
  ],
];

/** scheme://user:password@ and scheme://token@ inside any text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#@"'<>]+)@/gi;
/** Key-like query parameters in URLs inside text: ?api-key=…, &sig=…. */
const URL_SECRET_PARAM = /([?&](?:[a-z0-9_-]*(?:key|token|secret|sig|signature|password)[a-z0-9_-]*)=)[^&\s"'#<>]+/gi;

/** A masked token: characters, then *** / ... / …, then characters ("azJU...wX7h"). */
const MASKED = /([A-Za-z0-9_-]*)(?:\*{2,}|\.{3}|…)([A-Za-z0-9_-]*)/g;

/** Fewer kept characters than this cannot identify a key (and would hit ordinary words). */
const MIN_KEPT = 3;

/**
 * `text` with every secret replaced: the exact `secrets` given (and masked echoes of
 * them), then anything key-, token- or credential-shaped.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined | null)[] = []): string {
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
  out = redactUrlsInText(out);
  for (const [shape, by] of KEY_SHAPES) out = out.replace(shape, by);
  return out;
}

/** https://user:pass@host/... → https://<redacted>@host/... (also ?api-key=...); a string that is no URL is scrubbed as text. */
export function redactUrlCredentials(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactUrlsInText(url);
  }
  let changed = false;
  if (parsed.username || parsed.password) {
    parsed.username = REDACTED;
    parsed.password = '';
    changed = true;
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (/key|token|secret|sig|password/i.test(name)) {
      parsed.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  // URL keeps `<` and `>` percent-encoded in the user part: show the marker as written.
  return changed ? parsed.toString().replace(/%3Credacted%3E/gi, REDACTED) : url;
}

/** Credentials of every URL inside a text (scheme://user:pass@, ?token=…), nothing else. */
export function redactUrlsInText(text: string): string {
  if (!text.includes('://') && !/[?&]/.test(text)) return text;
  return text.replace(URL_USERINFO, (m, scheme: string, info: string) => (info === REDACTED ? m : `${scheme}${REDACTED}@`)).replace(URL_SECRET_PARAM, `$1${REDACTED}`);
}

/**
 * A command line as it may be recorded: values of secret flags (`--api-key sk-…`,
 * `--token=…`), `NAME=value` words with a secret NAME (`HF_TOKEN=…`), and URL
 * credentials and key shapes in any word, replaced.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 2 && isSecretName(arg.slice(0, eq))) {
      out.push(`${arg.slice(0, eq)}=${REDACTED}`);
      continue;
    }
    if (/^--?[A-Za-z]/.test(arg) && eq < 0 && isSecretName(arg) && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) {
      out.push(arg, REDACTED);
      i++;
      continue;
    }
    if (!arg.startsWith('-') && eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(arg.slice(0, eq)) && isSecretName(arg.slice(0, eq))) {
      out.push(`${arg.slice(0, eq)}=${REDACTED}`);
      continue;
    }
    out.push(redactSecrets(arg));
  }
  return out;
}

/**
 * A deep copy of a JSON-like value with secrets replaced: values under secret-named
 * keys (kept when `keep(value)` says they are no secret, e.g. a placeholder key),
 * command lines (`command`: redactArgv), and URL credentials in every other string.
 * Other text is left as it is: a recorded config must read back as the same settings.
 */
export function redactTree<T>(value: T, keep: (value: string) => boolean = () => false): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (Array.isArray(v)) return key !== undefined && /^(command|argv|args)$/.test(key) && v.every((x) => typeof x === 'string') ? redactArgv(v as string[]) : v.map((item) => walk(item));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, child]) => [k, walk(child, k)]));
    }
    if (typeof v !== 'string') return v;
    if (key !== undefined && isSecretName(key)) return keep(v) || v === REDACTED ? v : REDACTED;
    return /^[a-z][a-z0-9+.-]*:\/\/\S*$/i.test(v) ? redactUrlCredentials(v) : redactUrlsInText(v);
  };
  return walk(value) as T;
}

/**
 * What of a run profile this machine cannot match, found only at run time: a model the
 * endpoint does not serve. The endpoint's model list (GET <base>/models) costs no
 * tokens; an endpoint that does not list its models (a 404, an error, no answer within
 * 10 s) says nothing either way, so nothing is claimed.
 */
import type { ResolvedConfig } from '../config/types.js';
import { profileNotes } from '../config/resolve.js';
import { redactUrlCredentials } from '../llm/redact.js';

const TIMEOUT_MS = 10_000;

interface Served {
  key: string;
  model: string;
  baseUrl: string;
  apiKey: string | null;
}

/** The model ids an endpoint lists, or null when it does not say. */
async function listedModels(baseUrl: string, apiKey: string | null): Promise<Set<string> | null> {
  try {
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body.data)) return null;
    return new Set(body.data.flatMap((m) => (typeof m?.id === 'string' ? [m.id] : [])));
  } catch {
    return null;
  }
}

/** One line per model of the run that its endpoint lists and does not serve. */
export async function unservedModels(models: readonly Served[]): Promise<string[]> {
  const lists = new Map<string, Promise<Set<string> | null>>();
  const out: string[] = [];
  for (const m of models) {
    const key = `${m.baseUrl}\u0000${m.apiKey ?? ''}`;
    if (!lists.has(key)) lists.set(key, listedModels(m.baseUrl, m.apiKey));
    const listed = await lists.get(key)!;
    if (listed && !listed.has(m.model)) out.push(`${m.key} ${m.model}: ${redactUrlCredentials(m.baseUrl)} does not serve it (its GET /models does not list it); point its base_url at an endpoint that does`);
  }
  return out;
}

/**
 * Adds what only the run can see to the profile's unmatched list (and its banner
 * notes): the models its endpoints do not serve. Nothing without a profile, and
 * nothing for the simulator or Azure (whose deployments are not its model list).
 */
export async function checkProfileModels(cfg: ResolvedConfig): Promise<void> {
  if (!cfg.profile) return;
  const models: Served[] = [];
  if (cfg.llm.provider === 'openai' && !cfg.llm.apiVersion) models.push({ key: 'llm.model', model: cfg.llm.model, baseUrl: cfg.llm.baseUrl, apiKey: cfg.llm.apiKey });
  if (cfg.judge?.provider === 'openai' && !cfg.judge.apiVersion) models.push({ key: 'the judge model', model: cfg.judge.model, baseUrl: cfg.judge.baseUrl, apiKey: cfg.judge.apiKey });
  if (cfg.embedding.provider === 'openai' && !cfg.embedding.apiVersion) models.push({ key: 'embedding.model', model: cfg.embedding.model, baseUrl: cfg.embedding.baseUrl, apiKey: cfg.embedding.apiKey });
  const lines = await unservedModels(models);
  if (lines.length === 0) return;
  const before = profileNotes(cfg.profile);
  cfg.profile.unmatched.push(...lines);
  // The banner's profile lines are said again with the new ones.
  const kept = cfg.notes.filter((n) => !before.includes(n));
  cfg.notes.splice(0, cfg.notes.length, ...kept, ...profileNotes(cfg.profile));
}

/**
 * `memrl run <benchmark> --dry-run`: the run's config resolved as the run would resolve it
 * (a missing API key is only a note: nothing will be called), its estimate, as text.
 */
import type { FlagValues } from '../../config/flags.js';
import type { Env } from '../../config/interpolate.js';
import { loadConfig } from '../config.js';
import { findBenchmark, type Registry } from '../registry.js';
import { estimateRun } from './estimate-run.js';
import { renderRunEstimate } from './render.js';

export async function dryRunText(benchmark: string, flags: FlagValues, registry: Registry, opts: { cwd?: string; env?: Env } = {}): Promise<string> {
  const bench = findBenchmark(registry, benchmark);
  const config = typeof flags.config === 'string' ? flags.config : undefined;
  const cfg = loadConfig(config, flags, bench.name, { registry, inspect: true, ...(opts.cwd ? { cwd: opts.cwd } : {}), ...(opts.env ? { env: opts.env } : {}) });
  const profile = cfg.profile ? `  profile ${cfg.profile.name}${cfg.profile.unmatched.length ? `; not matched: ${cfg.profile.unmatched.join('; ')}` : ', all of it matched'}\n` : '';
  return renderRunEstimate(await estimateRun(cfg, bench)) + profile;
}

/**
 * Facts for run.json beside what the runner records: versions, the command, the config,
 * the profile, the prompts, display names. Redacted whole: the command line
 * (--base-url http://user:pass@…, --queue redis://:pass@…) as well as the config.
 */
import { resolve } from 'node:path';
import { redactConfig, withoutUnusedEndpoints } from '../../config/redact.js';
import type { RunComposition } from '../../core/run-files/index.js';
import { gitCommit, memrlVersion } from '../../util/version.js';
import type { ResolvedRun, RunOptions } from './types.js';

export function runComposition({ cwd, bench, cfg, method, pack, replayFrom }: ResolvedRun, options: Pick<RunOptions, 'command' | 'registry'>, logFile: string): RunComposition {
  return redactConfig({
    memrlVersion: memrlVersion(),
    gitCommit: gitCommit(),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    command: ['memrl', ...(options.command ?? [])],
    // Relative paths in the config are relative to it (a resume from elsewhere resolves them here).
    cwd,
    plugins: [...new Set([...options.registry.origins.values()].map((p) => resolve(cwd, p)))],
    configSource: cfg.source,
    methodReason: cfg.methodReason,
    config: redactConfig(withoutUnusedEndpoints(cfg.config)),
    memoryParams: cfg.memory,
    buildStrategy: cfg.buildStrategy,
    [bench.name]: bench.manifest ? bench.manifest(cfg.bench) : redactConfig(cfg.bench),
    fidelity: { profile: cfg.fidelity.profile, switches: cfg.fidelity.settings },
    // The run profile and what of it this run could not match (the runner adds blocked tasks).
    ...(cfg.profile ? { profile: { name: cfg.profile.name, unmatched: [...cfg.profile.unmatched] } } : {}),
    prompts: pack ?? { name: 'memrl', hash: null, source: "memrl's own templates", overrides: [] },
    benchmarkName: bench.displayName,
    methodName: method.displayName,
    logFile,
    cache: { recording: 'responses.jsonl', shared: cfg.run.cacheDir, replayOf: replayFrom },
  });
}

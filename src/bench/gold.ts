/**
 * What the benchmarks' `memrl check-gold` commands share: the evaluator flags, the
 * evaluator settings they resolve to (a --config's memrl.evaluator, then the flags), the
 * id-list flag and the JSON report file.
 */
import { writeFileSync } from 'node:fs';
import { FlagValueError, type FlagDef } from '../config/flags.js';
import type { DockerSettings } from '../config/types.js';
import type { CommandIo, GoldCheckContext } from '../core/benchmark.js';
import { UserError, errorMessage } from '../util/errors.js';

/** The flags every gold check takes, after its own. */
export function goldFlags(help: { evaluator: string; image: string; config: string }): (FlagDef & { default?: unknown })[] {
  return [
    { flags: '--evaluator <backend>', description: help.evaluator, choices: ['local', 'docker'], path: null },
    {
      flags: '--docker-host <url>',
      description: 'container engine for --evaluator docker (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)',
      path: null,
    },
    { flags: '--image <name>', description: help.image, path: null },
    { flags: '--config <file>', description: help.config, path: null },
    { flags: '--out <file>', description: 'also write the full report as JSON', path: null },
    { flags: '-q, --quiet', description: 'no per-task progress lines', path: null },
  ];
}

export interface GoldEvaluatorFlags {
  evaluator?: 'local' | 'docker';
  dockerHost?: string;
  image?: string;
  config?: string;
}

/** memrl.evaluator of --config (or the defaults) with the flags on top; --image replaces the image `slot`. */
export function goldEvaluator(flags: GoldEvaluatorFlags, ctx: GoldCheckContext, slot: string): { backend: 'local' | 'docker'; docker: DockerSettings; forkServer: boolean } {
  // A gold check calls no model, so a config without its API key at hand is fine (inspect mode).
  const ev = ctx.loadConfig(flags.config, { ...(flags.evaluator ? { evaluator: flags.evaluator } : {}), ...(flags.dockerHost ? { dockerHost: flags.dockerHost } : {}) }).evaluator;
  return { backend: ev.backend, docker: flags.image ? { ...ev.docker, images: { ...ev.docker.images, [slot]: flags.image } } : ev.docker, forkServer: ev.forkServer };
}

/** A comma-separated id list flag. */
export function idList(value: string): string[] {
  const ids = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (ids.length === 0) throw new FlagValueError('expected a comma-separated list of task ids');
  return ids;
}

/** The JSON report of a gold check, for --out. */
export function writeGoldReport(path: string, report: unknown, io: CommandIo): void {
  try {
    writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
  } catch (err) {
    throw new UserError(`cannot write report ${path}: ${errorMessage(err)}`);
  }
  io.out(`report written to ${path}\n`);
}

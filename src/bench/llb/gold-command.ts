/** `memrl check-gold llb`: every gold SQL (db) or ground-truth script (os) and its check, locally or in containers. */
import { positiveInt, type FlagDef, type FlagValues } from '../../config/flags.js';
import type { DockerSettings } from '../../config/types.js';
import type { GoldCheck, GoldCheckContext } from '../../core/benchmark.js';
import { idList, writeGoldReport } from '../bcb/gold-command.js';


interface LlbGoldFlags {
  task: 'db' | 'os';
  file?: string;
  limit?: number;
  ids?: string[];
  concurrency: number;
  evaluator?: 'local' | 'docker';
  dockerHost?: string;
  image?: string;
  config?: string;
  out?: string;
  quiet?: boolean;
}

const FLAGS: readonly (FlagDef & { default?: unknown })[] = [
  { flags: '--task <task>', description: 'task family', choices: ['db', 'os'], default: 'db', path: null },
  { flags: '--file <path>', description: 'LLB data file (default: the shared *_runtime_learning_data.json, 500 tasks)', path: null },
  { flags: '--limit <n>', description: 'only the first N tasks (string order of sample index)', parse: positiveInt, path: null },
  { flags: '--ids <ids>', description: 'only these sample indices, comma-separated (e.g. 3,db/17)', parse: idList, path: null },
  { flags: '--concurrency <n>', description: 'tasks running at once', parse: positiveInt, default: 8, path: null },
  {
    flags: '--evaluator <backend>',
    description: 'local = host MariaDB / bubblewrap rootfs; docker = containers (default: memrl.evaluator.backend of --config, else local)',
    choices: ['local', 'docker'],
    path: null,
  },
  {
    flags: '--docker-host <url>',
    description: 'container engine for --evaluator docker (default: memrl.evaluator.docker.host, else DOCKER_HOST, else the usual sockets)',
    path: null,
  },
  {
    flags: '--image <name>',
    description: 'image for --evaluator docker (default: memrl.evaluator.docker.images.llb_db / llb_os, i.e. mysql:8 / memrl/llb-os:latest)',
    path: null,
  },
  { flags: '--config <file>', description: 'YAML config whose memrl.evaluator section to use', path: null },
  { flags: '--out <file>', description: 'also write the full report as JSON', path: null },
  { flags: '-q, --quiet', description: 'no per-task progress lines', path: null },
];

/** memrl.evaluator of --config (or the defaults), with the flags on top. */
function evaluatorOf(flags: LlbGoldFlags, ctx: GoldCheckContext): { backend: 'local' | 'docker'; docker: DockerSettings } {
  const ev = ctx.loadConfig(flags.config, { ...(flags.evaluator ? { evaluator: flags.evaluator } : {}), ...(flags.dockerHost ? { dockerHost: flags.dockerHost } : {}) }).evaluator;
  const docker = flags.image ? { ...ev.docker, images: { ...ev.docker.images, [flags.task === 'db' ? 'llb_db' : 'llb_os']: flags.image } } : ev.docker;
  return { backend: ev.backend, docker };
}

export const llbGoldCheck: GoldCheck = {
  description:
    'LifelongAgentBench: run every gold SQL (db) or ground-truth script (os) and its check, locally or in containers; print the pass rate, failing ids and vacuous checks',
  flags: FLAGS,
  async run(values: FlagValues, ctx: GoldCheckContext): Promise<void> {
    const flags = values as unknown as LlbGoldFlags;
    // Loaded when the command runs: the checker pulls in the SQL and shell evaluators.
    const { checkGoldLlb, formatLlbGoldSummary } = await import('./check-gold.js');
    const report = await checkGoldLlb({
      task: flags.task,
      file: flags.file,
      limit: flags.limit,
      ids: flags.ids,
      concurrency: flags.concurrency,
      evaluator: evaluatorOf(flags, ctx),
      onResult: flags.quiet ? undefined : (r, done, total) => ctx.io.err(`[${done}/${total}] ${r.id} ${r.pass ? 'pass' : 'FAIL'}${r.vacuous ? ' (vacuous)' : ''}\n`),
    });
    ctx.io.out(formatLlbGoldSummary(report));
    if (flags.out) writeGoldReport(flags.out, report, ctx.io);
  },
};

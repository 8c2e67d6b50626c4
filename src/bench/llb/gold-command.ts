/** `memrl check-gold llb`: every gold SQL (db) or ground-truth script (os) and its check, locally or in containers. */
import { positiveInt, type FlagDef, type FlagValues } from '../../config/flags.js';
import type { GoldCheck, GoldCheckContext } from '../../core/benchmark.js';
import { goldEvaluator, goldFlags, idList, writeGoldReport, type GoldEvaluatorFlags } from '../gold.js';

interface LlbGoldFlags extends GoldEvaluatorFlags {
  task: 'db' | 'os';
  file?: string;
  limit?: number;
  ids?: string[];
  concurrency: number;
  out?: string;
  quiet?: boolean;
}

const FLAGS: readonly (FlagDef & { default?: unknown })[] = [
  { flags: '--task <task>', description: 'task family', choices: ['db', 'os'], default: 'db', path: null },
  { flags: '--file <path>', description: 'LLB data file (default: the pulled release\'s *_runtime_learning_data.json, 500 tasks)', path: null },
  { flags: '--limit <n>', description: 'only the first N tasks (string order of sample index)', parse: positiveInt, path: null },
  { flags: '--ids <ids>', description: 'only these sample indices, comma-separated (e.g. 3,db/17)', parse: idList, path: null },
  { flags: '--concurrency <n>', description: 'tasks running at once', parse: positiveInt, default: 8, path: null },
  ...goldFlags({
    evaluator: 'local = host MariaDB / bubblewrap rootfs; docker = containers (default: memrl.evaluator.backend of --config, else local)',
    image: 'image for --evaluator docker (default: memrl.evaluator.docker.images.llb_db / llb_os, i.e. mysql:8 / memrl/llb-os:latest)',
    config: 'YAML config whose memrl.evaluator section to use',
  }),
];

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
      evaluator: goldEvaluator(flags, ctx, flags.task === 'db' ? 'llb_db' : 'llb_os'),
      onResult: flags.quiet ? undefined : (r, done, total) => ctx.io.err(`[${done}/${total}] ${r.id} ${r.pass ? 'pass' : 'FAIL'}${r.vacuous ? ' (vacuous)' : ''}\n`),
    });
    ctx.io.out(formatLlbGoldSummary(report));
    if (flags.out) writeGoldReport(flags.out, report, ctx.io);
  },
};

/** summary.json as the runner composes it at the run's end (complete, interrupted or failed). */
import type { Logger } from 'pino';
import type { Benchmark } from '../core/benchmark.js';
import type { ChatModel } from '../llm/types.js';
import { canonicalJson } from '../llm/cache.js';
import type { LedgerSnapshot } from '../llm/ledger.js';
import type { RunSummary } from '../metrics/summary.js';
import type { EvaluatorFacts, Headline, RunEndSummary } from '../core/run-files/index.js';
import type { MethodStats } from '../core/method.js';

export interface SummaryFacts {
  status: 'complete' | 'interrupted' | 'failed';
  failure: string | undefined;
  /** How the evaluator ended, when otherwise than run.json says it started. */
  evaluatorAtEnd: EvaluatorFacts | undefined;
  epochsCompleted: number;
  epochsPlanned: number;
  model: Pick<ChatModel, 'label' | 'simulated'>;
  method: string;
  usage: LedgerSnapshot;
  memory: MethodStats;
  benchmark: string;
  metrics: RunSummary;
}

export function runSummary(f: SummaryFacts): RunEndSummary {
  return {
    status: f.status,
    ...(f.failure ? { failure: f.failure } : {}),
    ...(f.evaluatorAtEnd ? { evaluatorAtEnd: f.evaluatorAtEnd } : {}),
    epochsCompleted: f.epochsCompleted,
    epochsPlanned: f.epochsPlanned,
    model: f.model.label,
    simulated: f.model.simulated,
    method: f.method,
    usage: f.usage,
    memory: f.memory,
    benchmark: f.benchmark,
    train: headline(f.metrics.train),
    valid: f.metrics.valid ? headline(f.metrics.valid) : undefined,
    metrics: f.metrics,
  };
}

/**
 * run.json describes the evaluator as it started. A part that gave out later (a fork
 * server that could not start, so tests ran in fresh sandboxes) is recorded in the
 * summary: the evaluator as it ended, when that differs; else undefined.
 */
export async function evaluatorChange(bench: Pick<Benchmark, 'describeEvaluator'>, atStart: EvaluatorFacts, log: Logger): Promise<EvaluatorFacts | undefined> {
  const atEnd = await bench.describeEvaluator().catch(() => undefined);
  if (atEnd === undefined || canonicalJson(atEnd) === canonicalJson(atStart)) return undefined;
  log.warn({ event: 'evaluator_changed', evaluator: atEnd }, 'the evaluator ended otherwise than it started: summary.json evaluatorAtEnd');
  return atEnd;
}

function headline(m: RunSummary['train']): Headline {
  return { tasks: m.tasks, last: m.last, lastExcludingErrors: m.lastExcludingErrors, csr: m.csrFinal, forgettingFlip: m.forgettingFlip, forgettingMax: m.forgettingMax, bwt: m.bwt };
}

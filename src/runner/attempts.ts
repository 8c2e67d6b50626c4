/**
 * Attempts: each episode played exactly once across kills, and each barrier committed
 * once, beside the journal (journal.ts) that makes it so.
 *
 * An attempt is one task's episode in one phase and epoch, with one retrieval. If the
 * journal holds that very attempt (same task, same retrieval) finished, it is taken as
 * recorded, its usage added to the run's ledger; otherwise it is played and journaled
 * with the usage of its own calls. An episode cut short by Ctrl-C or a fatal provider
 * error is not journaled: it runs again on resume. A barrier replayed on resume keeps
 * the commit time of its first attempt, so memory timestamps match too.
 */
import type { Logger } from 'pino';
import type { Experience, Retrieval } from '../core/method.js';
import type { OutcomePhase, OutcomeRow } from '../core/outcome.js';
import { LEDGER_ROLES, UsageLedger, type LedgerSnapshot } from '../llm/ledger.js';
import type { ChatModel } from '../llm/types.js';
import { crashPoint } from '../util/crash-point.js';
import type { Journal } from './journal.js';
import type { MeteredCall } from './remote-episodes.js';

/** One task's episode in one phase and epoch. */
export interface AttemptKey {
  phase: OutcomePhase;
  epoch: number;
  /** The task's index in its phase's list (the journal's key). */
  index: number;
  taskId: string;
}

/** Whose calls these are: what a model call's tags say about the attempt it serves. */
export type UsageKey = Pick<AttemptKey, 'epoch' | 'taskId'> & { phase: string };

/** A finished episode: its row, and what the method learned from it (committed at the barrier). */
export interface EpisodeRecord {
  row: OutcomeRow;
  experience?: Experience;
}

/** Per-attempt keys for the model calls' tags (task id, not index: a call knows only its tags). */
export function attemptKey(phase: string, epoch: number, taskId: string): string {
  return `${phase}|${epoch}|${taskId}`;
}

/**
 * Each running attempt's own model calls (agent, judge, memory writer), so its journal
 * entry carries its usage: a resume adds it to the ledger instead of calling again.
 */
export class AttemptUsage {
  private readonly running = new Map<string, UsageLedger>();

  constructor(readonly ledger: UsageLedger) {}

  /** `m`, each reply's usage also counted for the attempt its tags name (if one is running). */
  tap(m: ChatModel): ChatModel {
    return {
      label: m.label,
      simulated: m.simulated,
      chat: async (req, signal) => {
        const res = await m.chat(req, signal);
        this.running.get(attemptKey(req.tags.phase, req.tags.epoch, req.tags.taskId))?.record(req.tags, res.usage, { cached: res.cached === true });
        return res;
      },
    };
  }

  /** Calls a worker made for an attempt, counted here as if made here: for the attempt and the run. */
  countRemote(key: UsageKey, calls: readonly MeteredCall[]): void {
    const usage = this.running.get(attemptKey(key.phase, key.epoch, key.taskId));
    for (const call of calls) {
      const opts = { cached: call.cached === true, ...(call.model ? { model: call.model } : {}), ...(call.systemFingerprint ? { systemFingerprint: call.systemFingerprint } : {}) };
      usage?.record({ role: call.role }, call.usage, opts);
      this.ledger.record({ role: call.role }, call.usage, opts);
    }
  }

  start(key: AttemptKey): void {
    this.running.set(attemptKey(key.phase, key.epoch, key.taskId), new UsageLedger());
  }

  /** The attempt's usage so far. */
  of(key: AttemptKey): LedgerSnapshot {
    return (this.running.get(attemptKey(key.phase, key.epoch, key.taskId)) as UsageLedger).snapshot();
  }

  end(key: AttemptKey): void {
    this.running.delete(attemptKey(key.phase, key.epoch, key.taskId));
  }

  /** A journaled attempt taken over: its calls count as made in this process. */
  addRecorded(usage: LedgerSnapshot): void {
    this.ledger.restore(addUsage(this.ledger.snapshot(), usage));
  }
}

export interface AttemptHooks {
  /** An episode finished, or was taken from the journal. */
  onEpisode(row: OutcomeRow): void;
  /** A journaled attempt was taken over (its row already holds the method's calls this retrieval repeated). */
  onTakenOver(key: AttemptKey): void;
  /** False while the run is stopping (Ctrl-C, a fatal refusal): what finishes then is not journaled. */
  journaling(): boolean;
  log: Logger;
}

export class Attempts {
  constructor(
    private readonly journal: Journal,
    private readonly usage: AttemptUsage,
    private readonly hooks: AttemptHooks,
  ) {}

  /** One episode, exactly once across kills: taken from the journal when this very attempt already finished, else `play`ed and journaled. */
  async play(key: AttemptKey, retrieval: Retrieval, play: () => Promise<EpisodeRecord>): Promise<EpisodeRecord> {
    const saved = this.journal.episode(key.phase, key.epoch, key.index);
    // An episode that ended in error is run again: the fault (an endpoint, an evaluator) may be fixed now.
    if (saved && saved.taskId === key.taskId && saved.row.status !== 'error' && sameRetrieval(retrieval, saved.row)) {
      this.hooks.onTakenOver(key);
      this.usage.addRecorded(saved.usage);
      this.hooks.onEpisode(saved.row);
      return { row: saved.row, ...(saved.result ? { experience: saved.result } : {}) };
    }
    if (saved) this.hooks.log.warn({ event: 'journal_mismatch', task: key.taskId, epoch: key.epoch, phase: key.phase }, 'journaled episode retrieved differently now (changed settings?): running it again');
    this.usage.start(key);
    try {
      const rec = await play();
      this.hooks.onEpisode(rec.row);
      if (this.hooks.journaling()) {
        const { phase, epoch, index: taskIndex, taskId } = key;
        this.journal.record({ kind: 'episode', phase, epoch, taskIndex, taskId, row: rec.row, ...(rec.experience ? { result: rec.experience } : {}), usage: this.usage.of(key) });
        crashPoint('journaled');
      }
      return rec;
    } finally {
      this.usage.end(key);
    }
  }

  /** Every episode journaled so far is on disk: nothing is committed before. */
  synced(): Promise<void> {
    return this.journal.synced();
  }

  /** The commit time of a batch's barrier: the first attempt's on a replay, else `now`. */
  barrierTime(epoch: number, batch: number, now: () => number): { at: number; replayed: boolean } {
    const recorded = this.journal.barrierAt(epoch, batch);
    return recorded === undefined ? { at: now(), replayed: false } : { at: recorded, replayed: true };
  }

  /** The barrier committed (its rows handed on): on disk by the next batch's commit (its flushes cover this line) or the epoch's checkpoint. */
  barrierDone(epoch: number, batch: number, time: { at: number; replayed: boolean }): void {
    crashPoint('barrier');
    if (!time.replayed) this.journal.record({ kind: 'barrier', epoch, batch, at: time.at });
  }

  /**
   * The run stops in this batch or pass; its episodes in `replay` are dropped from the
   * journal, so a resume plays them again (their calls may hold an endpoint's failures).
   */
  abandon(phase: OutcomePhase, epoch: number, replay: readonly number[]): void {
    if (replay.length) this.journal.forget(phase, epoch, replay);
    this.journal.close();
  }

  /** The epoch is checkpointed: everything journaled is in the checkpoint now. */
  checkpointed(): void {
    this.journal.reset();
  }

  /** The run ends: an interrupted run keeps its journal for --resume, a finished one needs none. */
  end(interrupted: boolean): void {
    if (interrupted) this.journal.close();
    else this.journal.remove();
  }
}

const RETRIEVAL_KEYS = ['retrievedIds', 'retrievedQ', 'retrievedSim', 'explored', 'pool'] as const;

/** The same attempt: the row fields that come from the retrieval, and its record, are equal. */
function sameRetrieval(retrieval: Retrieval, row: OutcomeRow): boolean {
  const pick = (x: Partial<Record<(typeof RETRIEVAL_KEYS)[number], unknown>>) => JSON.stringify(RETRIEVAL_KEYS.map((k) => x[k]));
  return pick(retrieval.fields) === pick(row) && JSON.stringify(retrieval.record) === JSON.stringify(row.extra?.retrieval);
}

export function addUsage(a: LedgerSnapshot, b: LedgerSnapshot): LedgerSnapshot {
  const byRole = { ...a.byRole };
  for (const role of LEDGER_ROLES) {
    const x = a.byRole[role];
    const y = b.byRole[role];
    if (!y) continue;
    byRole[role] = {
      calls: x.calls + y.calls,
      cachedCalls: x.cachedCalls + y.cachedCalls,
      promptTokens: x.promptTokens + y.promptTokens,
      completionTokens: x.completionTokens + y.completionTokens,
      totalTokens: x.totalTokens + y.totalTokens,
      cachedTokens: x.cachedTokens + y.cachedTokens,
    };
  }
  return { ...a, byRole };
}

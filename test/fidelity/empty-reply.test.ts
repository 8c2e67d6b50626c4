/**
 * An empty model reply (content null, as a reasoning model that spent max_tokens sends
 * it), from a loopback OpenAI server through the real client. The reference's provider
 * returns `content or ""` and each runner scores that text (switches bcb.empty-reply,
 * hle.empty-reply, llb.empty-reply); memrl's fix makes it an error row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { BcbTask } from '../../src/bench/bcb/dataset.js';
import { runBcbEpisode } from '../../src/bench/bcb/episode.js';
import { localBcbEvaluator } from '../../src/bench/bcb/evaluator.js';
import { BCB_SWITCHES, EMPTY_REPLY_SWITCH as BCB_EMPTY } from '../../src/bench/bcb/switches.js';
import type { HleTask } from '../../src/bench/hle/dataset.js';
import { runHleEpisode } from '../../src/bench/hle/episode.js';
import { EMPTY_REPLY_SWITCH as HLE_EMPTY, HLE_SWITCHES } from '../../src/bench/hle/switches.js';
import type { DbTask } from '../../src/bench/llb/dataset.js';
import { runDbEpisode } from '../../src/bench/llb/episode.js';
import { LLB_FIDELITY_SWITCHES, LLB_SWITCHES } from '../../src/bench/llb/switches.js';
import type { EpisodeContext } from '../../src/core/index.js';
import type { TaskDatabase } from '../../src/env/sql/contract.js';
import type { SqlServer } from '../../src/env/sql/sql-server.js';
import { OpenAIChatModel } from '../../src/llm/openai.js';
import type { ChatModel, ChatRequest } from '../../src/llm/types.js';
import { settleEpisode } from '../../src/runner/episode-outcome.js';
import { makeFidelity, REFERENCE_FIDELITY, type FidelitySwitch } from '../../src/util/fidelity.js';
import { chatCompletion, startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';
import { requireBcbPython } from '../env/require-sandbox.js';

const sandbox = await requireBcbPython();
let srv: OpenAITestServer;
beforeAll(async () => {
  srv = await startOpenAIServer({ chat: () => ({ body: chatCompletion(null, { finishReason: 'length', usage: { prompt_tokens: 30, completion_tokens: 2048, total_tokens: 2078 } }) }) });
});
afterAll(async () => {
  await srv.close();
});

const emptyModel = (): ChatModel => new OpenAIChatModel({ apiKey: 'sk-empty-test', baseURL: srv.url, model: 'm', maxRetries: 0 });
const fixed = (switches: readonly FidelitySwitch[], id: string) => makeFidelity('reference', switches, { [id]: 'memrl' });

function ctx(model: ChatModel, judge?: ChatModel): EpisodeContext {
  return { model, ...(judge ? { judge } : {}), memories: [], epoch: 1, phase: 'train', signal: new AbortController().signal, log: pino({ level: 'silent' }) };
}

describe.skipIf(sandbox.skip)('bcb.empty-reply', () => {
  const task: BcbTask = {
    id: 'toy/one',
    key: 'Return 1.',
    task_id: 'toy/one',
    complete_prompt: '',
    instruct_prompt: 'Return 1.',
    canonical_solution: '',
    code_prompt: 'def task_func():\n',
    test: 'import unittest\nclass TestCases(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(task_func(), 1)\n',
    entry_point: 'task_func',
    libs: [],
    doc_struct: '{}',
  };
  const opts = { temperature: 0, eval: { mode: 'reference' as const, timeoutSec: 30 } };

  it('reference: the empty code is tested and fails, with its tokens counted', async () => {
    const o = await settleEpisode(runBcbEpisode(task, ctx(emptyModel()), { ...opts, fidelity: REFERENCE_FIDELITY }, localBcbEvaluator()));
    expect(o).toMatchObject({ status: 'fail', success: false, trajectory: '', answer: '' });
    expect(o.usage.completionTokens).toBe(2048);
  }, 60_000);

  it('memrl: an error row', async () => {
    const o = await settleEpisode(runBcbEpisode(task, ctx(emptyModel()), { ...opts, fidelity: fixed(BCB_SWITCHES, BCB_EMPTY) }, localBcbEvaluator()));
    expect(o.status).toBe('error');
    expect(o.error).toMatch(/no content.*finish_reason=length/);
  });
});

describe('hle.empty-reply', () => {
  const task: HleTask = { id: 'q', key: 'How many?', question: 'How many?', answer: '42', answerType: 'exactMatch', category: 'Math' };
  const judge = () => {
    const seen: ChatRequest[] = [];
    const model: ChatModel = {
      label: 'judge',
      simulated: false,
      async chat(req) {
        seen.push(req);
        return { text: 'extracted_final_answer: None\ncorrect: no', usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 }, model: 'judge', latencyMs: 0 };
      },
    };
    return { model, seen };
  };

  it('reference: the empty answer is judged (a wrong answer, stored as the attempt)', async () => {
    const j = judge();
    const o = await settleEpisode(runHleEpisode(task, ctx(emptyModel(), j.model), { temperature: 0, judgeTemperature: 0, fidelity: REFERENCE_FIDELITY }));
    expect(o).toMatchObject({ status: 'fail', success: false });
    expect(j.seen).toHaveLength(1);
    expect(o.trajectory).toContain('How many?');
  });

  it('memrl: an error row, and the judge is not asked', async () => {
    const j = judge();
    const o = await settleEpisode(runHleEpisode(task, ctx(emptyModel(), j.model), { temperature: 0, judgeTemperature: 0, fidelity: fixed(HLE_SWITCHES, HLE_EMPTY) }));
    expect(o.status).toBe('error');
    expect(j.seen).toHaveLength(0);
  });
});

describe('llb.empty-reply', () => {
  const HASH = '0123456789abcdef0123456789abcdef';
  const task: DbTask = {
    kind: 'db',
    id: 'db/t',
    key: 'k',
    index: 't',
    instruction: 'Set the note of order 1 to b.',
    table: { name: 'orders', columns: [{ name: 'id', type: 'INT' }, { name: 'note', type: 'TEXT' }], rows: [[1, 'b']] },
    answer: { md5: HASH, direct: null, sql: "UPDATE orders SET note = 'b' WHERE id = 1" },
    skills: [],
  };
  /** A task database whose table state already hashes to the answer: only whether it is scored matters. */
  function server(): { server: SqlServer; hashed: string[] } {
    const hashed: string[] = [];
    const db: TaskDatabase = {
      database: 'memrl_llb_test',
      user: { user: 'u' },
      dialect: 'mysql',
      exec: async () => ({ ok: true, rows: [], columns: [], timedOut: false }),
      admin: async (sql) => (hashed.push(sql), { ok: true, rows: [[HASH]], columns: ['hash'], timedOut: false }),
      dispose: async () => undefined,
    };
    return { server: { createTaskDatabase: async () => db } as unknown as SqlServer, hashed };
  }

  it('reference: a reply in no valid format; the md5 task is still scored by its table state', async () => {
    const s = server();
    const o = await settleEpisode(runDbEpisode(task, ctx(emptyModel()), { maxSteps: 5, temperature: 0, fidelity: REFERENCE_FIDELITY }, s.server));
    expect(o).toMatchObject({ status: 'pass', success: true, steps: 1 });
    expect(o.extra).toMatchObject({ invalidFormat: true });
    expect(s.hashed).toHaveLength(1);
  });

  it('memrl: an error row, not scored', async () => {
    const s = server();
    const o = await settleEpisode(runDbEpisode(task, ctx(emptyModel()), { maxSteps: 5, temperature: 0, fidelity: fixed(LLB_FIDELITY_SWITCHES, LLB_SWITCHES.emptyReply) }, s.server));
    expect(o.status).toBe('error');
    expect(s.hashed).toEqual([]);
  });
});

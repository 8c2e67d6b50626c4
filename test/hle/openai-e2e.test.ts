/**
 * `memrl run hle` against an OpenAI-compatible server on 127.0.0.1: solver and judge
 * are separate models on the same endpoint (the judge chosen with --judge_model).
 * Build first: npx tsc -p tsconfig.json.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOutcomeRows } from '../../src/metrics/outcome-store.js';
import { startOpenAIServer, type OpenAITestServer, type ReceivedRequest } from '../helpers/openai-server.js';
import { runMemrl } from '../helpers/cli.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-hle-openai-'));
const KEY = 'sk-hle-loopback-4411';
let server: OpenAITestServer;

const text = (req: ReceivedRequest) => JSON.stringify(req.body);
const isSolver = (req: ReceivedRequest) => text(req).includes('expert-level exam question');
const isJudge = (req: ReceivedRequest) => text(req).includes('<reference_answer>');

beforeAll(async () => {
  server = await startOpenAIServer({
    chat: (req) => {
      if (isSolver(req)) return 'Explanation: thought about it.\nAnswer: B\nConfidence: 55%';
      if (isJudge(req)) {
        const t = text(req);
        // JSON verdicts, a key: value verdict, and one garbage reply that must become an error row.
        if (t.includes('benzene')) return 'I cannot grade this.';
        if (t.includes('kinetic energy')) return 'extracted_final_answer: B\nreasoning: not 9\ncorrect: no\nconfidence: 55';
        const yes = /<reference_answer>\\n(B)\\n/.test(t);
        return JSON.stringify({ extracted_final_answer: 'B', reasoning: 'compared', correct: yes ? 'yes' : 'no', confidence: 55 });
      }
      return 'Reflection: check the reference answer format before answering.';
    },
  });
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return runMemrl(args, { cwd: work, env });
}

describe('memrl run hle against an OpenAI-compatible endpoint', () => {
  it('calls the solver, then the judge model at temperature 0; with hle.judge-verdict=memrl in JSON mode, judge garbage a counted error; sends images', async () => {
    writeFileSync(
      join(work, 'hle.yaml'),
      [
        'llm:',
        '  provider: openai',
        '  api_key: ${TEST_KEY}',
        `  base_url: ${server.url}`,
        '  model: solver-1',
        '  temperature: 0.6',
        'embedding:',
        '  provider: local',
        'experiment:',
        '  train_valid_split: 1.0',
        'memrl:',
        '  concurrency: 2',
        '',
      ].join('\n'),
    );
    const r = await runCli(
      ['run', 'hle', '--config', 'hle.yaml', '--train', resolve('test/fixtures/hle/hle_snappy.parquet'), '--categories', 'Physics,Chemistry', '--epochs', '2', '--judge_model', 'judge-9', '--fidelity-switch', 'hle.judge-verdict=memrl', '--output-dir', 'out'],
      { TEST_KEY: KEY },
    );
    expect(r.stderr).toMatch(/done: 2\/2/);
    expect(r.code).toBe(0);

    const chats = server.chatRequests();
    const solver = chats.filter(isSolver);
    const judge = chats.filter(isJudge);
    expect(solver).toHaveLength(12);
    expect(judge).toHaveLength(12);
    expect(chats.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    for (const q of solver) expect(q.body).toMatchObject({ model: 'solver-1', temperature: 0.6 });
    for (const q of judge) expect(q.body).toMatchObject({ model: 'judge-9', temperature: 0, response_format: { type: 'json_object' } });
    // q-phys-2 carries a PNG: sent as an image_url part of the user message.
    const withImage = solver.filter((q) => text(q).includes('"image_url"'));
    expect(withImage.length).toBeGreaterThanOrEqual(2);
    expect(text(withImage[0]!)).toContain('data:image/png;base64,iVBORw0KGgo');

    const dir = join(work, 'out', 'hle', readdirSync(join(work, 'out', 'hle'))[0] as string);
    const rows = readOutcomeRows(join(dir, 'outcomes.jsonl')).rows;
    const byTask = (id: string) => rows.filter((x) => x.taskId === id);
    for (const row of byTask('q-chem-3')) {
      expect(row.status).toBe('error');
      expect(row.error).toMatch(/judge reply has no yes\/no verdict: I cannot grade this/);
      expect(row.extra).toMatchObject({ judgeRaw: 'I cannot grade this.' });
      expect(row.extra?.imageWarning).toMatch(/q-chem-3/);
    }
    expect(byTask('q-phys-1')[0]).toMatchObject({ status: 'fail', extra: { verdict: 'no', judgeFormat: 'lines' } });
    expect(byTask('q-phys-2')[0]).toMatchObject({ status: 'pass', extra: { verdict: 'yes', extractedAnswer: 'B', judgeFormat: 'json' } });
    const metrics = JSON.parse(readFileSync(join(dir, 'metrics.json'), 'utf8'));
    expect(JSON.stringify(metrics)).toMatch(/"errors":1/);

    const summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ model: 'openai:solver-1', simulated: false });
    expect(summary.usage.byRole.judge.calls).toBe(12);
    for (const f of readdirSync(dir)) if (f !== 'tb') expect(readFileSync(join(dir, f), 'utf8').includes(KEY), f).toBe(false);
  }, 120_000);
});

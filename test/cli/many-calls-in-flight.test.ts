/**
 * A run with many model calls in flight against a real HTTP endpoint: every call, rate
 * gate wait and sandbox follows the run's one stop signal. That once added a listener
 * per call, and Node printed "MaxListenersExceededWarning: Possible EventTarget memory
 * leak detected" into the run's output as soon as more than 10 were in flight.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runMemrl } from '../helpers/cli.js';
import { startOpenAIServer, type OpenAITestServer } from '../helpers/openai-server.js';

const work = mkdtempSync(join(tmpdir(), 'memrl-in-flight-'));
const PLUGIN = resolve('examples/plugins/arithmetic/index.ts');
let server: OpenAITestServer;
let inFlight = 0;
let mostInFlight = 0;

beforeAll(async () => {
  assertBuilt();
  server = await startOpenAIServer({
    chat: async () => {
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, 100));
      inFlight--;
      return 'ANSWER: 4';
    },
  });
  writeFileSync(
    join(work, 'live.yaml'),
    `llm: {provider: openai, base_url: "${server.url}", model: loop-model, api_key: sk-loop, temperature: 0}\nembedding: {provider: local}\nmemrl:\n  arithmetic: {train: 48, valid: 0}\n`,
  );
});
afterAll(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a run with many model calls in flight', () => {
  it('prints no listener-leak warning, with or without a rate limit', async () => {
    for (const extra of [[], ['--rate-limit', '2000']]) {
      mostInFlight = 0;
      const r = await runMemrl(
        ['run', 'arithmetic', '--plugin', PLUGIN, '--config', 'live.yaml', '--epochs', '1', '--batch-size', '48', '--concurrency', '24', '--no-run-validation', '--output-dir', `out${extra.length}`, ...extra],
        { cwd: work },
      );
      expect(r.stderr).toMatch(/done: 1\/1/);
      expect(r.code).toBe(0);
      // The calls really overlapped, past Node's default of 10 listeners.
      expect(mostInFlight).toBeGreaterThan(16);
      expect(r.stderr).not.toMatch(/MaxListenersExceeded|memory leak/);
    }
  }, 120_000);
});

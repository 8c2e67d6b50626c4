/**
 * BigCodeBench's and HLE's fidelity targets over the vectors recorded from the
 * reference (../shared/fidelity): every vector agrees under the reference profile;
 * under `fixed`, every difference is one of these benchmarks' switches at work.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFidelity } from '../../src/app/fidelity.js';
import { builtinRegistry } from '../../src/app/registry.js';
import { BCB_SWITCHES } from '../../src/bench/bcb/switches.js';
import { HLE_SWITCHES } from '../../src/bench/hle/switches.js';
import { packageRoot } from '../../src/util/paths.js';

const VECTORS = resolve(packageRoot(), '..', 'shared', 'fidelity');
const FILES = ['bcb_extract_code', 'memctx_bcb', 'hle_judge', 'hle_judge_prompt', 'memctx_hle'];
const OURS = new Set([...BCB_SWITCHES, ...HLE_SWITCHES].map((s) => s.id));
const BUG_SWITCHES = [...BCB_SWITCHES, ...HLE_SWITCHES].filter((s) => s.class === 'bug').map((s) => s.id);

const report = async (file: string, options: Parameters<typeof checkFidelity>[2]) => {
  const reports = await checkFidelity(join(VECTORS, `${file}.jsonl`), builtinRegistry(), options);
  expect(reports).toHaveLength(1);
  return reports[0]!;
};

describe('BigCodeBench and HLE fidelity vectors', () => {
  it('the shared vectors are there', () => {
    for (const f of FILES) expect(existsSync(join(VECTORS, `${f}.jsonl`)), `${VECTORS}/${f}.jsonl`).toBe(true);
  });

  describe.each(FILES)('%s', (file) => {
    it('reference: every vector agrees', async () => {
      const r = await report(file, { profile: 'reference' });
      expect(r.total).toBeGreaterThan(0);
      expect(r.mismatches.map((m) => ({ line: m.line, expected: m.expected, got: m.got }))).toEqual([]);
      expect(r.agree).toBe(r.total);
    }, 60_000);

    it("fixed: every difference is credited to one of these benchmarks' switches", async () => {
      const r = await report(file, { profile: 'fixed' });
      for (const m of r.mismatches) {
        expect(m.explainedBy, `line ${m.line}`).not.toEqual([]);
        for (const id of m.explainedBy) expect(OURS.has(id), id).toBe(true);
      }
    }, 60_000);
  });

  it('fixed: the bug switches change what they claim to (extraction, the judge verdict and its request)', async () => {
    const credited = new Set<string>();
    for (const f of FILES) for (const m of (await report(f, { profile: 'fixed' })).mismatches) for (const id of m.explainedBy) credited.add(id);
    // bcb_extract_code, hle_judge and hle_judge_prompt show them; the category default acts on whole runs and the
    // attempt-note cut on the reflection baseline's note (test/hle/reflection-note.test.ts), the time limit on test
    // runs (test/bcb-eval/time-limit.test.ts), empty replies on episodes (test/fidelity/empty-reply.test.ts):
    // no vector records those.
    const notInVectors = ['hle.category-defaults', 'hle.attempt-solution-cut', 'bcb.time-limit', 'bcb.empty-reply', 'hle.empty-reply'];
    expect([...credited].sort()).toEqual(BUG_SWITCHES.filter((id) => !notInVectors.includes(id)).sort());
  }, 120_000);

  it('bcb.sanitize=memrl: the sanitizer changes code with top-level statements, and only those differences appear', async () => {
    const r = await report('bcb_extract_code', { profile: 'reference', overrides: { 'bcb.sanitize': 'memrl' } });
    expect(r.mismatches.length).toBeGreaterThan(0);
    for (const m of r.mismatches) expect(m.explainedBy).toEqual(['bcb.sanitize']);
  }, 60_000);
});

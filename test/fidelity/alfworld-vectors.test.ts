/**
 * ALFWorld's recorded reference vectors (../shared/fidelity, never copied into the repo)
 * replayed through memrl: all agree in reference mode; under `fixed` every difference is
 * credited to a declared switch; with a prompt pack imported from a MemRL checkout (when
 * one is at hand) the memory contexts agree to the character.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFidelity } from '../../src/app/fidelity.js';
import { importReferencePrompts } from '../../src/app/prompts/import.js';
import { builtinRegistry } from '../../src/app/registry.js';
import { ALFWORLD_FIDELITY_TARGETS } from '../../src/bench/alfworld/fidelity.js';
import { REFERENCE_FIDELITY } from '../../src/util/fidelity.js';
import { packageRoot } from '../../src/util/paths.js';
import { IN_CI } from '../helpers/require-engine.js';
import { tempDir } from '../helpers/temp.js';

const VECTORS = resolve(packageRoot(), '..', 'shared', 'fidelity');
const FILES = ['alfworld_action.jsonl', 'memctx_alfworld_record.jsonl', 'memctx_alfworld_message.jsonl'];
const missing = !existsSync(join(VECTORS, FILES[0]!));
if (missing && !IN_CI) process.stderr.write(`[skip] ALFWorld fidelity vectors: no ${VECTORS}\n`);

/** A MemRL checkout to import the reference's prompts from (the user's own; memrl ships none). */
const CHECKOUT = process.env.MEMRL_REFERENCE_CHECKOUT ?? '/tmp/memrl-ref';
const haveCheckout = existsSync(join(CHECKOUT, 'memrl', 'agent', 'memp_agent.py'));

describe.skipIf(missing && !IN_CI)('ALFWorld fidelity vectors', () => {
  const registry = builtinRegistry();

  it('every vector agrees in reference mode', async () => {
    for (const f of FILES) {
      const [r] = await checkFidelity(join(VECTORS, f), registry, { profile: 'reference' });
      expect(r!.mismatches.map((m) => m.line), f).toEqual([]);
      expect(r!.agree).toBe(r!.total);
      expect(r!.total).toBeGreaterThan(5);
    }
  });

  it('under fixed, the action differences are exactly the two ALFWorld switches; the memory contexts do not move', async () => {
    const reports = await checkFidelity(join(VECTORS, FILES[0]!), registry, { profile: 'fixed' });
    const credited = new Set(reports[0]!.mismatches.flatMap((m) => m.explainedBy));
    expect(reports[0]!.mismatches.every((m) => m.explainedBy.length > 0)).toBe(true);
    expect([...credited].sort()).toEqual(['alfworld.action-parse', 'alfworld.llm-error']);
    for (const f of FILES.slice(1)) {
      const [r] = await checkFidelity(join(VECTORS, f), registry, { profile: 'fixed' });
      expect(r!.agree).toBe(r!.total);
    }
  });

  it('the structure comparison sees a wrong cut: a recorded record with a line dropped no longer matches', () => {
    const target = ALFWORLD_FIDELITY_TARGETS.find((t) => t.name === 'memctx_alfworld_record')!;
    const lines = readFileSync(join(VECTORS, FILES[1]!), 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { input: { raw_content: string }; output: { formatted?: string } });
    const v = lines.find((x) => (x.output.formatted ?? '').includes('\n> '))!;
    const ours = target.run(v.input, { fidelity: REFERENCE_FIDELITY });
    expect(target.structure!(ours, v.input)).toEqual(target.structure!(v.output, v.input));
    const cut = { ...v.output, formatted: v.output.formatted!.split('\n').slice(0, -1).join('\n') };
    expect(target.structure!(cut, v.input)).not.toEqual(target.structure!(v.output, v.input));
  });

  it.skipIf(!haveCheckout)('with the prompts imported from a MemRL checkout, the memory contexts agree exactly', async () => {
    const pack = join(tempDir('memrl-alf-pack-'), 'pack');
    importReferencePrompts(CHECKOUT, pack, registry);
    for (const f of FILES) {
      const [r] = await checkFidelity(join(VECTORS, f), registry, { profile: 'reference', prompts: pack });
      expect(r!.compare).toBe('exact');
      expect(r!.mismatches.map((m) => m.line), f).toEqual([]);
    }
  });
});

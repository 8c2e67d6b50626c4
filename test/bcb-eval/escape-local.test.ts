/**
 * The shared hostile-solution suite (escape-cases.ts) through the local bubblewrap
 * evaluator, exactly as model answers reach it.
 */
import { vi } from 'vitest';
import { evaluateBcb } from '../../src/bench/bcb/evaluate.js';
import { requireBcbPython } from '../sandbox/require-sandbox.js';
import { defineEscapeSuite } from './escape-cases.js';

const env = await requireBcbPython();
vi.setConfig({ testTimeout: 180_000 });

defineEscapeSuite('local bubblewrap', () => evaluateBcb, { skip: env.skip });

/**
 * What the evaluator said about itself (run.json `evaluator`, summary.json
 * `evaluatorAtEnd`): open-ended, each backend has its own facts (interpreter, limits,
 * images, versions); the few that readers use are typed. The type is declared where
 * the backends are (src/env/contract.ts) and checked equal to this schema.
 */
import { z } from 'zod';
import type { EvaluatorFacts } from '../../env/contract.js';
import type { Same } from './format.js';

export const EvaluatorFactsSchema = z
  .object({
    backend: z.string().optional(),
    mode: z.string().optional(),
    pythonVersion: z.string().nullable().optional(),
    blockedTasks: z.array(z.object({ taskId: z.string(), reason: z.string() }).strict()).optional(),
  })
  .catchall(z.unknown());

export type { EvaluatorFacts };

const check: Same<z.infer<typeof EvaluatorFactsSchema>, EvaluatorFacts> = true;
void check;

/**
 * What the evaluator said about itself (run.json `evaluator`, summary.json
 * `evaluatorAtEnd`): open-ended, each backend has its own facts (interpreter, limits,
 * images, versions); the few that readers use are typed. The type is declared where
 * the backends are (src/env/contract.ts) and checked equal to this schema.
 */
import { z } from 'zod';
import type { EvaluatorFacts } from '../../env/contract.js';
import { named } from '../../util/contract-schema.js';
import type { Same } from './format.js';

export const EvaluatorFactsSchema = named(
  'EvaluatorFacts',
  z
    .object({
      backend: z.string().optional().describe("Where episodes are scored (e.g. 'local-bwrap', 'docker'); `memrl compare` shows it."),
      mode: z.string().optional().describe('A scoring mode, if the evaluator has several.'),
      pythonVersion: z.string().nullable().optional().describe('The interpreter that ran the tests (null: it did not start).'),
      blockedTasks: z
        .array(z.object({ taskId: z.string(), reason: z.string() }).strict())
        .optional()
        .describe('Tasks that cannot pass here whatever the model writes, and why: the run says so as it starts.'),
    })
    .catchall(z.unknown())
    .describe("What the evaluator says about itself for run.json: these fields, and any other facts of its own (versions, limits, images), e.g. `{ kind: 'exact-match' }`."),
);

export type { EvaluatorFacts };

const check: Same<z.infer<typeof EvaluatorFactsSchema>, EvaluatorFacts> = true;
void check;

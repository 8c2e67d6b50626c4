/**
 * Where HLE's templates (prompts/) sit in the MemRL reference, for `memrl prompts
 * import`. Locations only, never the text. The memory pieces are string literals of
 * HLERunner._build_memory_context, counted as extract_strings.py counts them.
 */
import type { ReferencePrompt } from '../../util/fidelity.js';

const RUNNER = 'memrl/run/hle_runner.py';

export const HLE_REFERENCE_PROMPTS: readonly ReferencePrompt[] = [
  { slot: 'system-exact-match.md', from: [`${RUNNER}:HLERunner.__init__:self.EXACT_ANSWER_SYSTEM_PROMPT`] },
  { slot: 'system-multiple-choice.md', from: [`${RUNNER}:HLERunner.__init__:self.MULTIPLE_CHOICE_SYSTEM_PROMPT`] },
  {
    slot: 'judge.md',
    from: [`${RUNNER}:HLERunner.__init__:self.JUDGE_PROMPT`],
    format: true,
    fields: { question: 'question', response: 'response', correct_answer: 'correct_answer' },
  },
  // f"[Image IDs: {', '.join(img_ids)}]\n{content}"
  { slot: 'memory-images.md', from: [`${RUNNER}:HLERunner._build_memory_context@7`], fields: { "', '.join(img_ids)": 'imageIds', content: 'content' } },
  // What memory stores of an attempt (HLERunner._evaluate_row's "trajectory": f"QUESTION\n{q}\n\nSOLUTION\n{...}\n").
  { slot: 'trajectory.md', from: [`${RUNNER}:HLERunner._evaluate_row@38`], fields: { q: 'question', "(output or '').strip()": 'solution' } },
  // The two section headers ("=== ... ===\n").
  { slot: 'memory-successes.md', from: [`${RUNNER}:HLERunner._build_memory_context@8`] },
  { slot: 'memory-failures.md', from: [`${RUNNER}:HLERunner._build_memory_context@10`] },
  // The reflection baseline's note on a retried question (HLERunner._format_reflection_note): its strings in
  // source order are the two result words, the five note parts with the solution spliced in between, and the joiner.
  { slot: 'attempt-result-correct.md', from: [`${RUNNER}:HLERunner._format_reflection_note@1`] },
  { slot: 'attempt-result-incorrect.md', from: [`${RUNNER}:HLERunner._format_reflection_note@2`] },
  {
    slot: 'attempt-note.md',
    from: [
      `${RUNNER}:HLERunner._format_reflection_note@3`,
      `${RUNNER}:HLERunner._format_reflection_note@4`,
      `${RUNNER}:HLERunner._format_reflection_note@5`,
      `${RUNNER}:HLERunner._format_reflection_note@6`,
      '{{solution}}',
      `${RUNNER}:HLERunner._format_reflection_note@7`,
    ],
    join: '\n',
    fields: { status: 'result', question: 'question' },
  },
];

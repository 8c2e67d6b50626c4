/** HLE's fidelity switches (docs/fidelity.md, "HLE"). Plain data: index.ts declares them. */
import type { FidelitySwitch } from '../../util/fidelity.js';

export const JUDGE_VERDICT_SWITCH = 'hle.judge-verdict';
export const ROUND_ROBIN_SWITCH = 'hle.round-robin';
export const SELECTION_COUNTS_SWITCH = 'hle.selection-counts';
export const CATEGORY_DEFAULTS_SWITCH = 'hle.category-defaults';
export const ATTEMPT_SOLUTION_SWITCH = 'hle.attempt-solution-cut';
export const EMPTY_REPLY_SWITCH = 'hle.empty-reply';

/** run_hle.py's --categories default: the eight HLE categories, matched exactly. */
export const REFERENCE_DEFAULT_CATEGORIES: readonly string[] = [
  'Computer Science/AI',
  'Math',
  'Biology/Medicine',
  'Physics',
  'Chemistry',
  'Engineering',
  'Humanities/Social Science',
  'Other',
];

export const HLE_SWITCHES: readonly FidelitySwitch[] = [
  {
    id: JUDGE_VERDICT_SWITCH,
    class: 'bug',
    reference:
      'judge asked without JSON mode; verdict = "yes" anywhere in the JSON "correct" value (the span from the first { to the last }), else the first "correct: yes|no"; an unparseable reply or a failed judge call counts as "no"',
    memrl: 'judge asked in JSON mode; verdict = an exact yes/no (or true/false) in the JSON object or key: value lines; an unparseable reply or a failed judge call is an error row, not a wrong answer',
    source: 'memrl/run/hle_runner.py:HLERunner._hle_judge (flag in HLERunner._evaluate_row)',
  },
  {
    id: ROUND_ROBIN_SWITCH,
    class: 'choice',
    reference: 'train and validation sets are the categories one after another (in the order they first appear), so --num-train/--num-valid/--limit take the first categories',
    memrl: 'train and validation sets take one question of each category in turn (categories by name), so the caps take questions from every category',
    source: 'memrl/run/hle_runner.py:HLERunner._load',
  },
  {
    id: SELECTION_COUNTS_SWITCH,
    class: 'choice',
    reference:
      'counts are rounded down: int(n * category_ratio) per category (at least 1), then int(n * dataset_ratio) of the whole set (at least 1), then int(n * train_valid_split) of each category to train',
    memrl: 'counts are rounded to nearest, per category: round(n * category_ratio * dataset_ratio) (at least 1), then round(n * train_valid_split) to train',
    source: 'memrl/run/hle_runner.py:HLERunner._filter_by_category, _apply_dataset_ratio, _load',
  },
  {
    id: CATEGORY_DEFAULTS_SWITCH,
    class: 'bug',
    reference:
      "the YAML's experiment.hle_categories and hle_category_ratio are never read: the CLI defaults (the eight HLE categories, matched exactly; ratio 1.0) always win unless --categories / --category_ratio are given",
    memrl: 'experiment.hle_categories and experiment.hle_category_ratio apply when the command line does not set them; no filter and ratio 1 by default',
    source: 'run/run_hle.py:parse_args and main (HLESelection)',
  },
  {
    id: ATTEMPT_SOLUTION_SWITCH,
    class: 'bug',
    reference:
      'the reflection baseline\'s note shows the attempt after the first "SOLUTION" in "QUESTION\\n<question>\\n\\nSOLUTION\\n<answer>": a question that itself holds "SOLUTION" is cut inside the question',
    memrl: "the note shows the attempt's answer, whatever the question holds",
    source: 'memrl/run/hle_runner.py:HLERunner._extract_solution_only (from _format_reflection_note)',
  },
  {
    id: EMPTY_REPLY_SWITCH,
    class: 'bug',
    reference: "an empty solver reply (a reasoning model that spent max_tokens, a refusal) goes to the judge as the answer '' and is scored by its verdict",
    memrl: 'an empty solver reply is an error row (fault kind model): not judged, no memory, no Q update',
    source: 'memrl/providers/llm.py:OpenAILLM.generate (returns content or ""), then memrl/run/hle_runner.py:HLERunner._evaluate_row',
  },
];

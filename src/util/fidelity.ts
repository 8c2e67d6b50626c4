/**
 * Fidelity switches: every known way memrl's behaviour can differ from the reference
 * implementation (MemTensor/MemRL) is a named switch with two settings: `reference`
 * (bug for bug, what the reference runs) and `memrl` (the bug fixed, or memrl's own
 * choice). A profile sets all switches at once; single switches can be overridden in
 * the config. Benchmarks, methods and the memory writer declare the switches they
 * honour, so config validation, `memrl config --explain`, `memrl fidelity` and
 * docs/fidelity.md read one list. Plain data and no imports: every layer may use it.
 */

export type FidelityProfileName = 'reference' | 'fixed';
export const FIDELITY_PROFILES: readonly FidelityProfileName[] = ['reference', 'fixed'];

export type SwitchSetting = 'reference' | 'memrl';

/**
 * - `bug`: the reference's parsing, scoring or flow is wrong; `fixed` corrects it.
 * - `choice`: a legitimate alternative (memrl's earlier default, an option users asked
 *   for); both profiles keep the reference's, set the switch to get memrl's.
 */
export type SwitchClass = 'bug' | 'choice';

export interface FidelitySwitch {
  /** '<owner>.<what>', e.g. 'llb.os-eval-always'. Stable: configs and docs name it. */
  id: string;
  class: SwitchClass;
  /** What the reference does (one line). */
  reference: string;
  /** What memrl does when the switch is `memrl` (one line). */
  memrl: string;
  /** The reference file and function the behaviour comes from (path:function, from the MemRL repo root). */
  source: string;
}

/** The switch settings of one run: what benchmarks, methods and the writer consult. */
export interface Fidelity {
  readonly profile: FidelityProfileName;
  /** True when `id` is set to memrl's behaviour. Throws on an id no module declared (a typo in code). */
  memrl(id: string): boolean;
  /** Every declared switch and its setting, for run.json. */
  readonly settings: Readonly<Record<string, SwitchSetting>>;
}

/** What a switch is set to under a profile, before overrides. */
export function profileSetting(profile: FidelityProfileName, sw: FidelitySwitch): SwitchSetting {
  return profile === 'fixed' && sw.class === 'bug' ? 'memrl' : 'reference';
}

/** A Fidelity over declared switches, a profile and per-switch overrides (ids already validated). */
export function makeFidelity(
  profile: FidelityProfileName,
  switches: readonly FidelitySwitch[],
  overrides: Readonly<Record<string, SwitchSetting>> = {},
): Fidelity {
  const settings: Record<string, SwitchSetting> = {};
  for (const sw of switches) settings[sw.id] = overrides[sw.id] ?? profileSetting(profile, sw);
  return {
    profile,
    settings,
    memrl(id: string): boolean {
      const s = settings[id];
      if (s === undefined) throw new Error(`fidelity switch '${id}' is not declared by any benchmark or method`);
      return s === 'memrl';
    },
  };
}

/** Every switch at the reference's behaviour: what a caller that resolved no config (a test, a library user) gets. */
export const REFERENCE_FIDELITY: Fidelity = { profile: 'reference', settings: {}, memrl: () => false };

/**
 * Where one of memrl's prompt templates sits in the reference code: facts for
 * `memrl prompts import`, which reads the strings out of a MemRL checkout with
 * Python's ast module. memrl ships the locations, never the text.
 */
export interface ReferencePrompt {
  /** The template file it fills, inside its namespace (e.g. 'system.md'). */
  slot: string;
  /**
   * The strings, joined by `join`: each `path.py:Name` where Name is a module
   * constant (`PROMPT`), a class attribute (`Class.PROMPT`), an assignment inside a
   * function (`Class.method:self.PROMPT`, `func:prompt`), or the n-th string literal
   * of a function body counted from 1 (`Class.method@2`). An entry that is just a
   * memrl placeholder (`{{solution}}`) is put in as it is: for a value the reference
   * splices in from a variable between its strings.
   */
  from: readonly string[];
  join?: string;
  /**
   * Placeholders: the reference's field (a `.format` name or an f-string expression,
   * as written) → memrl's template variable. A field not listed fails the import.
   */
  fields?: Readonly<Record<string, string>>;
  /** The string is a `.format` template: parse `{name}` fields and `{{`/`}}` escapes. */
  format?: boolean;
}

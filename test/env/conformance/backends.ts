/**
 * What the conformance suites share: every backend the env registry has for a kind,
 * the settings these tests open it with, and whether it works here. Outside CI a
 * backend that cannot work here is skipped (the reason printed); under CI=true it
 * runs and fails, so a CI machine missing a part cannot pass by skipping. A backend
 * registered without settings here fails: a new backend is tested like the others.
 */
import { describe, expect, it } from 'vitest';
import type { EnvBackendName } from '../../../src/env/contract.js';
import { envBackends, openEnv, type EnvKind, type EnvKinds } from '../../../src/env/registry.js';

export const IN_CI = /^(1|true)$/i.test(process.env.CI ?? '');

export interface BackendUnderTest<K extends EnvKind> {
  kind: K;
  backend: EnvBackendName;
  /** Opened and self-checked (undefined when it could not be). */
  opened?: EnvKinds[K]['opened'];
  /** Why it does not work here ('' when it does). */
  reason: string;
  /** Pass to describe.skipIf(): true only when it does not work AND not in CI. */
  skip: boolean;
}

/**
 * Opens every registered backend of `kind` with the settings of `settingsFor` and runs
 * its self-check. `keepOpen` false closes it again (suites that open their own).
 */
export async function backendsUnderTest<K extends EnvKind>(
  kind: K,
  settingsFor: Partial<Record<EnvBackendName, EnvKinds[K]['settings']>>,
  keepOpen = true,
): Promise<BackendUnderTest<K>[]> {
  const out: BackendUnderTest<K>[] = [];
  for (const backend of envBackends(kind)) {
    const settings = settingsFor[backend];
    let opened: EnvKinds[K]['opened'] | undefined;
    let reason = '';
    if (!settings) reason = `the ${kind} conformance test has no settings for the ${backend} backend; add them`;
    else {
      try {
        opened = await openEnv(kind, backend, settings);
        const check = await opened.check();
        if (!check.ok) reason = check.reason;
      } catch (err) {
        reason = (err as Error).message;
      }
    }
    if (opened && (reason || !keepOpen)) {
      await opened.close().catch(() => undefined);
      opened = undefined;
    }
    // A missing settings entry is this test's bug: never skipped.
    const skip = reason !== '' && !IN_CI && settings !== undefined;
    if (reason && skip) process.stderr.write(`[skip] ${kind} conformance, ${backend} backend: ${reason}\n`);
    out.push({ kind, backend, ...(opened ? { opened } : {}), reason, skip });
  }
  return out;
}

/** The first test of every backend's suite: it works here (under CI a missing part fails here). */
export function expectAvailable(b: BackendUnderTest<EnvKind>): void {
  describe.skipIf(b.skip)(`${b.kind} backend ${b.backend}`, () => {
    it('is available here', () => {
      expect(b.reason).toBe('');
    });
  });
}

/** Hostile commands in the local os sandbox (the container backend runs the same cases in docker-os.test.ts). */
import { describe, expect, it } from 'vitest';
import { checkOsSandbox, createOsEnvironment } from '../../src/bench/llb/os-env.js';
import { DEFAULT_SHELL_LIMITS } from '../../src/sandbox/shell/sandbox.js';
import { IN_CI } from '../sandbox/require-sandbox.js';
import { defineOsEscapes } from './os-escape-cases.js';

const check = await checkOsSandbox();
const skip = !check.ok && !IN_CI;
if (skip) process.stderr.write(`[skip] os escape tests (local): ${check.ok ? '' : check.reason}\n`);

describe.skipIf(skip)('local os sandbox', () => {
  it('is available (under CI a missing rootfs fails here)', () => {
    expect(check).toEqual({ ok: true });
  });
});

// stdout and stderr are capped separately, then joined.
defineOsEscapes('local rootfs sandbox', { skip, create: () => createOsEnvironment(), maxOutputBytes: 2 * DEFAULT_SHELL_LIMITS.maxOutputBytes });

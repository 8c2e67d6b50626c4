/**
 * The one registry of environment backends: per kind (python-tests, sql, shell,
 * bridge) a local and a docker implementation of the kind's contract. Callers ask
 * here (`openEnv(kind, backend, settings)`) instead of importing a backend; each
 * backend's module is loaded when it is first opened, so a local run never loads
 * the container engine's client. The conformance suites (test/env/) iterate this
 * table: a backend added here is tested like the others.
 */
import type { BridgeSettings, BridgeTransport } from './bridge/contract.js';
import { ENV_BACKEND_NAMES, type EnvBackendName, type EnvCheck } from './contract.js';
import type { PythonTestRunner, PythonTestsSettings } from './python-tests/contract.js';
import type { ShellEnvironments, ShellSettings } from './shell/contract.js';
import type { SqlBackend } from './sql/backend.js';
import type { SqlSettings } from './sql/contract.js';

/** Each kind's settings and what opening one of its backends gives. */
export interface EnvKinds {
  'python-tests': { settings: PythonTestsSettings; opened: PythonTestRunner };
  sql: { settings: SqlSettings; opened: SqlBackend };
  shell: { settings: ShellSettings; opened: ShellEnvironments };
  bridge: { settings: BridgeSettings; opened: BridgeTransport };
}

export type EnvKind = keyof EnvKinds;

type Opener<K extends EnvKind> = (settings: EnvKinds[K]['settings']) => Promise<EnvKinds[K]['opened']>;

const REGISTRY: { [K in EnvKind]: Record<EnvBackendName, Opener<K>> } = {
  'python-tests': {
    local: async (s) => new (await import('./python-tests/local.js')).LocalPythonTestRunner(s),
    docker: async (s) => new (await import('./python-tests/docker.js')).DockerPythonTestRunner(s),
  },
  sql: {
    local: async (s) => new (await import('./sql/local.js')).LocalSqlBackend(s),
    docker: async (s) => (await import('./sql/docker.js')).DockerSqlBackend.open(s),
  },
  shell: {
    local: async (s) => new (await import('./shell/local.js')).LocalShellEnvironments(s),
    docker: async (s) => (await import('./shell/docker.js')).DockerShellEnvironments.open(s),
  },
  bridge: {
    local: async (s) => new (await import('./bridge/local.js')).LocalBridgeTransport(s),
    docker: async (s) => new (await import('./bridge/docker.js')).DockerBridgeTransport(s),
  },
};

export const ENV_KINDS = Object.keys(REGISTRY) as EnvKind[];

/** The backends registered for a kind, in a fixed order (local first). */
export function envBackends(kind: EnvKind): EnvBackendName[] {
  return ENV_BACKEND_NAMES.filter((b) => b in REGISTRY[kind]);
}

/**
 * Opens a backend of a kind. What opening does is the backend's: nothing for the
 * local ones and the lazily connecting containers (python tests, bridges), the
 * engine and image for the shell containers, a whole server for the sql container.
 * Throws a UserError when the backend cannot work here at all (no engine, no image).
 */
export function openEnv<K extends EnvKind>(kind: K, backend: EnvBackendName, settings: EnvKinds[K]['settings']): Promise<EnvKinds[K]['opened']> {
  const open = REGISTRY[kind][backend] as Opener<K> | undefined;
  if (!open) return Promise.reject(new Error(`no ${backend} backend registered for ${kind}`));
  return open(settings);
}

/** Does a backend work here? Opens it, runs its self-check and closes it again. Never throws. */
export async function checkEnv<K extends EnvKind>(kind: K, backend: EnvBackendName, settings: EnvKinds[K]['settings']): Promise<EnvCheck> {
  let opened: EnvKinds[K]['opened'] | undefined;
  try {
    opened = await openEnv(kind, backend, settings);
    return await opened.check();
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  } finally {
    await opened?.close().catch(() => undefined);
  }
}

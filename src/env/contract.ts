/**
 * What every environment backend shares, whatever its kind: its name (local or
 * docker), a self-check saying whether it works here (and if not, what to do), facts
 * for the run manifest, and the release of everything it holds.
 */

import type { Readable, Writable } from 'node:stream';

/** The two places untrusted things run: on this machine (namespaces, a local server, a child process) or in containers. */
export type EnvBackendName = 'local' | 'docker';

export const ENV_BACKEND_NAMES: readonly EnvBackendName[] = ['local', 'docker'];

/**
 * What an evaluator says about itself for run.json: open-ended (each backend has its own
 * facts: interpreter, limits, images, versions); the few that readers use are named.
 */
export interface EvaluatorFacts {
  /** Where episodes are scored (e.g. local-bwrap, docker, os-sandbox). */
  backend?: string;
  mode?: string;
  pythonVersion?: string | null;
  /** Tasks that cannot pass here whatever the model writes (e.g. a task importing a library the sandbox lacks). */
  blockedTasks?: { taskId: string; reason: string }[];
  [fact: string]: unknown;
}

/** Does a backend work here? The reason names the fix; `detail` says what was found. */
export type EnvCheck = { ok: true; detail?: string } | { ok: false; reason: string };

export interface OpenedEnv {
  readonly backend: EnvBackendName;
  /** Starts (or connects to) what the backend needs and tries it once. Never throws. */
  check(): Promise<EnvCheck>;
  /** Facts for the run manifest (where things run, versions, limits). */
  describe(): Promise<EvaluatorFacts>;
  /** Releases everything still held (containers, sessions, processes). The backend is unusable afterwards. */
  close(): Promise<void>;
}

/**
 * One JSON line of a peer process's protocol (a request, or its reply): open-ended, each
 * peer its own fields (`cmd`, `id`, `ok`, …); read a reply's fields as unknown.
 */
export type PeerMessage = Record<string, unknown>;

/**
 * A long-lived peer process we talk to over its stdio: a bridge, a fork server. A
 * child process of ours (in a sandbox or not) or a container's main process.
 */
export interface PeerProcess {
  /** For logs: { pid } or { container }. */
  readonly where: Record<string, string | number>;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves once the process is gone, with why ("killed by SIGKILL", "exited with code 1"). */
  readonly exited: Promise<string>;
  /** False once it ended or its stdin can no longer be written. */
  readonly running: boolean;
  /** Stops it at once and releases what it holds (a container is removed). Idempotent, never throws. */
  stop(): Promise<void>;
}

/**
 * The bridge kind: a long-lived peer program (an environment simulator, a game
 * engine) that a caller talks to with JSON lines over its stdio. A transport only
 * starts one bridge with its stdio and says when it ended: a child process of ours
 * (local.ts) or the main process of a container (docker.ts). The request/response
 * envelope, timeouts, restarts and output caps are the client's (client.ts); what
 * the requests mean is the caller's protocol.
 */
import type { EnvBackendName, OpenedEnv, PeerProcess } from '../contract.js';
import type { ContainerPlacement } from '../container/backend.js';

/** One running bridge. */
export type BridgeProcess = PeerProcess;

export interface BridgeTransport extends OpenedEnv {
  readonly backend: EnvBackendName;
  /**
   * Starts a bridge. Throws BridgeFault when it cannot start (the caller's request
   * fails), or a UserError for a setup problem that stops a run (no engine, no image).
   */
  launch(): Promise<BridgeProcess>;
}

/** A file copied into a bridge container before its start. */
export interface BridgeFile {
  name: string;
  content: string | Buffer;
}

export interface BridgeSettings {
  /** What the bridge is, for messages: e.g. 'the household bridge'. */
  label: string;
  /** The program and its arguments: on this machine (local) or inside the image (docker). */
  command: string[];
  /** Added to the bridge's environment (the local one inherits ours; a container's starts from HOME=/tmp). */
  env?: Record<string, string>;
  /** Containers (docker only): engine, image, role label, how many at once. */
  docker?: ContainerPlacement;
  /** Docker: files copied into `filesDir` before the start (the bridge program and what it imports). */
  files?: BridgeFile[];
  filesDir?: string;
}

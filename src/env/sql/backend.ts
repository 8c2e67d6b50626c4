/**
 * What opening the sql kind gives: the server the tasks use. Apart from contract.ts,
 * which the server itself implements against, so that the two do not import each other.
 */
import type { EnvBackendName, OpenedEnv } from '../contract.js';
import type { SqlServer } from './sql-server.js';

/** An opened sql backend: the server the tasks use, and (for containers) how often it was restarted. */
export interface SqlBackend extends OpenedEnv {
  readonly backend: EnvBackendName;
  readonly server: SqlServer;
  /** Times the server was restarted after dying under the run (always 0 locally). */
  restarts(): number;
}

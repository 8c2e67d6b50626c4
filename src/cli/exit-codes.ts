/**
 * Exit codes: the CLI entry ends every command through these, from how a run ended or
 * from the fault that stopped it (the table itself is util/errors.ts's exitCodeFor, so
 * a fault's `exitCode` says the same).
 */
export { EXIT, exitCodeFor as exitCodeOf } from '../util/errors.js';

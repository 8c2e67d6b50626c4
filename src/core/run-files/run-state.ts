/**
 * A run's state as its readers show it: recorded in no file, derived from the evidence
 * in the folder (results/run-status.ts is the one place that decides it). The lock file
 * is part of that evidence: a process running the folder holds it, a clean end (complete,
 * interrupted, failed) removes it, and a process killed with it held leaves it behind.
 */
export const LOCK_FILE = '.lock';

/** running: a live process holds the lock; interrupted: stopped or killed, resumable; failed: ended by an error (its reason recorded); complete. */
export const RUN_STATES = ['running', 'interrupted', 'failed', 'complete'] as const;
export type RunState = (typeof RUN_STATES)[number];

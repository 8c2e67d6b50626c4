/** The run profiles `--profile` / `memrl.profile` accept (profile.ts builds their layers). */
export const RUN_PROFILES = ['paper'] as const;
export type RunProfile = (typeof RUN_PROFILES)[number];

/**
 * The root filesystem of the local shell sandbox (built by scripts/setup/rootfs.sh),
 * and its identity for run manifests: its path, the build stamp, the Debian release,
 * and a hash of the dpkg database (every installed package and version), so two runs
 * can tell whether their shells had the same tools.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_ROOTFS = '/var/lib/memrl/rootfs-bookworm';
export const DEFAULT_UID_BASE = 100000;
export const ROOTFS_FIX = 'build it with: sudo bash scripts/setup.sh rootfs';

/** Where the root filesystem is (MEMRL_ROOTFS overrides). */
export function rootfsPath(): string {
  return process.env.MEMRL_ROOTFS || DEFAULT_ROOTFS;
}

/** Host uid/gid that is root inside (MEMRL_ROOTFS_UID_BASE overrides; must match the build). */
export function rootfsUidBase(): number {
  const v = Number(process.env.MEMRL_ROOTFS_UID_BASE ?? DEFAULT_UID_BASE);
  return Number.isInteger(v) && v > 0 ? v : DEFAULT_UID_BASE;
}

export interface RootfsIdentity {
  path: string;
  /** First line of <rootfs>.stamp (release, uid base, build time), or null. */
  stamp: string | null;
  debianVersion: string | null;
  /** sha256 of var/lib/dpkg/status, or null when absent. */
  dpkgStatusSha256: string | null;
}

const read = (file: string): string | null => (existsSync(file) ? readFileSync(file, 'utf8') : null);

export function rootfsIdentity(rootfs = rootfsPath()): RootfsIdentity {
  const status = existsSync(join(rootfs, 'var/lib/dpkg/status')) ? readFileSync(join(rootfs, 'var/lib/dpkg/status')) : null;
  return {
    path: rootfs,
    stamp: read(`${rootfs}.stamp`)?.split('\n')[0]?.trim() || null,
    debianVersion: read(join(rootfs, 'etc/debian_version'))?.trim() || null,
    dpkgStatusSha256: status ? createHash('sha256').update(status).digest('hex') : null,
  };
}

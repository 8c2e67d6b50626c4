/**
 * Which root filesystem the LLB os tasks ran in, for run.json: its path, the build
 * stamp scripts/setup/rootfs.sh wrote, the Debian release, and a hash of the dpkg
 * database (every installed package and version), so two runs can tell whether
 * their shells had the same tools.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootfsPath } from './sandbox.js';

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

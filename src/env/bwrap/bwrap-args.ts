/**
 * Command line of a bubblewrap sandbox for untrusted programs.
 *
 * What the program gets: the system's /usr (read-only), a short allow-list of
 * /etc files, a fresh /proc and /dev, and private tmpfs mounts for /tmp (its
 * working directory) and /dev/shm. What it does not get: the network (only its
 * own loopback), the project directory, $HOME, /root, /work, other processes
 * (own PID namespace), the parent's environment (cleared; an explicit allow-list
 * is set), capabilities, or a way to outlive the run (--die-with-parent and the
 * PID namespace init going away take every process with them).
 */
import { existsSync, lstatSync, readdirSync, readlinkSync } from 'node:fs';

/** Inside the sandbox the program runs as "nobody", a user every Debian/Ubuntu /etc/passwd has. */
export const SANDBOX_UID = 65534;
export const SANDBOX_GID = 65534;

export const SANDBOX_TMP = '/tmp';
/** Working directory inside the sandbox: an empty folder on the private tmpfs. */
export const SANDBOX_WORKDIR = '/tmp/work';

/**
 * /etc entries the programs we run need: the dynamic linker cache and the
 * Debian alternatives (numpy finds BLAS through /etc/alternatives), TLS roots,
 * fonts and matplotlibrc, time zone, users/groups for getpass/pwd, name service
 * and MIME tables, Python's own config. Everything else in /etc (credentials,
 * npmrc, pip.conf, ssh keys, ...) stays invisible.
 */
const ETC_ALLOW = new Set([
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'debian_version',
  'fonts',
  'gai.conf',
  'group',
  'host.conf',
  'hosts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'locale.alias',
  'localtime',
  'magic',
  'magic.mime',
  'mailcap',
  'matplotlibrc',
  'mime.types',
  'networks',
  'nsswitch.conf',
  'os-release',
  'papersize',
  'passwd',
  'protocols',
  'services',
  'ssl',
  'timezone',
]);
const ETC_ALLOW_PATTERNS = [/^python3(\.\d+)?$/, /^ImageMagick/];

export function allowedEtcEntries(etcDir = '/etc'): string[] {
  let names: string[];
  try {
    names = readdirSync(etcDir);
  } catch {
    return [];
  }
  return names.filter((n) => ETC_ALLOW.has(n) || ETC_ALLOW_PATTERNS.some((p) => p.test(n))).sort();
}

export interface BwrapCommandOptions {
  /** argv of the program to run inside (absolute path first). */
  command: string[];
  /** The program's whole environment. */
  env: Record<string, string>;
  /** Size of the /tmp and /dev/shm tmpfs mounts, bytes. */
  tmpfsBytes: number;
  /** Extra read-only binds (host path → sandbox path), e.g. a data folder. */
  roBinds?: { src: string; dest: string }[];
  /** What the installed bwrap supports (see probeBwrapFeatures). */
  features: BwrapFeatures;
  /**
   * The command itself is PID 1 of the namespace (no bubblewrap init): it then
   * reaps every orphan and, as an init, ignores signals from inside it that it does
   * not handle. The fork server (env/python-tests/fork-server.ts) relies on both.
   */
  asPid1?: boolean;
}

export interface BwrapFeatures {
  /** `--size` before `--tmpfs` (bwrap ≥ 0.7): caps the memory a tmpfs can take. */
  tmpfsSize: boolean;
  /** `--disable-userns` (bwrap ≥ 0.8): no nested user namespaces inside (less kernel surface). */
  disableUserns: boolean;
}

/** Features from the text of `bwrap --help`. */
export function parseBwrapFeatures(helpText: string): BwrapFeatures {
  return { tmpfsSize: /--size\b/.test(helpText), disableUserns: /--disable-userns\b/.test(helpText) };
}

/** Top-level directories that merged-/usr systems provide as symlinks into /usr. */
const USR_LINKS = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

function rootLayoutArgs(): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of USR_LINKS) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (st.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  return args;
}

/** Full bwrap argv (without the bwrap binary itself). */
export function bwrapArgs(opts: BwrapCommandOptions): string[] {
  const sized = (): string[] => (opts.features.tmpfsSize ? ['--size', String(Math.floor(opts.tmpfsBytes))] : []);
  const args: string[] = [
    // No network, IPC, UTS, cgroup or PID sharing; a user namespace where we are "nobody".
    '--unshare-all',
    '--unshare-user',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_GID),
    '--hostname',
    'sandbox',
    '--die-with-parent',
    // A new session: the program cannot push keystrokes into our terminal (TIOCSTI).
    '--new-session',
    ...(opts.asPid1 ? ['--as-pid-1'] : []),
    ...(opts.features.disableUserns ? ['--disable-userns'] : []),
    ...rootLayoutArgs(),
    '--dir',
    '/etc',
  ];
  for (const name of allowedEtcEntries()) args.push('--ro-bind', `/etc/${name}`, `/etc/${name}`);
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    ...sized(),
    '--tmpfs',
    '/dev/shm',
    ...sized(),
    '--tmpfs',
    SANDBOX_TMP,
    '--dir',
    SANDBOX_WORKDIR,
    '--symlink',
    SANDBOX_TMP,
    '/var/tmp',
  );
  for (const bind of opts.roBinds ?? []) {
    if (!existsSync(bind.src)) throw new Error(`sandbox: cannot bind ${bind.src}: no such file or directory`);
    args.push('--ro-bind', bind.src, bind.dest);
  }
  // The skeleton root (/, /etc, /var) becomes read-only too: only the tmpfs mounts stay writable.
  args.push('--remount-ro', '/', '--chdir', SANDBOX_WORKDIR, '--clearenv');
  for (const [k, v] of Object.entries(opts.env)) args.push('--setenv', k, v);
  args.push('--', ...opts.command);
  return args;
}

/**
 * The environment every sandboxed program starts from. Nothing is copied from
 * our own environment: API keys and tokens must never reach untrusted code.
 */
export function baseSandboxEnv(): Record<string, string> {
  return {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: SANDBOX_TMP,
    TMPDIR: SANDBOX_TMP,
    USER: 'nobody',
    LOGNAME: 'nobody',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
  };
}

/**
 * Who runs bwrap. As root we switch to an unprivileged user first: the kernel does
 * not enforce RLIMIT_NPROC for uid 0, so a fork bomb would only stop at the host's
 * PID limit, and untrusted code should not hold root's identity anyway.
 */
export function sandboxRunAs(): { uid?: number; gid?: number } {
  return process.getuid?.() === 0 ? { uid: SANDBOX_UID, gid: SANDBOX_GID } : {};
}

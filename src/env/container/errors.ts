/** Error text from the container engine, without loading the engine client (doctor and messages use it). */

/** A short reason from a dockerode / socket error. */
export function describeError(err: unknown): string {
  const e = err as { code?: string; statusCode?: number; json?: { message?: string }; reason?: string; message?: string };
  if (e?.json?.message) return e.json.message;
  if (e?.code === 'ENOENT') return 'no such socket';
  if (e?.code === 'ECONNREFUSED') return 'connection refused';
  if (e?.code === 'EACCES') return 'permission denied on the socket';
  const msg = String(e?.message ?? err);
  return msg.split('\n')[0]!.replace(/^\(HTTP code \d+\) /, '');
}

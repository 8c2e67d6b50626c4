/** SQL text and `mysql` client arguments, shared by the server logic, its transports and callers that build SQL. */
import type { ClientRequest } from './contract.js';

export function quoteIdent(name: string): string {
  return '`' + name.replace(/`/g, '``') + '`';
}

export function sqlLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'NULL';
  if (typeof v === 'boolean') return v ? '1' : '0';
  return "'" + String(v).replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/\0/g, '\\0') + "'";
}

/** The client's arguments after the connection ones: output as tab-separated text, NULL as the bare word. */
export function clientArgs(req: Pick<ClientRequest, 'user' | 'database'>): string[] {
  return ['-u', req.user, '--batch', '--raw', '--default-character-set=utf8mb4', ...(req.database ? ['-D', req.database] : [])];
}

/**
 * Model prices for the cost ledger and --budget-usd: the built-in table
 * (src/llm/prices.yaml, with its source and date) merged with an optional user
 * file (memrl.prices / --prices, same format, its entries win). A model found in
 * neither gets no price, so its cost is null with a note: never a guessed number.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { asset } from '../util/paths.js';
import type { LedgerRole, Price, RolePrice, RolePrices } from './cost.js';

export const BUILTIN_PRICES_FILE = asset('src', 'llm', 'prices.yaml');

const EntrySchema = z.object({ input: z.number().min(0), output: z.number().min(0).default(0) }).strict();
const FileSchema = z
  .object({
    as_of: z.union([z.string(), z.date()]).optional(),
    source: z.string().optional(),
    currency: z.literal('USD').optional(),
    models: z.record(EntrySchema),
  })
  .strict();

export interface PriceTable {
  /** The files read, built-in first. */
  files: string[];
  /** Lower-cased model name → price and the file it came from. */
  models: Map<string, { price: Price; file: string }>;
}

function readPriceFile(file: string): Map<string, Price> {
  if (!existsSync(file)) throw new UserError(`price table ${file} does not exist; give a YAML or JSON file with models: {<name>: {input, output}} (USD per 1M tokens)`);
  let data: unknown;
  try {
    data = parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new UserError(`price table ${file} is not valid YAML/JSON: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const parsed = FileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length ? issue.path.join('.') : '(top level)';
    throw new UserError(`price table ${file}: ${where}: ${issue?.message ?? 'invalid'}; expected models: {<name>: {input: <USD per 1M prompt tokens>, output: <USD per 1M completion tokens>}}`);
  }
  const out = new Map<string, Price>();
  for (const [name, e] of Object.entries(parsed.data.models)) out.set(name.trim().toLowerCase(), { promptPerMTok: e.input, completionPerMTok: e.output });
  return out;
}

/** The built-in table, then `userFile` on top (null = built-in only). */
export function loadPriceTable(userFile?: string | null, builtin = BUILTIN_PRICES_FILE): PriceTable {
  const files = [builtin, ...(userFile ? [userFile] : [])];
  const models = new Map<string, { price: Price; file: string }>();
  for (const file of files) for (const [name, price] of readPriceFile(file)) models.set(name, { price, file });
  return { files, models };
}

/**
 * The price of `model` behind `provider`. The simulator and the local embedder run
 * on this machine and cost 0; anything else needs a table entry.
 */
export function priceOf(table: PriceTable, provider: string, model: string): RolePrice {
  if (provider === 'sim') return { model, price: { promptPerMTok: 0, completionPerMTok: 0 }, source: 'offline simulator (no API)' };
  if (provider === 'local') return { model, price: { promptPerMTok: 0, completionPerMTok: 0 }, source: 'local embedder (no API)' };
  const hit = table.models.get(model.trim().toLowerCase());
  if (hit) return { model, price: hit.price, source: hit.file };
  return {
    model,
    price: null,
    source: table.files.join(' + '),
    note: `no price for model "${model}" in ${table.files.join(' or ')}: its cost is null; add it to a price file and pass --prices <file> (or memrl.prices)`,
  };
}

export interface RunModels {
  agent: { provider: string; model: string };
  /** The scoring model, when the benchmark has one. */
  judge?: { provider: string; model: string };
  embedding: { provider: string; model: string };
}

/** Prices per ledger role: memory writing uses the agent's model. */
export function pricesForRun(table: PriceTable, models: RunModels): RolePrices {
  const agent = priceOf(table, models.agent.provider, models.agent.model);
  return {
    agent,
    memory: agent,
    ...(models.judge ? { judge: priceOf(table, models.judge.provider, models.judge.model) } : {}),
    embedding: priceOf(table, models.embedding.provider, models.embedding.model),
  };
}

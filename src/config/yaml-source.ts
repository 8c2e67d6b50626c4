/**
 * A parsed YAML config file that remembers where each key is, so that every
 * validation error can say `file:line`.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { errorMessage, UserError } from '../util/errors.js';
import { fsError } from '../util/fs-errors.js';

/**
 * A config tree as a file or a layer writes it, before the schema reads it (and as
 * run.json records it, redacted): the reference's YAML sections and keys plus memrl's
 * own, open-ended by nature (a plug-in adds its section).
 */
export type ConfigTree = Record<string, unknown>;

export type KeyPath = (string | number)[];

export interface YamlSource {
  /** How the file is named in messages (the path as the user gave it). */
  label: string;
  /** Plain data; an empty file is {}. */
  data: ConfigTree;
  /** 1-based line of the deepest key of `path` found in the file. */
  lineOf(path: KeyPath): number | undefined;
}

/**
 * Texts of configs that can be read only once (a pipe: `--config <(…)`, /dev/stdin, a
 * FIFO), by resolved path: the plug-in scan and the config load then see the same text.
 * A regular file is read again each time (a sweep rewrites its cell configs).
 */
const readOnce = new Map<string, string>();

/** A config file's text, read once for pipes and devices; a failure is one line naming the file. */
export function readConfigText(path: string, label = path): string {
  const key = resolve(path);
  const kept = readOnce.get(key);
  if (kept !== undefined) return kept;
  let regular: boolean;
  let text: string;
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UserError(`${label}: is a directory, expected a YAML config file`);
    regular = st.isFile();
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`${label}: config file not found`);
    throw fsError(err, { path: label, what: 'config file' }) ?? new UserError(`${label}: cannot read config file (${errorMessage(err)})`);
  }
  if (!regular) readOnce.set(key, text);
  return text;
}

export function readYamlFile(path: string, label = path): YamlSource {
  return parseYamlText(readConfigText(path, label), label);
}

/** Aliases a config may expand (yaml's guard against exponential expansion). */
const MAX_ALIAS_COUNT = 1000;

export function parseYamlText(text: string, label: string): YamlSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const first = doc.errors[0];
  if (first) {
    const where = first.linePos ? `:${first.linePos[0].line}:${first.linePos[0].col}` : '';
    // prettyErrors (the default) fills linePos but appends a multi-line excerpt: keep the first line.
    const what = first.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    throw new UserError(`${label}${where}: invalid YAML: ${what}`);
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (err) {
    // yaml refuses a document whose aliases expand without bound ("billion laughs").
    if (/alias/i.test(errorMessage(err))) {
      throw new UserError(`${label}: invalid YAML: its aliases (*name) expand to too many nodes (over ${MAX_ALIAS_COUNT}: an alias bomb?); write the values out, or use fewer aliases`);
    }
    throw new UserError(`${label}: invalid YAML: ${errorMessage(err).split('\n')[0]}`);
  }
  if (typeof data !== 'object' || Array.isArray(data) || data === null) {
    throw new UserError(`${label}:1: a config file must be a mapping of sections (llm:, memory:, ...), found a ${Array.isArray(data) ? 'list' : typeof data}`);
  }
  return {
    label,
    data: data as ConfigTree,
    lineOf: (path) => {
      const offset = offsetOf(doc, path);
      return offset === undefined ? undefined : lineCounter.linePos(offset).line;
    },
  };
}

function offsetOf(doc: Document, path: KeyPath): number | undefined {
  let node: unknown = doc.contents;
  let found: number | undefined;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) break;
      found = (pair.key as Node).range?.[0] ?? found;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as Node | undefined;
      if (!item) break;
      found = item.range?.[0] ?? found;
      node = item;
    } else {
      break;
    }
  }
  return found;
}

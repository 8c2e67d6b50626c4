/**
 * JSON as JSON.parse (or a YAML parse) returns it: what a file, a peer process or a
 * model's reply holds before its fields are checked. Narrow with isJsonObject, then
 * read fields as Json (never `any`).
 */
export type Json = null | boolean | number | string | Json[] | JsonObject;

export interface JsonObject {
  [key: string]: Json;
}

/** A parsed value (from JSON or YAML) that is an object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

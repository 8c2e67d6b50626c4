/**
 * A contract schema's types written out as TypeScript-like text: the reference page
 * (scripts/plugin-reference.ts) shows them, and the plug-in boundary says which type
 * it expected when a plug-in's value does not fit. One function, so both say the same.
 */
import { z } from 'zod';
import { metaOf } from './contract-schema.js';

type Any = z.ZodTypeAny;

/** The schema under optional/default/effects/readonly wrappers, down to one the page names or describes. */
export function unwrapField(s: Any): Any {
  for (;;) {
    const meta = metaOf(s);
    if (meta.type || meta.params || meta.name) return s;
    if (s instanceof z.ZodOptional || s instanceof z.ZodReadonly || s instanceof z.ZodDefault) s = s._def.innerType as Any;
    else if (s instanceof z.ZodEffects) s = s._def.schema as Any;
    else return s;
  }
}

/** Whether a field may be left out (zod's isOptional() also says so of an opaque value, which accepts anything). */
export const optionalField = (s: Any): boolean => s instanceof z.ZodOptional || s instanceof z.ZodDefault;

export function nameOf(s: Any): string | undefined {
  return metaOf(s).name ?? (s instanceof z.ZodEffects ? nameOf(s._def.schema as Any) : undefined);
}

/** A type as TypeScript would write it, contracts by their names; `depth` stops inline objects from growing. */
export function typeText(schema: Any, depth = 0): string {
  const meta = metaOf(schema);
  if (meta.type) return meta.type;
  if (meta.params && meta.returns) {
    const params = meta.params.map(([n, p]) => `${n}${optionalField(p) ? '?' : ''}: ${typeText(unwrapField(p), depth + 1)}`);
    return `(${params.join(', ')}) => ${typeText(meta.returns, depth + 1)}`;
  }
  const name = nameOf(schema);
  if (name) return name;
  if (schema instanceof z.ZodOptional) return `${typeText(schema._def.innerType as Any, depth)} | undefined`;
  if (schema instanceof z.ZodReadonly || schema instanceof z.ZodDefault) return typeText(schema._def.innerType as Any, depth);
  if (schema instanceof z.ZodEffects) return typeText(schema._def.schema as Any, depth);
  if (schema instanceof z.ZodString) return 'string';
  if (schema instanceof z.ZodNumber) return schema.isInt ? 'integer' : 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  if (schema instanceof z.ZodVoid) return 'void';
  if (schema instanceof z.ZodUnknown || schema instanceof z.ZodAny) return 'unknown';
  if (schema instanceof z.ZodLiteral) return JSON.stringify(schema._def.value).replace(/"/g, "'");
  if (schema instanceof z.ZodEnum) return (schema._def.values as string[]).map((v) => `'${v}'`).join(' | ');
  if (schema instanceof z.ZodNullable) return `${typeText(schema._def.innerType as Any, depth)} | null`;
  if (schema instanceof z.ZodPromise) return `Promise<${typeText(schema._def.type as Any, depth)}>`;
  if (schema instanceof z.ZodArray) {
    const item = typeText(schema._def.type as Any, depth);
    return /[|&]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
  }
  if (schema instanceof z.ZodRecord) return `Record<string, ${typeText(schema._def.valueType as Any, depth)}>`;
  if (schema instanceof z.ZodIntersection) return `${typeText(schema._def.left as Any, depth)} & ${typeText(schema._def.right as Any, depth)}`;
  if (schema instanceof z.ZodUnion) {
    const options = schema._def.options as Any[];
    // maybeAsync: X | Promise<X>
    const [a, b] = options;
    if (options.length === 2 && a instanceof z.ZodPromise && a._def.type === b) return `${typeText(b!, depth)} | Promise<${typeText(b!, depth)}>`;
    return options.map((o) => typeText(o, depth)).join(' | ');
  }
  if (schema instanceof z.ZodObject) {
    if (depth > 2) return 'object';
    const shape = schema.shape as Record<string, Any>;
    return `{ ${Object.entries(shape)
      .map(([k, v]) => `${k}${optionalField(v) ? '?' : ''}: ${typeText(unwrapField(v), depth + 1)}`)
      .join('; ')} }`;
  }
  return 'unknown';
}


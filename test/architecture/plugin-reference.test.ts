/**
 * docs/plugin-reference.md is generated from the contract schemas: it must be what
 * `npm run docs` writes now, and it must document every field of every contract.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { REFERENCE_PAGE, renderPluginReference } from '../../scripts/plugin-reference.js';
import { CONTRACT_GROUPS } from '../../src/core/contracts.js';

describe('the plug-in reference page', () => {
  it('is what the schemas generate (run `npm run docs` after changing a contract)', () => {
    const onDisk = readFileSync(REFERENCE_PAGE, 'utf8');
    expect(onDisk === renderPluginReference(), `${REFERENCE_PAGE} is stale: run npm run docs`).toBe(true);
  });

  it('describes every field of every contract', () => {
    const undocumented: string[] = [];
    for (const group of CONTRACT_GROUPS) {
      for (const schema of group.schemas) {
        let object: z.ZodTypeAny = schema;
        while (object instanceof z.ZodEffects) object = object._def.schema as z.ZodTypeAny;
        const shape = (object as z.AnyZodObject).shape as Record<string, z.ZodTypeAny>;
        for (const [key, field] of Object.entries(shape)) {
          const inner = field instanceof z.ZodOptional ? (field._def.innerType as z.ZodTypeAny) : field;
          if (!field.description && !inner.description) undocumented.push(`${schema.description?.slice(0, 30) ?? '?'}… .${key}`);
        }
      }
    }
    expect(undocumented).toEqual([]);
  });
});

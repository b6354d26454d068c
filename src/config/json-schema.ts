/** perfgate.yml's published JSON Schema: the input side of the one zod schema, for editors and the docs generator. */

import { z } from 'zod';
import { configDocumentSchema } from './schema.js';
import { docNotes } from './schema-values.js';

export const JSON_SCHEMA_ID = 'https://perfgate.dev/perfgate.schema.json';

type JsonObject = { [key: string]: unknown };

/**
 * perfgate.yml's JSON Schema for editors (draft 2020-12). Tidied after `z.toJSONSchema`:
 * - nothing is `required` at the top or in `service`: start and scenarios may come from action
 *   inputs or CLI flags, so a file without them is valid;
 * - zod's safe-integer bounds (±2^53-1) are dropped as noise.
 * `docNotes: true` adds `x-doc-type` / `x-doc-default` (docs generator only, not published).
 */
export function configJsonSchema(options: { docNotes?: boolean } = {}): JsonObject {
  const generated = z.toJSONSchema(configDocumentSchema, {
    io: 'input',
    target: 'draft-2020-12',
    override: options.docNotes
      ? (ctx) => {
          const note = docNotes.get(ctx.zodSchema as unknown as z.ZodType);
          const json = ctx.jsonSchema as JsonObject;
          if (note?.type) json['x-doc-type'] = note.type;
          if (note?.default) json['x-doc-default'] = note.default;
        }
      : undefined,
  }) as JsonObject;
  const tidy = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(tidy);
    if (typeof node !== 'object' || node === null) return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
      if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
      out[key] = tidy(value);
    }
    return out;
  };
  const { $schema, title, description, required: _required, ...rest } = tidy(generated) as JsonObject;
  const properties = rest['properties'] as Record<string, JsonObject>;
  delete properties['service']!['required'];
  return { $schema, $id: JSON_SCHEMA_ID, title, description, ...rest };
}

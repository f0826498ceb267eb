import { Ajv } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { apiError } from './errors.js';

const ajv = new Ajv({ allErrors: false, strict: false });

/** The field a JSON-schema error is about: the missing property, or the path to the bad value. */
export function fieldOf(error: { instancePath?: string; params?: Record<string, unknown> }): string | null {
  const missing = error.params?.missingProperty;
  if (typeof missing === 'string') return missing;
  const path = (error.instancePath ?? '').split('/').filter(Boolean).join('.');
  return path || null;
}

/**
 * A validator for inputs that do not arrive as a route body (imports, CLI files): gives the input
 * back typed as the schema declares it (json-schema-to-ts, docs/adr/0004-typed-routes.md), or
 * throws VALIDATION_ERROR naming the field, with `where` (e.g. "line 3") in front of the message.
 */
export function schemaValidator<const S extends JSONSchema>(schema: S, subject: string): (input: unknown, where?: string) => FromSchema<S> {
  // Compiled on first use: modules declare validators at load, and a CLI command that never
  // checks a review should not pay for compiling the review schema at every start.
  let validate: ReturnType<typeof ajv.compile> | undefined;
  return (input, where) => {
    // Cast: S is a JSON schema, typed for json-schema-to-ts more narrowly than ajv's parameter.
    validate ??= ajv.compile(schema as object);
    // The one cast of a checked input: ajv has just checked it against the schema its type is made from.
    if (validate(input)) return input as FromSchema<S>;
    const error = validate.errors![0];
    const field = fieldOf(error);
    throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}${field ?? subject} ${error.message ?? 'is invalid'}`, { field });
  };
}

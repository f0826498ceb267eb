import { Ajv } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { apiError } from './errors.js';

const ajv = new Ajv({ allErrors: false, strict: false });

interface SchemaError {
  keyword?: string;
  instancePath?: string;
  params?: Record<string, unknown>;
  message?: string;
}

/** The field a JSON-schema error is about: the missing or unknown property, or the path to the bad value. */
export function fieldOf(error: SchemaError): string | null {
  const missing = error.params?.missingProperty;
  if (typeof missing === 'string') return missing;
  const path = (error.instancePath ?? '').split('/').filter(Boolean).join('.');
  const unknown = error.params?.additionalProperty;
  if (typeof unknown === 'string') return path ? `${path}.${unknown}` : unknown;
  return path || null;
}

/**
 * A JSON-schema error in words, naming its field: `name must be string`, and for a property the
 * schema does not have, `unknown field "adress1"` (ajv's own text, "must NOT have additional
 * properties", names none).
 */
export function describeSchemaError(error: SchemaError, subject: string): { field: string | null; text: string } {
  const field = fieldOf(error);
  if (error.keyword === 'additionalProperties' && field !== null) return { field, text: `unknown field "${field}"` };
  return { field, text: `${field ?? subject} ${error.message ?? 'is invalid'}` };
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
    const { field, text } = describeSchemaError(validate.errors![0], subject);
    throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}${text}`, { field });
  };
}

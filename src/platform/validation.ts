import { Ajv } from 'ajv';
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
 * A validator for inputs that do not arrive as a route body (imports, CLI files): throws
 * VALIDATION_ERROR naming the field, with `where` (e.g. "line 3") in front of the message.
 */
export function schemaValidator(schema: object, subject: string) {
  // Compiled on first use: modules declare validators at load, and a CLI command that never
  // checks a review should not pay for compiling the review schema at every start.
  let validate: ReturnType<typeof ajv.compile> | undefined;
  return (input: unknown, where?: string): void => {
    validate ??= ajv.compile(schema);
    if (validate(input)) return;
    const error = validate.errors![0];
    const field = fieldOf(error);
    throw apiError('VALIDATION_ERROR', `${where ? `${where}: ` : ''}${field ?? subject} ${error.message ?? 'is invalid'}`, { field });
  };
}

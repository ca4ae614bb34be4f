import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, type FieldError } from '../errors.js';

type Where = 'body' | 'query' | 'path';

function makeAjv(coerce: boolean, useDefaults = true): Ajv {
  // Query strings and path segments arrive as text (a repeated parameter as an array), so they are
  // coerced to the schema's types; JSON bodies are taken exactly as sent.
  const ajv = new Ajv({
    allErrors: true,
    useDefaults,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
const responseAjv = makeAjv(false, false);

/**
 * The compiled validator of `schema` under `ajv`'s options. Kept per ajv instance: one schema object may
 * validate a body (no coercion) and a query (coercion), and the two must not share a compiled function.
 */
const compiled = new WeakMap<Ajv, WeakMap<TSchema, ValidateFunction>>();
function compileWith(ajv: Ajv, schema: TSchema): ValidateFunction {
  let byAjv = compiled.get(ajv);
  if (!byAjv) compiled.set(ajv, (byAjv = new WeakMap()));
  let fn = byAjv.get(schema);
  if (!fn) byAjv.set(schema, (fn = ajv.compile(schema)));
  return fn;
}

function validatorFor(schema: TSchema, where: Where): ValidateFunction {
  return compileWith(where === 'body' ? bodyAjv : textAjv, schema);
}

function toFieldError(e: ErrorObject, where: Where, value: unknown): FieldError {
  if (e.keyword === 'required') {
    return { path: `${e.instancePath}/${e.params.missingProperty}`, message: 'is required', in: where };
  }
  if (e.keyword === 'additionalProperties') {
    const name = e.params.additionalProperty;
    return { path: `${e.instancePath}/${name}`, message: where === 'body' ? 'is not an allowed field' : 'is not a known parameter', in: where };
  }
  if (e.keyword === 'enum') {
    return { path: e.instancePath, message: `must be one of: ${e.params.allowedValues.join(', ')}`, in: where };
  }
  if (where === 'query' && e.keyword === 'type' && e.instancePath.split('/').length === 2) {
    const name = e.instancePath.slice(1);
    if (Array.isArray((value as Record<string, unknown>)[name])) {
      return { path: e.instancePath, message: 'must not be repeated', in: where };
    }
  }
  return { path: e.instancePath || '/', message: e.message ?? 'is invalid', in: where };
}

/**
 * Validates one part of a request against its schema, applying defaults and (for text parts)
 * coercions in place, so `value` must be the caller's own copy; returns it validated or throws a 400
 * listing every invalid field.
 */
export function validatePart<T>(schema: TSchema, value: unknown, where: Where): T {
  const validate = validatorFor(schema, where);
  if (!validate(value)) {
    // A parameter given twice stays an array: coercion turns only a one-element array into its value.
    const errors = (validate.errors ?? []).map((e) => toFieldError(e, where, value));
    const unique = errors.filter((e, i) => errors.findIndex((o) => o.path === e.path && o.message === e.message) === i);
    const first = unique[0];
    const detail = where === 'body' && first.path === '/' ? `The request body ${first.message}` : `${where === 'body' ? 'Field' : 'Parameter'} '${first.path.slice(1)}' ${first.message}`;
    throw new AppError('invalid_request', unique.length > 1 ? `${detail} (and ${unique.length - 1} more)` : detail, { errors: unique });
  }
  return value as T;
}

/** For response checking in tests: returns the problems, or null when the value matches. */
export function responseProblems(schema: TSchema, value: unknown): string | null {
  const validate = compileWith(responseAjv, schema);
  return validate(value) ? null : responseAjv.errorsText(validate.errors);
}

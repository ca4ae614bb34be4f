import type { TSchema } from '@sinclair/typebox';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AppError, type FieldError } from '../errors.js';
import { yieldToEventLoop } from '../infra/event-loop.js';
import { isSlug, notASlug } from './slug.js';

type Where = 'body' | 'query' | 'path';

function makeAjv(coerce: boolean, { useDefaults = true, allErrors = false } = {}): Ajv {
  // Query strings and path segments arrive as text (a repeated parameter as an array), so they are
  // coerced to the schema's types; JSON bodies are taken exactly as sent.
  const ajv = new Ajv({
    allErrors,
    useDefaults,
    coerceTypes: coerce ? 'array' : false,
    strict: false,
  });
  addFormats.default(ajv);
  ajv.addFormat('slug', { type: 'string', validate: isSlug });
  return ajv;
}

// Each part is checked first by a validator that stops at the first error (the usual case costs nothing more),
// and only an invalid value small enough to list all its errors cheaply is checked again by one that collects them.
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);
const thoroughBodyAjv = makeAjv(false, { allErrors: true });
const thoroughTextAjv = makeAjv(true, { allErrors: true });
const responseAjv = makeAjv(false, { useDefaults: false, allErrors: true });

/** At most this many invalid fields are listed in an answer; the detail says how many more there were. */
export const maxListedErrors = 20;
/**
 * An invalid value with more JSON values than this is answered with its first error alone: collecting every
 * error of a large body costs memory and time in proportion to its errors, which a caller chooses.
 */
export const maxValuesForAllErrors = 5_000;
/** Paths and messages longer than this are cut, so that an answer stays small whatever the keys sent. */
const maxErrorTextLength = 300;

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

function validatorFor(schema: TSchema, where: Where, thorough: boolean): ValidateFunction {
  const ajv = where === 'body' ? (thorough ? thoroughBodyAjv : bodyAjv) : thorough ? thoroughTextAjv : textAjv;
  return compileWith(ajv, schema);
}

/**
 * Compiles a part's validators ahead of its first request: compiling one takes longer than any request should
 * hold the event loop, and the one that lists every error is otherwise compiled by the first invalid request.
 */
export function prepareValidators(schema: TSchema, where: Where): void {
  validatorFor(schema, where, false);
  validatorFor(schema, where, true);
  if (where === 'body') slicedOf(schema);
}

/** Whether a value holds at most `limit` JSON values (objects, arrays and scalars), walked no further than that. */
function holdsAtMost(root: unknown, limit: number): boolean {
  const stack: unknown[] = [root];
  let seen = 0;
  while (stack.length > 0) {
    if (++seen > limit) return false;
    const value = stack.pop();
    if (value !== null && typeof value === 'object') for (const child of Object.values(value)) stack.push(child);
  }
  return true;
}

const cut = (text: string) => (text.length > maxErrorTextLength ? `${text.slice(0, maxErrorTextLength)}…` : text);

/**
 * A union of literals fails as one `const` error per value and then an `anyOf`: they become one `enum` error, so
 * that the message names the allowed values.
 */
function withUnionsNamed(errors: ErrorObject[]): ErrorObject[] {
  const out: ErrorObject[] = [];
  for (const e of errors) {
    const branch = `${e.schemaPath}/`;
    const consts = e.keyword === 'anyOf' ? out.filter((c) => c.keyword === 'const' && c.instancePath === e.instancePath && c.schemaPath.startsWith(branch)) : [];
    if (consts.length === 0) {
      out.push(e);
      continue;
    }
    const first = out.indexOf(consts[0]);
    const rest = out.filter((c) => !consts.includes(c));
    rest.splice(first, 0, { ...e, keyword: 'enum', params: { allowedValues: consts.map((c) => c.params.allowedValue) } });
    out.splice(0, out.length, ...rest);
  }
  return out;
}

function toFieldError(e: ErrorObject, where: Where, value: unknown): FieldError {
  if (e.keyword === 'required') {
    return { path: `${e.instancePath}/${e.params.missingProperty}`, message: 'is required', in: where };
  }
  if (e.keyword === 'additionalProperties') {
    const name = e.params.additionalProperty;
    return { path: `${e.instancePath}/${name}`, message: where === 'body' ? 'is not an allowed field' : 'is not a known parameter', in: where };
  }
  if (e.keyword === 'format' && e.params.format === 'slug') {
    return { path: e.instancePath || '/', message: notASlug(valueAt(value, e.instancePath)), in: where };
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

/** The value a JSON pointer names (undefined when nothing is there). */
export function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const key of pointer.split('/').slice(1)) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return value;
}

/**
 * Validates one part of a request against its schema, applying defaults and (for text parts)
 * coercions in place, so `value` must be the caller's own copy; returns it validated or throws a 400
 * listing the invalid fields (at most maxListedErrors of them, and how many more there were).
 */
export function validatePart<T>(schema: TSchema, value: unknown, where: Where): T {
  if (validatorFor(schema, where, false)(value)) return value as T;
  const thorough = holdsAtMost(value, maxValuesForAllErrors);
  const validate = validatorFor(schema, where, thorough);
  validate(value);
  throw invalidPart(withUnionsNamed(validate.errors ?? []).map((e) => toFieldError(e, where, value)), where, thorough);
}

/** Items of a large array validated between two turns of the event loop. */
const itemSlice = 500;

/**
 * validatePart for a large body, a slice at a time: each array of an object schema (`properties` whose schema
 * has `items`) is checked item by item, letting other requests in between slices, and the rest of the body once
 * without those items. The first error found is the answer, as for any large value.
 */
export async function validateLargePart<T>(schema: TSchema, value: unknown): Promise<T> {
  const error = await firstErrorInSlices(schema, value, '');
  // Large in bytes but few in values (a long text): its errors are listed as for any small value.
  if (error && holdsAtMost(value, maxValuesForAllErrors)) validatePart(schema, value, 'body');
  if (error) throw invalidPart([error], 'body', false);
  return value as T;
}

/** A schema as a large body is checked: the whole without its arrays' items, then each array's items. */
interface Sliced {
  whole: ValidateFunction;
  arrays: { name: string; items: TSchema }[];
}

const sliced = new WeakMap<TSchema, Sliced>();

/** The sliced form of an object schema (compiled once, at start-up through prepareValidators). */
function slicedOf(schema: TSchema): Sliced {
  let found = sliced.get(schema);
  if (!found) {
    const names = schema.type === 'object' && schema.properties ? Object.keys(schema.properties).filter((name) => schema.properties[name].items) : [];
    const properties = { ...schema.properties };
    for (const name of names) properties[name] = { ...properties[name], items: {} };
    const whole = validatorFor(names.length ? { ...schema, properties } : schema, 'body', false);
    found = { whole, arrays: names.map((name) => ({ name, items: schema.properties[name].items as TSchema })) };
    sliced.set(schema, found);
    for (const { items } of found.arrays) slicedOf(items);
  }
  return found;
}

async function firstErrorInSlices(schema: TSchema, value: unknown, at: string): Promise<FieldError | undefined> {
  const { whole, arrays } = slicedOf(schema);
  if (!whole(value)) {
    const error = toFieldError(whole.errors![0], 'body', value);
    return { ...error, path: `${at}${error.path === '/' ? '' : error.path}` || '/' };
  }
  for (const { name, items: itemSchema } of arrays) {
    const items = (value as Record<string, unknown>)[name];
    if (!Array.isArray(items)) continue;
    for (let i = 0; i < items.length; i++) {
      if (i % itemSlice === 0) await yieldToEventLoop();
      const error = await firstErrorInSlices(itemSchema, items[i], `${at}/${name}/${i}`);
      if (error) return error;
    }
  }
  return undefined;
}

/** The 400 for a part's errors: duplicates dropped, long texts cut, at most maxListedErrors listed. */
function invalidPart(errors: FieldError[], where: Where, thorough: boolean): AppError {
  const seen = new Set<string>();
  const unique: FieldError[] = [];
  for (const error of errors) {
    const key = `${error.path}\u0000${error.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push({ ...error, path: cut(error.path), message: cut(error.message) });
  }
  const listed = unique.slice(0, maxListedErrors);
  const first = listed[0];
  const detail = where === 'body' && first.path === '/' ? `The request body ${first.message}` : `${where === 'body' ? 'Field' : 'Parameter'} '${first.path.slice(1)}' ${first.message}`;
  const more = unique.length - 1;
  const tail = !thorough ? ' (the value is too large to look for further errors; fix this one and send it again)' : more > 0 ? ` (and ${more} more)` : '';
  return new AppError('invalid_request', `${detail}${tail}`, { errors: listed });
}

/** For response checking in tests: returns the problems, or null when the value matches. */
export function responseProblems(schema: TSchema, value: unknown): string | null {
  const validate = compileWith(responseAjv, schema);
  return validate(value) ? null : responseAjv.errorsText(validate.errors);
}

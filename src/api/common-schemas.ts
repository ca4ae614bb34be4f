import { type Static, type TLiteral, type TObject, type TSchema, type TUnion, Type } from '@sinclair/typebox';
import { roles } from '../auth/caller.js';
import { maxSlugLength } from './slug.js';

/** Schema pieces shared by several components. Their limits are the ones docs/api.md documents. */

const nameKey = Symbol('OpenAPI schema name');
const namedSchemas = new Map<string, TSchema>();

/**
 * Names a schema shared by several operations: the OpenAPI document lists it once under components.schemas and
 * refers to it by `$ref` wherever it appears (src/http/openapi.ts), so the SDK exports it as a type of that name.
 * The name is a symbol key, which ajv and JSON never see and which the copies TypeBox makes (Type.Optional, a
 * spread into options) carry along; openapi.ts refers to the name only where a copy still says what the original says.
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  const taken = namedSchemas.get(name);
  if (taken && taken !== schema) throw new Error(`Two schemas are named ${name}`);
  namedSchemas.set(name, schema);
  return Object.assign(schema, { [nameKey]: name });
}

/** The name a schema (or a copy of it) was given by `named`, and the schema so named. */
export function nameOf(schema: object): { name: string; original: TSchema } | undefined {
  const name = (schema as { [nameKey]?: string })[nameKey];
  return name === undefined ? undefined : { name, original: namedSchemas.get(name)! };
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A union of string literals whose static type is the union of the values. */
export const literals = <T extends string>(values: readonly T[], options: object = {}) =>
  Type.Union(values.map((v) => Type.Literal(v)), options) as unknown as TUnion<TLiteral<T>[]>;

export const Id = (description = 'Opaque id with a type prefix') => Type.String({ minLength: 1, maxLength: 100, description });
export const Timestamp = named('Timestamp', Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' }));
export const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);
export const Title = Type.String({ minLength: 1, maxLength: 200 });
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const Summary = Type.String({ maxLength: 2000 });
export const Description = Type.String({ maxLength: 2000 });
export const Label = Type.String({ maxLength: 100 });
export const Slug = named('Slug', Type.String({
  minLength: 1,
  maxLength: maxSlugLength,
  // A format rather than a pattern: the rule needs Unicode classes and NFC, which pattern dialects outside
  // JavaScript read differently or not at all (src/api/slug.ts holds it; validation.ts registers it).
  format: 'slug',
  description: 'Lowercase letters and digits of any script (with their combining marks) in Unicode NFC, as words joined by single hyphens; percent-encoded in a URL',
}));
export const RoleSchema = named('Role', literals(roles));

/** An object schema that refuses unknown fields (every request body and query). */
export const Strict = <T extends Parameters<typeof Type.Object>[0]>(properties: T, options: object = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const WorkspacePath = Strict({ workspaceId: Id('Workspace id') });

export const Pagination = named('Pagination', Type.Object({
  page: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  total: Type.Integer({ minimum: 0 }),
}));
export type Pagination = Static<typeof Pagination>;

/**
 * `page` and `limit` query parameters, shared by every paginated list. `page` is bounded so that the
 * offset it gives, (page - 1) × limit, stays an integer Neo4j accepts (the list statements slice by it); a
 * page past the end is a 200 with no items.
 */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
};

export const Order = Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc' });

export const Problem = named('Problem', Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String({ description: 'stable snake_case error code' }),
    instance: Type.Optional(Type.String()),
    errors: Type.Optional(
      Type.Array(Type.Object({ path: Type.String({ description: 'JSON pointer' }), message: Type.String(), in: Type.Optional(Type.String()) })),
    ),
  },
  { description: 'RFC 9457 problem details' },
));

/** An object schema's properties without some of them: another input built from it keeps one description of each field. */
export function propertiesWithout<T extends TObject>(schema: T, ...names: string[]): Record<string, TSchema> {
  return Object.fromEntries(Object.entries(schema.properties).filter(([name]) => !names.includes(name)));
}

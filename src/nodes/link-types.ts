/**
 * The link types of the API and the relationship type each is stored as (docs/graph-model.md): named here and
 * nowhere else. Cypher gets them as parameters (`linkTypeParams`); a relationship type never reaches the text.
 */
export const relationshipTypeOf = {
  requires: 'REQUIRES',
  references: 'REFERENCES',
  'relates-to': 'RELATES_TO',
  supersedes: 'SUPERSEDES',
  'index-entry': 'INDEX_ENTRY',
} as const;

export type LinkType = keyof typeof relationshipTypeOf;
export type RelationshipType = (typeof relationshipTypeOf)[LinkType];

export const linkTypes = Object.keys(relationshipTypeOf) as LinkType[];

/**
 * The parameters every statement that walks or names links gets:
 * - linkRelTypes: the relationship types of links, e.g. for `type(r) IN $linkRelTypes`;
 * - linkTypeOf: relationship type → API name, e.g. `$linkTypeOf[type(r)]`.
 */
export const linkTypeParams = {
  linkRelTypes: Object.values(relationshipTypeOf) as RelationshipType[],
  linkTypeOf: Object.fromEntries(linkTypes.map((t) => [relationshipTypeOf[t], t])) as Record<RelationshipType, LinkType>,
} as const;

import neo4j, { isDate, isDateTime, isDuration, isInt, isLocalDateTime, isLocalTime, isNode, isPath, isPoint, isRelationship, isTime } from 'neo4j-driver';

/**
 * Neo4j values as JSON: nodes as {elementId, labels, properties}, relationships as {elementId, type,
 * startElementId, endElementId, properties}, paths as {nodes, relationships}, temporal values and durations as
 * their ISO 8601 strings, points as {srid, x, y, z?}, byte arrays as base64, integers as numbers when they fit
 * a double exactly and as decimal strings when they do not, non-finite floats as strings.
 */
export function toJson(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (isInt(value)) return neo4j.integer.inSafeRange(value) ? value.toNumber() : value.toString();
  if (Array.isArray(value)) return value.map(toJson);
  if (isNode(value)) return { elementId: value.elementId, labels: value.labels, properties: mapValues(value.properties) };
  if (isRelationship(value)) {
    return { elementId: value.elementId, type: value.type, startElementId: value.startNodeElementId, endElementId: value.endNodeElementId, properties: mapValues(value.properties) };
  }
  if (isPath(value)) {
    return { nodes: [value.start, ...value.segments.map((s) => s.end)].map(toJson), relationships: value.segments.map((s) => toJson(s.relationship)) };
  }
  if (isDate(value) || isDateTime(value) || isLocalDateTime(value) || isTime(value) || isLocalTime(value) || isDuration(value)) return value.toString();
  if (isPoint(value)) {
    const { srid, x, y, z } = value;
    return { srid: toJson(srid), x, y, ...(z === undefined ? {} : { z }) };
  }
  if (value instanceof Uint8Array || value instanceof Int8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  if (typeof value === 'object') return mapValues(value as Record<string, unknown>);
  return String(value);
}

function mapValues(map: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, toJson(v)]));
}

/**
 * JSON parameters as Neo4j values: JSON has one number type and the driver sends every JS number as a float,
 * so a whole number becomes an integer (what `LIMIT $n` or an id comparison needs).
 */
export function fromJson(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? neo4j.int(value) : value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fromJson(v)]));
  return value;
}

import neo4j, { isDate, isDateTime, isDuration, isInt, isLocalDateTime, isLocalTime, isNode, isPath, isPoint, isRelationship, isTime } from 'neo4j-driver';

/**
 * A Neo4j value as JSON, with the bytes its JSON text takes (UTF-8), or undefined as soon as that passes `budget`:
 * the walk stops there, so measuring a value costs at most its budget however large the value is, and the value
 * is never serialised to be measured.
 *
 * Nodes become {elementId, labels, properties}, relationships {elementId, type, startElementId, endElementId,
 * properties}, paths {nodes, relationships}, temporal values and durations their ISO 8601 strings, points
 * {srid, x, y, z?}, byte arrays base64, integers numbers when they fit a double exactly and decimal strings when
 * they do not, non-finite floats strings.
 */
export function toJsonWithin(value: unknown, budget: number): { json: unknown; bytes: number } | undefined {
  const meter = new JsonMeter(budget);
  try {
    const json = meter.convert(value);
    return { json, bytes: meter.bytes };
  } catch (err) {
    if (err === overBudget) return undefined;
    throw err;
  }
}

const overBudget = Symbol('over budget');

class JsonMeter {
  bytes = 0;

  constructor(private readonly budget: number) {}

  convert(value: unknown): unknown {
    if (value === null || value === undefined) return this.scalar(null, 4);
    if (typeof value === 'string') return this.string(value);
    if (typeof value === 'boolean') return this.scalar(value, value ? 4 : 5);
    if (typeof value === 'number') return Number.isFinite(value) ? this.scalar(value, String(value).length) : this.string(String(value));
    if (typeof value === 'bigint') return this.convert(Number.isSafeInteger(Number(value)) ? Number(value) : value.toString());
    if (isInt(value)) return this.convert(neo4j.integer.inSafeRange(value) ? value.toNumber() : value.toString());
    if (Array.isArray(value)) return this.list(value);
    if (isNode(value)) return this.map({ elementId: value.elementId, labels: value.labels, properties: value.properties });
    if (isRelationship(value)) {
      return this.map({ elementId: value.elementId, type: value.type, startElementId: value.startNodeElementId, endElementId: value.endNodeElementId, properties: value.properties });
    }
    if (isPath(value)) return this.map({ nodes: [value.start, ...value.segments.map((s) => s.end)], relationships: value.segments.map((s) => s.relationship) });
    if (isDate(value) || isDateTime(value) || isLocalDateTime(value) || isTime(value) || isLocalTime(value) || isDuration(value)) return this.string(value.toString());
    if (isPoint(value)) {
      const { srid, x, y, z } = value;
      return this.map({ srid, x, y, ...(z === undefined ? {} : { z }) });
    }
    if (value instanceof Uint8Array || value instanceof Int8Array) {
      // Counted before the base64 text exists, so an oversized byte array is never encoded.
      this.add(4 * Math.ceil(value.byteLength / 3) + 2);
      return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
    }
    if (typeof value === 'object') return this.map(value as Record<string, unknown>);
    return this.string(String(value));
  }

  private add(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes > this.budget) throw overBudget;
  }

  private scalar<T>(value: T, bytes: number): T {
    this.add(bytes);
    return value;
  }

  private string(text: string): string {
    // Every UTF-16 unit takes at least a byte, so a string longer than what is left is over without a scan.
    if (text.length > this.budget - this.bytes) throw overBudget;
    this.add(jsonStringBytes(text));
    return text;
  }

  private list(items: unknown[]): unknown[] {
    this.add(items.length === 0 ? 2 : items.length + 1);
    const out: unknown[] = [];
    for (const item of items) out.push(this.convert(item));
    return out;
  }

  private map(map: Record<string, unknown>): Record<string, unknown> {
    const keys = Object.keys(map);
    this.add(keys.length === 0 ? 2 : keys.length + 1);
    const entries: [string, unknown][] = [];
    for (const key of keys) {
      this.add(jsonStringBytes(key) + 1);
      entries.push([key, this.convert(map[key])]);
    }
    // fromEntries keeps a key such as `__proto__` as an own property, as JSON.parse would.
    return Object.fromEntries(entries);
  }
}

const escapedOrSurrogate = /[\u0000-\u001f"\\\ud800-\udfff]/;
const shortEscapes = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/** The UTF-8 bytes of JSON.stringify(text), quotes included, without making it. */
export function jsonStringBytes(text: string): number {
  if (!escapedOrSurrogate.test(text)) return Buffer.byteLength(text, 'utf8') + 2;
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) bytes += shortEscapes.has(c) ? 2 : 6;
    else if (c === 0x22 || c === 0x5c) bytes += 2;
    else if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff) bytes += 6; // a lone surrogate, which JSON.stringify escapes
    else bytes += 3;
  }
  return bytes;
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

import { isIP } from 'node:net';
import { AppError } from '../errors.js';
import { guardRedis, type RedisClient } from '../infra/redis.js';

const hourMs = 3_600_000;
/** A window's counter outlives its hour by one more. */
const counterSeconds = 2 * 3600;

/**
 * Who a registration is counted against: an IPv4 address as it is, an IPv6 one by its /64 (one subscriber's
 * network, any of whose addresses a client there may use).
 */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return mapped;
  const bare = address.split('%')[0];
  if (isIP(bare) !== 6) return address;
  // An embedded IPv4 address holds the last two groups, which the /64 drops anyway.
  const groupsOf = (part: string) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : []);
  const [head, tail] = bare.split('::');
  const before = groupsOf(head);
  const after = tail === undefined ? [] : groupsOf(tail);
  const groups = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  return `${groups.slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** The registrations counted from one address (its bucket) in one clock hour; the bucket is the key's hash tag. */
const registrationsKey = (bucket: string, hour: number) => `{${bucket}}:oauth:registrations:${hour}`;

/**
 * Open registration (RFC 7591) bounded per client address, as the gate bounds requests per key: a counter per
 * address and clock hour in Redis, shared by every API process; past the limit 429 rate_limited with Retry-After
 * (the hour's end). Every attempt counts, refused ones too: each costs the service a look at its metadata.
 */
export class RegistrationLimit {
  constructor(
    private readonly redis: RedisClient,
    private readonly perHour: number,
    private readonly clock: () => Date,
  ) {}

  async admit(address: string): Promise<void> {
    const now = this.clock().getTime();
    const key = registrationsKey(addressBucket(address), Math.floor(now / hourMs));
    const count = await guardRedis(async () => {
      const counted = await this.redis.incr(key);
      await this.redis.expire(key, counterSeconds);
      return counted;
    });
    if (count <= this.perHour) return;
    const retryAfter = Math.max(1, Math.ceil((hourMs - (now % hourMs)) / 1000));
    throw new AppError('rate_limited', `More than ${this.perHour} client registrations an hour from this address`, {
      headers: { 'Retry-After': String(retryAfter) },
    });
  }
}

import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Secrets kept in Neo4j (webhook signing secrets, the authorization server's keys) are sealed (AES-256-GCM),
 * because the graph is readable by more than the API: the analysts' ad-hoc Cypher reads every node. The key is
 * SECRETS_KEY (or its older name WEBHOOK_SECRETS_KEY: any high-entropy text, the same for every API process), or
 * else a random key kept in DATA_DIR/webhook-secrets.key (0600), made on first use: enough for one machine's
 * processes, which share that directory. The file keeps its name so that an installation keeps its key.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static fromConfig(config: { secretsKey?: string; dataDir: string }): SecretBox {
    if (config.secretsKey) return new SecretBox(createHash('sha256').update(config.secretsKey).digest());
    const file = path.resolve(config.dataDir, 'webhook-secrets.key');
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      // 'wx': when two processes start at once, the second keeps the first one's key.
      try {
        writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      chmodSync(file, 0o600);
    }
    return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** The secret; throws when it was sealed under another key (the delivery then fails and is retried). */
  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split('.');
    if (version !== 'v1' || !sealed) throw new Error('The secret is not sealed in a known format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  }
}

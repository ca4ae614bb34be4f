import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SecretBox } from '../../src/infra/secret-box.js';

describe('sealed webhook secrets', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

  it('open what they sealed, differently each time, and refuse another key', () => {
    const box = SecretBox.fromConfig({ secretsKey: 'a-key-of-at-least-thirty-two-characters', dataDir: 'unused' });
    const [one, two] = [box.seal(secret), box.seal(secret)];
    expect(one).to.not.equal(two);
    expect(box.open(one)).to.equal(secret);
    const other = SecretBox.fromConfig({ secretsKey: 'another-key-of-at-least-thirty-two-chars', dataDir: 'unused' });
    expect(() => other.open(one)).to.throw();
    expect(() => box.open(secret)).to.throw(/not sealed/);
  });

  it('without SECRETS_KEY keep a key of their own in the data directory, readable by its owner only, and reuse it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'secret-box-'));
    try {
      const sealed = SecretBox.fromConfig({ dataDir }).seal(secret);
      const file = path.join(dataDir, 'webhook-secrets.key');
      expect(statSync(file).mode & 0o777).to.equal(0o600);
      expect(SecretBox.fromConfig({ dataDir }).open(sealed)).to.equal(secret);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

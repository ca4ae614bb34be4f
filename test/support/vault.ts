import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A small vault written for a test: file path → text, in a new temporary folder (its path is returned). */
export function writeVault(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vault-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

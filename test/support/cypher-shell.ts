import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analystToken, env } from './harness.js';

/**
 * Runs the Cypher shell against the run's API, as an analyst would from a terminal: by default the repository's
 * (`npm run cypher`, its sources under tsx), or the command given (an installed `playbooks-cypher`). Its HOME is a
 * folder of its own, so its history file is thrown away.
 */
export async function shell(args: string[], input?: string, command: string[] = [process.execPath, '--import', 'tsx', 'src/cypher-shell.ts']): Promise<{ stdout: string; stderr: string; code: number }> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'cypher-shell-'));
  try {
    const child = execFile(command[0], [...command.slice(1), ...args], {
      env: { ...process.env, ANALYST_TOKEN: analystToken, API_URL: env.service.url, HOME: home },
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
    return { stdout, stderr, code };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

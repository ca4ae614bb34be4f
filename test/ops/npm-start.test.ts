import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../src/infra/local-deps.js';
import { projectRoot } from '../../src/infra/project-root.js';
import { until } from '../support/waits.js';

/**
 * `npm start` as the README runs it, from a shell, with its own Neo4j and redis-server in a data folder of its own:
 * what a supervisor (systemd, a container runtime, a process manager) meets when it signals the PID it started.
 */

const stampFile = path.join(projectRoot, 'dist', 'build-inputs.sha256');
const serverFile = path.join(projectRoot, 'dist', 'src', 'server.js');

interface Started {
  npm: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` in a process group of its own (so that `after` can end whatever it left), on the stores of `dataDir`. */
function npmStart(env: NodeJS.ProcessEnv): Started {
  // The run's own stores and settings are not this start's: it starts its own, as on a fresh machine.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(NEO4J_|REDIS_|EMBEDDINGS|PUBLIC_URL$|PORT$|HOST$|DATA_DIR$|ADMIN_TOKEN$)/.test(k)));
  const npm = spawn('npm', ['start'], { cwd: projectRoot, env: { ...inherited, EMBEDDINGS: 'off', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  npm.stdout!.on('data', (d) => (output += d));
  npm.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
  return { npm, output: () => output, exited };
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The children of a process, none when it has none (ps then exits with 1). */
const childrenOf = (pid: number) => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
  } catch {
    return [];
  }
};

const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);

async function readyz(port: number): Promise<number | 'refused'> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(5_000) })).status;
  } catch {
    return 'refused';
  }
}

describe('npm start, as a supervisor runs it', function () {
  // The first start builds when the sources changed since the last build: minutes on a busy machine.
  this.timeout(15 * 60_000);
  let dataDir: string;
  let port: number;
  let started: Started | undefined;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-'));
    port = await freePort();
  });

  after(async () => {
    // Whatever a failed test left running (before the fix: the API, Neo4j and redis-server), in the group it started.
    if (started?.npm.pid) {
      try {
        process.kill(-started.npm.pid, 'SIGTERM');
        await until('npm start’s processes to end', () => readyz(port), (s) => s === 'refused', 60_000);
      } catch {
        // already gone
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('SIGTERM to the PID npm start gave stops the API, Neo4j and redis-server', async () => {
    started = npmStart({ PORT: String(port), DATA_DIR: dataDir });
    const early = started.exited.then(() => 'exited' as const);
    await until(
      'npm start to answer /readyz',
      async () => (await Promise.race([early, readyz(port)])),
      (s) => {
        if (s === 'exited') throw new Error(`npm start ended before it was ready:\n${started!.output()}`);
        return s === 200;
      },
      12 * 60_000,
    );
    const recorded = JSON.parse(readFileSync(path.join(dataDir, 'endpoints.json'), 'utf8')) as { pid: number; neo4jUri: string; redis: string };
    const parent = parentOf(recorded.pid);
    const stores = childrenOf(recorded.pid);
    expect(stores.length, 'Neo4j and redis-server run under the API').to.be.at.least(2);
    // The start-up log names the address PUBLIC_URL defaults to.
    const listening = started.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => l.msg === 'listening');
    expect(listening).to.include({ url: `http://localhost:${port}`, docs: `http://localhost:${port}/docs`, port });

    process.kill(started.npm.pid!, 'SIGTERM');
    const ended = await Promise.race([started.exited, new Promise<undefined>((r) => setTimeout(r, 60_000))]);
    expect(ended, `npm start did not end within 60 s of SIGTERM:\n${started.output()}`).not.to.equal(undefined);
    await until('/readyz to stop answering', () => readyz(port), (s) => s === 'refused', 10_000);
    for (const pid of [recorded.pid, ...stores]) {
      await until(`process ${pid} to end`, () => isRunning(pid), (running) => !running, 10_000);
    }
    expect(started.output()).to.include('"msg":"stopped"');
    // Nothing between npm and the API: the signal npm forwards reaches it.
    expect(parent, 'the API is npm’s own child').to.equal(started.npm.pid);
  });

  it('SIGTERM while it is still starting stops the servers it has started so far', async () => {
    const ownDir = mkdtempSync(path.join(os.tmpdir(), 'npm-start-early-'));
    const ownPort = await freePort();
    const early = npmStart({ PORT: String(ownPort), DATA_DIR: ownDir });
    try {
      // Neo4j starts first, then redis-server; the migrations of a fresh store follow, before the API listens.
      const api = await until('the API process', () => childrenOf(early.npm.pid!)[0], 60_000);
      const commandOf = (pid: number) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          return ''; // ended meanwhile
        }
      };
      const servers = await until('redis-server beside Neo4j under the API', () => {
        const children = childrenOf(api).filter(isRunning);
        return children.some((pid) => commandOf(pid).startsWith('redis-server')) ? children : undefined;
      }, 12 * 60_000);
      expect(await readyz(ownPort), 'signalled before it is ready').not.to.equal(200);
      process.kill(early.npm.pid!, 'SIGTERM');
      const ended = await Promise.race([early.exited, new Promise<undefined>((r) => setTimeout(r, 60_000))]);
      expect(ended, `npm start did not end within 60 s of SIGTERM:\n${early.output()}`).not.to.equal(undefined);
      for (const pid of [api, ...servers]) {
        await until(`process ${pid} to end`, () => isRunning(pid), (running) => !running, 15_000);
      }
    } finally {
      try {
        process.kill(-early.npm.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      rmSync(ownDir, { recursive: true, force: true });
    }
  });

  it('a second start of the unchanged checkout does not build again', async () => {
    const stampBefore = statSync(stampFile).mtimeMs;
    const serverBefore = statSync(serverFile).mtimeMs;
    // A PORT the configuration refuses: the process ends right after the build step, without starting any store.
    const again = npmStart({ PORT: 'eighty', DATA_DIR: dataDir });
    const ended = await again.exited;
    expect(again.output()).to.include('npm start: the build is up to date with the sources, not rebuilding');
    expect(again.output()).to.match(/Invalid configuration: .*PORT/);
    expect(ended.code).to.equal(1);
    expect(statSync(stampFile).mtimeMs).to.equal(stampBefore);
    expect(statSync(serverFile).mtimeMs).to.equal(serverBefore);
  });
});

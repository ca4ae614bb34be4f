import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { HostPort } from '../../src/config.js';
import { freePort, stopChild, waitForLine } from '../../src/infra/local-deps.js';

const run = promisify(execFile);

/** One redis-server on loopback, in a folder of its own (cluster nodes keep their nodes.conf there). */
async function server(dir: string, port: number, extra: string[]): Promise<ChildProcess> {
  mkdirSync(dir, { recursive: true });
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForLine(child, /Ready to accept connections|Sentinel ID is/, `redis-server on ${port}`, 30_000);
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

async function cli(port: number, ...args: string[]): Promise<string> {
  return (await run('redis-cli', ['-p', String(port), ...args])).stdout;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface RedisClusterServers {
  /** Every master and replica. */
  nodes: HostPort[];
  /** The same, as REDIS_CLUSTER_NODES takes them. */
  nodesSetting: string;
  ports: number[];
  /** Stops the master that holds `key`'s slot, without saving, and waits until its replica took over. */
  killMasterOf(key: string): Promise<void>;
  stop(): Promise<void>;
}

/** A Redis Cluster of `masters` masters with one replica each, as `redis-cli --cluster create` makes it. */
export async function startRedisCluster(dataDir: string, masters = 3): Promise<RedisClusterServers> {
  const ports: number[] = [];
  for (let i = 0; i < masters * 2; i++) ports.push(await freePort());
  const children = new Map<number, ChildProcess>();
  await Promise.all(ports.map(async (port) => {
    children.set(port, await server(path.join(dataDir, `cluster-${port}`), port, ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000']));
  }));
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
  await until('the cluster to be ok', async () => ports.every(Boolean) && /cluster_state:ok/.test(await cli(ports[0], 'cluster', 'info')));
  const live = () => ports.filter((p) => children.has(p));
  return {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    nodesSetting: ports.map((p) => `127.0.0.1:${p}`).join(','),
    ports,
    async killMasterOf(key) {
      const slot = (await cli(live()[0], 'cluster', 'keyslot', key)).trim();
      const shards = await cli(live()[0], 'cluster', 'nodes');
      const owner = shards.split('\n').find((line) => / master /.test(` ${line} `.replace(/,/g, ' ')) && line.split(' ').slice(8).some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return Number(slot) >= from && Number(slot) <= to;
      }));
      const port = Number(/:(\d+)@/.exec(owner ?? '')?.[1]);
      const child = children.get(port);
      if (!child) throw new Error(`no master found for slot ${slot}`);
      children.delete(port);
      child.kill('SIGKILL');
      await until('a replica to take the slot over', async () => {
        const info = await cli(live()[0], 'cluster', 'info');
        return /cluster_state:ok/.test(info) && !(await cli(live()[0], 'cluster', 'nodes')).split('\n').some((l) => l.includes(`:${port}@`) && / master /.test(l) && !/fail/.test(l));
      });
    },
    async stop() {
      await Promise.all([...children.values()].map((child) => stopChild(child)));
      children.clear();
    },
  };
}

export interface RedisSentinelServers {
  sentinels: HostPort[];
  /** The same, as REDIS_SENTINELS takes them. */
  sentinelsSetting: string;
  name: string;
  masterPort: number;
  /** Stops the master without saving and waits until the sentinels promoted the replica. */
  killMaster(): Promise<void>;
  stop(): Promise<void>;
}

/** One master, one replica and three sentinels watching them (quorum two). */
export async function startRedisSentinel(dataDir: string, name = 'playbooks'): Promise<RedisSentinelServers> {
  const [masterPort, replicaPort, ...sentinelPorts] = await Promise.all([1, 2, 3, 4, 5].map(() => freePort()));
  const children: ChildProcess[] = [];
  const master = await server(path.join(dataDir, `master-${masterPort}`), masterPort, []);
  children.push(master, await server(path.join(dataDir, `replica-${replicaPort}`), replicaPort, ['--replicaof', '127.0.0.1', String(masterPort)]));
  for (const port of sentinelPorts) {
    const dir = path.join(dataDir, `sentinel-${port}`);
    mkdirSync(dir, { recursive: true });
    // A sentinel rewrites its configuration file, so each gets one of its own.
    const conf = path.join(dir, 'sentinel.conf');
    writeFileSync(conf, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
    ].join('\n'));
    const child = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'pipe'] });
    await waitForLine(child, /Sentinel ID is|monitor master/, `sentinel on ${port}`, 30_000);
    child.stdout?.resume();
    child.stderr?.resume();
    children.push(child);
  }
  await until('the sentinels to see the replica', async () => /num-slaves\n1/.test(await cli(sentinelPorts[0], 'sentinel', 'master', name)));
  return {
    sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
    sentinelsSetting: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    name,
    masterPort,
    async killMaster() {
      master.kill('SIGKILL');
      children.splice(children.indexOf(master), 1);
      await until('the sentinels to promote the replica', async () => (await cli(sentinelPorts[0], 'sentinel', 'get-master-addr-by-name', name)).includes(String(replicaPort)));
    },
    async stop() {
      await Promise.all(children.map((child) => stopChild(child)));
    },
  };
}

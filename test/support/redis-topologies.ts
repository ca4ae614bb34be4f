import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { HostPort } from '../../src/config.js';
import { type RedisServer, freePort, startRedisServer } from '../../src/infra/local-deps.js';

const run = promisify(execFile);

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
  const servers = new Map<number, RedisServer>();
  await Promise.all(ports.map(async (port) => {
    const args = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', '1000'];
    servers.set(port, await startRedisServer({ port, dir: path.join(dataDir, `cluster-${port}`), args }));
  }));
  await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes']);
  await until('the cluster to be ok', async () => ports.every(Boolean) && /cluster_state:ok/.test(await cli(ports[0], 'cluster', 'info')));
  const live = () => ports.filter((p) => servers.has(p));
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
      const master = servers.get(port);
      if (!master) throw new Error(`no master found for slot ${slot}`);
      servers.delete(port);
      master.kill();
      await until('a replica to take the slot over', async () => {
        const info = await cli(live()[0], 'cluster', 'info');
        return /cluster_state:ok/.test(info) && !(await cli(live()[0], 'cluster', 'nodes')).split('\n').some((l) => l.includes(`:${port}@`) && / master /.test(l) && !/fail/.test(l));
      });
    },
    async stop() {
      await Promise.all([...servers.values()].map((server) => server.stop()));
      servers.clear();
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
  const master = await startRedisServer({ port: masterPort, dir: path.join(dataDir, `master-${masterPort}`) });
  const servers: RedisServer[] = [master, await startRedisServer({ port: replicaPort, dir: path.join(dataDir, `replica-${replicaPort}`), args: ['--replicaof', '127.0.0.1', String(masterPort)] })];
  for (const port of sentinelPorts) {
    servers.push(await startRedisServer({
      port,
      dir: path.join(dataDir, `sentinel-${port}`),
      sentinel: [
        `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
      ],
    }));
  }
  await until('the sentinels to see the replica', async () => /num-slaves\n1/.test(await cli(sentinelPorts[0], 'sentinel', 'master', name)));
  return {
    sentinels: sentinelPorts.map((port) => ({ host: '127.0.0.1', port })),
    sentinelsSetting: sentinelPorts.map((p) => `127.0.0.1:${p}`).join(','),
    name,
    masterPort,
    async killMaster() {
      master.kill();
      servers.splice(servers.indexOf(master), 1);
      await until('the sentinels to promote the replica', async () => (await cli(sentinelPorts[0], 'sentinel', 'get-master-addr-by-name', name)).includes(String(replicaPort)));
    },
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
    },
  };
}

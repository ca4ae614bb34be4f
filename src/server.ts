import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.js';
import { MissingToolError, stopStartedServers } from './infra/local-deps.js';
import { type RunningService, createLogger, startService } from './runtime.js';

/** `npm start`: configuration, the stores, migrations, the API, and a clean stop on Ctrl-C or SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  let service: RunningService | undefined;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Still starting: nothing serves yet, but the servers started so far must not outlive this process.
    await (service ? service.stop() : stopStartedServers());
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    service = await startService(config, logger);
  } catch (err) {
    // A start-up cut short by the signal: shutdown() ends the process once the servers are stopped.
    if (stopping) return new Promise<never>(() => {});
    throw err;
  }
  // The address as clients and the OAuth issuer name it (PUBLIC_URL, by default localhost), not the socket's; with
  // PORT=0 the default names the port the kernel chose.
  const { port } = service.server.address() as AddressInfo;
  const url = config.publicUrl === `http://localhost:${config.port}` ? `http://localhost:${port}` : config.publicUrl;
  logger.info({ url, docs: `${url}/docs`, host: config.host, port }, 'listening');
  if (!config.adminToken) logger.warn('ADMIN_TOKEN is not set: the admin API is off; use `npm run cli` to make users and keys');
}

main().catch((err) => {
  if (err instanceof ConfigError || err instanceof MissingToolError) {
    process.stderr.write(`${err.message}\n`);
  } else {
    process.stderr.write(`Start-up failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  }
  process.exit(1);
});

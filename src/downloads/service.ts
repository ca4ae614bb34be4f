import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { AppError } from '../errors.js';
import { projectRoot, serviceVersion } from '../infra/project-root.js';
import { packPackage } from './packer.js';

/** The npm packages the service serves for download, by file name, with the folder of each in the checkout. */
export const downloads = {
  'playbooks-client.tgz': 'sdk',
  'playbooks-mcp.tgz': 'packages/playbooks-mcp',
  'playbooks-cypher.tgz': 'packages/playbooks-cypher',
} as const;
export type DownloadName = keyof typeof downloads;


/** Where `npm run build` writes the packed packages (scripts/pack-downloads.ts), which a built process serves. */
export const builtDownloadsDir = path.join(projectRoot, 'dist', 'downloads');

// A process started from the sources (tsx: the tests) packs them itself, so it never serves an older build's package.
const fromSources = import.meta.url.endsWith('.ts');

/** Packs one package of the checkout, stamped with the service's version. */
export function packDownload(name: DownloadName): Promise<Buffer> {
  return packPackage(path.join(projectRoot, downloads[name]), serviceVersion);
}

/** Writes every package into `dir`, as the build does. */
export async function writeDownloads(dir = builtDownloadsDir): Promise<{ name: DownloadName; bytes: number }[]> {
  await mkdir(dir, { recursive: true });
  return Promise.all(
    (Object.keys(downloads) as DownloadName[]).map(async (name) => {
      const tarball = await packDownload(name);
      await writeFile(path.join(dir, name), tarball);
      return { name, bytes: tarball.length };
    }),
  );
}

async function load(name: DownloadName, logger: Logger): Promise<Buffer> {
  const built = path.join(builtDownloadsDir, name);
  if (!fromSources && existsSync(built)) return readFile(built);
  if (!existsSync(path.join(projectRoot, downloads[name], 'package.json'))) {
    throw new AppError('not_found', 'The package is not built: run npm run build');
  }
  try {
    return await packDownload(name);
  } catch (err) {
    logger.error({ err, download: name }, 'packing a download failed');
    throw new AppError('service_unavailable', 'The package could not be packed', { headers: { 'Retry-After': '30' } });
  }
}

/**
 * Each package once per process, kept in memory (the files do not change under a running process): requests that
 * arrive while it is packed wait for the same work. A failure is not kept, so the next request tries again.
 */
const tarballs = new Map<DownloadName, Promise<Buffer>>();

export function tarballOf(name: DownloadName, logger: Logger): Promise<Buffer> {
  let tarball = tarballs.get(name);
  if (!tarball) {
    tarball = load(name, logger);
    tarballs.set(name, tarball);
    tarball.catch(() => tarballs.delete(name));
  }
  return tarball;
}

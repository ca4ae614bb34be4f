import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type FolderImportOptions, type FolderImportReport, importFolder } from '../../src/shell/import-folder.js';
import type { TestWorkspace } from './api.js';

/** A small vault written for a test: file path → text, in a new temporary folder (its path is returned). */
export function writeVault(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vault-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * For a describe block whose tests import folders with the CLI's code: the CLI's API_URL points at the run's
 * service while the block runs, and every vault made through the returned function is removed after it.
 */
export function useVaults(serviceUrl: () => string): (files: Record<string, string>) => string {
  const dirs: string[] = [];
  let savedUrl: string | undefined;
  before(() => {
    savedUrl = process.env.API_URL;
    process.env.API_URL = serviceUrl();
  });
  after(() => {
    if (savedUrl === undefined) delete process.env.API_URL;
    else process.env.API_URL = savedUrl;
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (files) => {
    const dir = writeVault(files);
    dirs.push(dir);
    return dir;
  };
}

/**
 * Imports a folder into the workspace with the CLI's code, as its owner: a real run (not a dry run), no prune, not
 * strict, unless `more` says otherwise. The CLI reaches the service at API_URL (see `useVaults`).
 */
export function importFolderInto(workspace: TestWorkspace, dir: string, more: Partial<FolderImportOptions> = {}): Promise<FolderImportReport> {
  return importFolder({ dir, workspaceId: workspace.workspaceId, key: workspace.owner.key, dryRun: false, prune: false, strict: false, ...more });
}

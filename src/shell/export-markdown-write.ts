import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.js';
import { cutToBytes } from './export-markdown-paths.js';

/**
 * The safe write of a markdown export (export-markdown.ts): the folder appears whole or not at all, so that a
 * failed export never leaves files that a folder import would read as the workspace.
 */

/** Longest name of a file or folder, and longest path, in bytes, that file systems take (NAME_MAX, PATH_MAX). */
const nameMaxBytes = 255;
const pathMaxBytes = 4095;

/**
 * Writes `files` as the folder `dir` (new, or empty), whole or not at all: every path is checked before the first file
 * is written (each within the folder, each name and the whole path short enough), the files are written into a new
 * folder beside `dir`, which then takes its place; when anything fails, that folder is removed and `dir` is as it was.
 */
export function writeMarkdownFolder(dir: string, files: readonly { path: string; text: string }[]): void {
  const parent = path.dirname(dir);
  const scratchPrefix = path.join(parent, `.${cutToBytes(path.basename(dir), 100)}.export-`);
  const slack = Buffer.byteLength(scratchPrefix) + 8 - Buffer.byteLength(dir);
  for (const f of files) {
    const full = path.join(dir, ...f.path.split('/'));
    const rel = path.relative(dir, full);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) throw new AppError('invalid_request', `refusing to write ${JSON.stringify(f.path)} outside ${dir}`);
    if (f.path.includes('\0')) throw new AppError('invalid_request', `${JSON.stringify(f.path)} holds a character file systems refuse`);
    const long = rel.split(path.sep).find((part) => Buffer.byteLength(part) > nameMaxBytes);
    if (long !== undefined) throw new AppError('invalid_request', `${JSON.stringify(f.path)} has a name longer than ${nameMaxBytes} bytes, which file systems refuse`);
    if (Buffer.byteLength(full) + Math.max(slack, 0) > pathMaxBytes) throw new AppError('invalid_request', `${full} is longer than ${pathMaxBytes} bytes, which file systems refuse: export into a folder with a shorter path`);
  }
  refuseUsedFolder(dir);
  mkdirSync(parent, { recursive: true });
  const scratch = mkdtempSync(scratchPrefix);
  try {
    for (const f of files) {
      const full = path.join(scratch, ...f.path.split('/'));
      mkdirSync(path.dirname(full), { recursive: true });
      // `wx`: two files of one path would be a fault of the export, not something to overwrite.
      writeFileSync(full, f.text, { flag: 'wx' });
    }
    takePlace(scratch, dir);
  } catch (err) {
    rmSync(scratch, { recursive: true, force: true });
    throw err;
  }
}

/** Moves the written folder to `dir`, which may be there empty (a folder that filled meanwhile is not replaced). */
function takePlace(scratch: string, dir: string): void {
  try {
    renameSync(scratch, dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' && code !== 'ENOTEMPTY' && code !== 'EPERM' && code !== 'EISDIR') throw err;
    refuseUsedFolder(dir);
    rmdirSync(dir);
    renameSync(scratch, dir);
  }
}

export function refuseUsedFolder(dir: string): void {
  let stats;
  try {
    stats = statSync(dir);
  } catch {
    return;
  }
  if (!stats.isDirectory()) throw new AppError('invalid_request', `${dir} exists and is not a folder`);
  if (readdirSync(dir).length) throw new AppError('invalid_request', `${dir} is not empty: export markdown into a new or empty folder`);
}

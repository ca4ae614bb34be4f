/**
 * `npm start`: builds when the sources changed since the last build, then runs the API in this very process.
 *
 * npm runs this script through `sh -c "exec node …"`, so the process npm starts, and forwards SIGTERM and SIGINT
 * to, is this one: a supervisor that signals `npm start`'s PID reaches the API, which stops Neo4j and Redis with it.
 * (A script of two commands joined by `&&` keeps `sh` between them; `sh` dies of the signal and the API runs on.)
 *
 * The build is skipped when a digest of its inputs matches the one written after the last successful build
 * (dist/build-inputs.sha256) and its outputs are there. cypher/ is not an input: the API reads it from the checkout.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { constants } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = path.join(root, 'dist', 'build-inputs.sha256');
const inputDirs = ['src', 'sdk', 'console', 'packages', 'scripts'];
const inputFiles = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const outputs = ['dist/src/server.js', 'dist/console/index.html', 'dist/downloads/playbooks-cypher.tgz'];

/** Every file under dir, sorted, leaving out installed packages, builds and dot-folders. */
function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.') && entry.name !== 'node_modules' && entry.name !== 'dist')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(full);
      return entry.isFile() ? [full] : [];
    });
}

/** The digest of the build's inputs: each file's path and content, so a touched but unchanged file costs no build. */
function inputDigest() {
  const hash = createHash('sha256');
  const files = [...inputFiles.map((f) => path.join(root, f)).filter(existsSync), ...inputDirs.flatMap((d) => filesUnder(path.join(root, d)))];
  for (const file of files) {
    hash.update(path.relative(root, file)).update('\0');
    hash.update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function buildIsCurrent(digest) {
  if (!outputs.every((f) => existsSync(path.join(root, f)))) return false;
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === digest;
}

/**
 * `npm run build` in a process group of its own, so that SIGTERM or Ctrl-C meanwhile stops every step of it
 * (npm, sh, tsc, vite) and not only the first; then this process ends of the same signal.
 */
async function build() {
  const child = spawn('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', detached: true });
  let received;
  const forward = (signal) => {
    received = signal;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the build has just ended
    }
  };
  process.on('SIGTERM', forward);
  process.on('SIGINT', forward);
  const [code] = await once(child, 'exit');
  process.off('SIGTERM', forward);
  process.off('SIGINT', forward);
  if (received) {
    process.kill(process.pid, received);
    process.exit(128 + constants.signals[received]);
  }
  if (code !== 0) {
    process.stderr.write(`npm start: the build failed (exit code ${code}); the API was not started\n`);
    process.exit(code ?? 1);
  }
}

const digest = inputDigest();
if (buildIsCurrent(digest)) {
  process.stderr.write('npm start: the build is up to date with the sources, not rebuilding\n');
} else {
  process.stderr.write('npm start: building (the sources changed since the last build, or there is none)\n');
  await build();
  writeFileSync(stampFile, `${digest}\n`);
}
await import(pathToFileURL(path.join(root, 'dist', 'src', 'server.js')).href);

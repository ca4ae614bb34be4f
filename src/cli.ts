import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ImportWorkspaceData, PlaybooksError } from '@playbooks/client';
import type { Plan } from './admin/schemas.js';
import { ConfigError, loadConfig } from './config.js';
import { AppError } from './errors.js';
import { MissingToolError } from './infra/local-deps.js';
import { openStores, withEndpoints } from './infra/stores.js';
import { createLogger } from './runtime.js';
import { createServices } from './services.js';
import { type OutputFormat, parseParams, render, table } from './shell/terminal-format.js';
import { exportToFile, failureText, serviceClient } from './shell/connection.js';
import { embeddingsCommand } from './shell/embeddings-progress.js';
import { exportMarkdown } from './shell/export-markdown.js';
import { findCommand } from './shell/find.js';
import { importFolder } from './shell/import-folder.js';

const usage = `Usage: npm run cli -- <command> [options]   (prints JSON)

  create-user      --email E [--name N]
  create-key       --user USER_ID [--label L]
  revoke-key       --user USER_ID --key KEY_ID
  create-workspace --name N --owner USER_ID [--plan free|team|enterprise] [--parent WORKSPACE_ID]
  update-workspace --workspace WORKSPACE_ID [--name N] [--plan P] [--limit N|none] [--parent WORKSPACE_ID|none]
  bootstrap        --email E [--name N] [--workspace NAME] [--plan P]
                   a user, a key and a workspace they own, in one go (for a fresh install)
  report NAME      --workspace WORKSPACE_ID [--param name=value ...] [--format table|csv|json]
                   runs a saved report (cypher/reports) through a running service: API_KEY (a member's
                   user or agent key) and API_URL (default http://localhost:3000) from the environment;
                   \`report list\` lists them
  import DIR       --workspace WORKSPACE_ID [--dry-run] [--prune] [--strict]
                   a folder of markdown files (front matter, [[wikilinks]]) as context nodes, through a running
                   service's bulk import (API_KEY of an editor, API_URL); prints what was created, updated,
                   archived, left unresolved and refused (exit 1 when a file was refused)
  import FILE.json --workspace WORKSPACE_ID
                   rebuilds a workspace export in an empty workspace (API_KEY of an owner)
  export           --workspace WORKSPACE_ID [--format json|markdown] [--out FILE|DIR]
                   json (default): the whole workspace as one JSON document (API_KEY of an owner), written
                   to FILE (default WORKSPACE_ID.playbooks-export.json)
                   markdown: the live context nodes as markdown files under DIR (--out required; a new or
                   empty folder), each at the path it was imported from (else SLUG.md), with its fields and
                   manual links in front matter: a folder \`import\` reads back
  find "QUESTION"  --workspace WORKSPACE_ID [--mode hybrid|words|meaning] [--depth 0-3] [--limit 1-50]
                   [--format table|json]
                   context for a question asked as a sentence, through a running service (API_KEY of a
                   member, API_URL): the ranked nodes with each one's reason; counts as a retrieval
  embeddings       [--workspace WORKSPACE_ID] [--watch] [--format text|json]
                   how far the embeddings are, through a running service: one workspace's with API_KEY,
                   or every workspace's with ADMIN_TOKEN; --watch shows a progress line every second until
                   no node waits to be embedded

Uses NEO4J_URI / REDIS_URL when set, else the servers a running \`npm start\` started
(data/endpoints.json), else starts its own for the duration of the command (not for \`report\`).`;

/** The operator's admin API, from a terminal: the way to make the first key on a fresh install. */
async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === '--help' || command === 'help') {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (command === 'report') return report(rest);
  if (command === 'import') return importCommand(rest);
  if (command === 'export') return exportCommand(rest);
  if (command === 'find') return findCommand(rest, usage);
  if (command === 'embeddings') return embeddingsCommand(rest, usage);
  const { values: o } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' }, name: { type: 'string' }, user: { type: 'string' }, label: { type: 'string' },
      key: { type: 'string' }, owner: { type: 'string' }, plan: { type: 'string' }, parent: { type: 'string' },
      workspace: { type: 'string' }, limit: { type: 'string' },
    },
  });
  const config = loadConfig();
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn');
  const stores = await openStores(config, { log: (message) => logger.info(message) });
  try {
    await stores.prepare();
    // The server's own composition, so that a change made here is audited and signalled as one made through the admin
    // API; its gate is never started: nothing is served.
    const { admin } = createServices({ config: withEndpoints(config, stores.endpoints), logger, graph: stores.graph, redis: stores.redis });
    const need = (name: keyof typeof o) => {
      const value = o[name];
      if (!value) throw new AppError('invalid_request', `--${name} is required for ${command}`);
      return value;
    };
    // The CLI's changes are the operator's, recorded in the audit log under one request id per run.
    const requestId = `cli-${randomUUID()}`;
    const orNull = (v: string | undefined) => (v === undefined ? undefined : v === 'none' ? null : v);
    let result: unknown;
    switch (command) {
      case 'create-user':
        result = await admin.createUser({ email: need('email'), name: o.name }, requestId);
        break;
      case 'create-key':
        result = await admin.createUserKey(need('user'), o.label, requestId);
        break;
      case 'revoke-key':
        await admin.revokeUserKey(need('user'), need('key'), requestId);
        result = { revoked: o.key };
        break;
      case 'create-workspace':
        result = await admin.createWorkspace({ name: need('name'), ownerUserId: need('owner'), plan: o.plan as Plan | undefined, parentWorkspaceId: o.parent }, requestId);
        break;
      case 'update-workspace': {
        const limit = orNull(o.limit);
        result = await admin.updateWorkspace(need('workspace'), {
          name: o.name,
          plan: o.plan as Plan | undefined,
          monthlyRetrievalLimit: limit === undefined || limit === null ? limit : Number.parseInt(limit, 10),
          parentWorkspaceId: orNull(o.parent),
        }, requestId);
        break;
      }
      case 'bootstrap': {
        const user = await admin.createUser({ email: need('email'), name: o.name }, requestId);
        const key = await admin.createUserKey(user.id, 'cli', requestId);
        const workspace = await admin.createWorkspace({ name: o.workspace ?? 'My workspace', ownerUserId: user.id, plan: o.plan as Plan | undefined }, requestId);
        result = { user, key, workspace };
        break;
      }
      default:
        throw new AppError('invalid_request', `Unknown command '${command}'\n\n${usage}`);
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await stores.close();
  }
}

/** `report NAME --workspace ID`: over HTTP with a member's key, like any client of the service. */
async function report(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, param: { type: 'string', multiple: true, default: [] }, format: { type: 'string', default: 'table' } },
  });
  const [name] = positionals;
  const key = process.env.API_KEY;
  if (!name || !values.workspace) throw new AppError('invalid_request', `report takes a name and --workspace\n\n${usage}`);
  if (!key) throw new AppError('invalid_request', 'Set API_KEY to a user or agent key of a member of the workspace');
  const format = values.format as OutputFormat;
  if (!['table', 'csv', 'json'].includes(format)) throw new AppError('invalid_request', '--format is table, csv or json');
  const client = serviceClient(key, values.workspace);
  if (name === 'list') {
    const reports = await client.reports.list();
    const rows = reports.map((r) => [r.name, r.title, r.parameters.map((p) => p.name).join(', ')]);
    process.stdout.write(`${format === 'json' ? JSON.stringify({ reports }, null, 2) : table(['name', 'title', 'parameters'], rows, 80)}\n`);
    return;
  }
  const params = Object.fromEntries(Object.entries(parseParams(values.param)).map(([k, v]) => [k, String(v)]));
  const answer = format === 'csv' ? (await client.reports.csv(name, params)).text : await client.reports.run(name, params);
  process.stdout.write(`${render(format, answer)}\n`);
}

/** `import DIR --workspace ID`: over HTTP with an editor's key, through the bulk import. */
async function importCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { workspace: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, prune: { type: 'boolean', default: false }, strict: { type: 'boolean', default: false } },
  });
  const [dir] = positionals;
  const key = process.env.API_KEY;
  if (!dir || !values.workspace) throw new AppError('invalid_request', `import takes a folder and --workspace\n\n${usage}`);
  if (!key) throw new AppError('invalid_request', 'Set API_KEY to the user or agent key of an editor of the workspace');
  if (!existsSync(dir)) throw new AppError('invalid_request', `${dir} does not exist`);
  if (statSync(dir).isFile()) {
    const document = JSON.parse(readFileSync(dir, 'utf8')) as NonNullable<ImportWorkspaceData['body']>;
    const result = await serviceClient(key, values.workspace).workspace.import(document);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const result = await importFolder({
    dir, workspaceId: values.workspace, key, dryRun: values['dry-run'], prune: values.prune, strict: values.strict,
    progress: process.stderr.isTTY ? process.stderr : undefined,
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (result.errors.length) process.exitCode = 1;
}

/** `export --workspace ID [--format json|markdown] [--out FILE|DIR]`: GET …/export with an owner's key, to a file or a folder. */
async function exportCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { workspace: { type: 'string' }, out: { type: 'string' }, format: { type: 'string', default: 'json' } } });
  const key = process.env.API_KEY;
  if (!values.workspace) throw new AppError('invalid_request', `export takes --workspace\n\n${usage}`);
  if (values.format !== 'json' && values.format !== 'markdown') throw new AppError('invalid_request', '--format is json or markdown');
  if (values.format === 'markdown' && !values.out) throw new AppError('invalid_request', `export --format markdown takes --out DIR, the folder to write\n\n${usage}`);
  if (!key) throw new AppError('invalid_request', 'Set API_KEY to the user key of an owner of the workspace');
  if (values.format === 'markdown') {
    const result = await exportMarkdown({ workspaceId: values.workspace, key, outDir: values.out! });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const out = values.out ?? `${values.workspace}.playbooks-export.json`;
  const bytes = await exportToFile(serviceClient(key, values.workspace), out);
  process.stdout.write(`${JSON.stringify({ file: out, bytes })}\n`);
}

main().catch((err) => {
  const known = err instanceof AppError || err instanceof ConfigError || err instanceof MissingToolError;
  const text = err instanceof PlaybooksError ? failureText(err) : known ? err.message : err instanceof Error ? err.stack : String(err);
  process.stderr.write(`${text}\n`);
  process.exit(1);
});

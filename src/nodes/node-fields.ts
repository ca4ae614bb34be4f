import { invalidField } from '../errors.js';
import type { ContextNode, CreateNodeInput } from './schemas.js';

/**
 * The node fields that people write as they like and the service keeps in one form: aliases and tags are trimmed and
 * put in NFC, a tag loses its leading #, and duplicates (ignoring case) are dropped, order kept; a source path is put
 * in NFC and must be a relative path inside its folder. A field a create leaves out takes its default.
 */

function distinctIgnoringCase(values: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const value of values) {
    const key = value.toLowerCase();
    if (value && !seen.has(key)) {
      seen.add(key);
      kept.push(value);
    }
  }
  return kept;
}

export function normaliseAliases(aliases: readonly string[]): string[] {
  return distinctIgnoringCase(aliases.map((alias) => alias.trim().normalize('NFC')));
}

export function normaliseTags(tags: readonly string[]): string[] {
  return distinctIgnoringCase(tags.map((tag) => tag.trim().replace(/^#+/, '').trim().normalize('NFC')));
}

/** What is wrong with a source path, or undefined: it names a file inside a folder, so it cannot climb out of it. */
export function sourcePathProblem(sourcePath: string): string | undefined {
  if (/[\u0000-\u001f\\]/.test(sourcePath)) return 'must not contain control characters or backslashes (use / between folders)';
  if (sourcePath.startsWith('/')) return 'must be relative to the folder (no leading /)';
  if (sourcePath.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) return 'must not have empty, . or .. segments';
  return undefined;
}

/** The input's aliases, tags and source path in their kept form (those it gives); 400 for a bad source path. */
export function normaliseNodeFields<T extends { aliases?: string[]; tags?: string[]; sourcePath?: string | null }>(input: T, at = ''): T {
  const out = { ...input };
  if (input.aliases !== undefined) out.aliases = normaliseAliases(input.aliases);
  if (input.tags !== undefined) out.tags = normaliseTags(input.tags);
  if (typeof input.sourcePath === 'string') {
    const problem = sourcePathProblem(input.sourcePath);
    if (problem) throw invalidField(`${at}/sourcePath`, problem);
    out.sourcePath = input.sourcePath.normalize('NFC');
  }
  return out;
}

/** The editable fields of a node as a create (or an import item) gives them, with the defaults for those left out. */
export type NodeFields = Pick<ContextNode, 'title' | 'description' | 'content' | 'nodeType' | 'agentSummary' | 'importance' | 'readFirst' | 'edgeCaseOnly' | 'aliases' | 'tags' | 'sourcePath'>;
export function withDefaults(input: CreateNodeInput): NodeFields {
  return {
    title: input.title,
    description: input.description,
    content: input.content ?? '',
    nodeType: input.nodeType ?? 'reference',
    agentSummary: input.agentSummary ?? null,
    importance: input.importance ?? 50,
    readFirst: input.readFirst ?? false,
    edgeCaseOnly: input.edgeCaseOnly ?? false,
    aliases: input.aliases ?? [],
    tags: input.tags ?? [],
    sourcePath: input.sourcePath ?? null,
  };
}

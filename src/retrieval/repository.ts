import type { Annotation } from '../annotations/schemas.js';
import { newId } from '../infra/ids.js';
import type { GraphExecutor } from '../infra/neo4j.js';
import { type RelationshipType, linkTypeParams } from '../nodes/link-types.js';
import type { FollowResult, LinkAmong, ManifestNode, NodeChange, PlaybookHead, RankReason } from './schemas.js';

/**
 * One ranked node as cypher/queries/retrieval/rank-bundle.cypher returns it: a manifest node with its reason
 * in columns of their own and the texts and stored counts every mode picks from.
 */
export type RankedNode = Omit<ManifestNode, 'reason' | 'tokenCount'> & {
  /** The relationship type of the last link of the best path, or READ_FIRST. */
  reasonKind: Exclude<RelationshipType, 'SUPERSEDES'> | 'READ_FIRST';
  reasonFromId: RankReason['fromId'];
  reasonDepth: RankReason['depth'];
  /** Types of open outdated/incorrect feedback about the node, which demoted it; empty when none. */
  reasonFeedback: NonNullable<RankReason['openFeedback']>;
  content: string | null;
  /** Stored o200k counts; null for a node the start-up backfill has not reached yet. */
  tokenCount: number | null;
  descriptionTokenCount: number | null;
  agentSummaryTokenCount: number | null;
};

type ActiveVersion = NonNullable<PlaybookHead['activeVersion']>;

/** The row of rank-bundle: the ranked nodes, and the playbook with its versions as stored (content is JSON text). */
export interface Ranking {
  nodes: RankedNode[];
  omittedNodeIds: string[];
  playbook: Pick<PlaybookHead, 'id' | 'title' | 'slug'>;
  latestVersion: PlaybookHead['latestVersion'];
  activeVersion: (Omit<ActiveVersion, 'content'> & { content: string }) | null;
  versionIds: string[];
  annotations: Annotation[];
}

/** The retrieval statements: each runs as one round trip. */
export class RetrievalRepository {
  constructor(private readonly graph: GraphExecutor) {}

  /** The ranked context of a playbook, or undefined when the playbook is not there (or archived). */
  async rank(params: {
    workspaceId: string;
    playbookId: string;
    depth: number;
    maxNodes: number;
    changedSince: string | null;
    withContent: boolean;
    includeAnnotations: boolean;
    principalId: string;
  }): Promise<Ranking | undefined> {
    const [row] = await this.graph.read<Ranking>('retrieval/rank-bundle', params);
    return row;
  }

  /**
   * Has Neo4j plan the ranking statements before a request needs them. Planning rank-bundle is slow (the
   * statement is large; `npm run bench` times the first requests after a start), and Neo4j
   * keeps a plan per statement text, parameter types and, for strings and lists, a size bucket (0, 1, then the
   * next power of ten): a plan made for `''` is not used for an id, nor one made for a one-element list for a
   * three-element one. So each statement runs once, matching nothing, for every combination the service sends:
   * ids and timestamps as long as real ones (one size bucket), changedSince null or set, linkTypes null, one type
   * or several. (An EXPLAIN without parameters plans an entry no request uses.)
   */
  async warmUp(): Promise<void> {
    const rank = { workspaceId: newId('ws'), playbookId: newId('pb'), depth: 2, maxNodes: 20, withContent: true, includeAnnotations: true, principalId: newId('usr') };
    const follow = { workspaceId: newId('ws'), nodeId: newId('cn'), direction: 'outgoing', depth: 1, maxNodes: 20 };
    await Promise.all([
      this.rank({ ...rank, changedSince: null }),
      this.rank({ ...rank, changedSince: new Date().toISOString() }),
      this.follow({ ...follow, linkTypes: null }),
      this.follow({ ...follow, linkTypes: ['REQUIRES'] }),
      this.follow({ ...follow, linkTypes: ['REQUIRES', 'REFERENCES'] }),
    ]);
  }

  async linksAmong(workspaceId: string, nodeIds: string[]) {
    const rows = await this.graph.read<{ link: LinkAmong }>('retrieval/links-among', { workspaceId, nodeIds, ...linkTypeParams });
    return rows.map((r) => r.link);
  }

  async follow(params: { workspaceId: string; nodeId: string; linkTypes: RelationshipType[] | null; direction: string; depth: number; maxNodes: number }): Promise<Omit<FollowResult, 'omitted' | 'tokenCount'> | undefined> {
    const [row] = await this.graph.read<Omit<FollowResult, 'omitted' | 'tokenCount'>>('retrieval/follow', { ...params, ...linkTypeParams });
    return row;
  }

  /** Up to `limit` slugs of the workspace's approved playbooks or live nodes starting with `prefix`, in slug order. */
  async slugsStartingWith(kind: 'playbook' | 'node', workspaceId: string, prefix: string, limit: number): Promise<string[]> {
    const statement = kind === 'playbook' ? 'retrieval/playbook-slugs-starting-with' : 'retrieval/node-slugs-starting-with';
    const rows = await this.graph.read<{ slug: string }>(statement, { workspaceId, prefix, limit });
    return rows.map((r) => r.slug);
  }

  /** Every change at exactly `at`. */
  async changesAt(workspaceId: string, at: string): Promise<NodeChange[]> {
    const rows = await this.graph.read<{ node: NodeChange }>('retrieval/changes-at', { workspaceId, at });
    return rows.map((r) => r.node);
  }

  /** Up to `limit + 1` changes after the node `afterId` changed at `since`, in (updatedAt, id) order. */
  async changesAfter(workspaceId: string, since: string, afterId: string, limit: number): Promise<NodeChange[]> {
    const rows = await this.graph.read<{ node: NodeChange }>('retrieval/updates-after', { workspaceId, since, afterId, limit });
    return rows.map((r) => r.node);
  }

  /** Up to `limit + 1` changes after `since`, oldest first. */
  async changesSince(workspaceId: string, since: string, limit: number): Promise<NodeChange[]> {
    const rows = await this.graph.read<{ node: NodeChange }>('retrieval/updates', { workspaceId, since, limit });
    return rows.map((r) => r.node);
  }
}

import type { GraphExecutor } from '../infra/neo4j.js';
import type { GraphSchema, SchemaConstraint, SchemaIndex } from './schemas.js';

type SchemaTokens = Pick<GraphSchema, 'labels' | 'relationshipTypes' | 'propertyKeys'>;

/**
 * The database's schema, from statements of cypher/queries/admin (not through the analysts' ad-hoc endpoint: these
 * are the service's own statements, so they need neither a process of their own nor the plan check).
 */
export class GraphSchemaRepository {
  constructor(private readonly graph: GraphExecutor) {}

  async read(): Promise<GraphSchema> {
    const [[tokens], indexes, constraints] = await Promise.all([
      this.graph.read<SchemaTokens>('admin/schema-tokens'),
      this.graph.read<SchemaIndex>('admin/schema-indexes'),
      this.graph.read<SchemaConstraint>('admin/schema-constraints'),
    ]);
    return { labels: tokens.labels, relationshipTypes: tokens.relationshipTypes, propertyKeys: tokens.propertyKeys, indexes, constraints };
  }
}

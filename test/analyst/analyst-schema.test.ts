import { randomUUID } from 'node:crypto';
import type { GraphSchema } from '@playbooks/client';
import { expect } from 'chai';
import { createAgent } from '../support/agents.js';
import { addMember, createWorkspace, problem, request } from '../support/api.js';
import { adminToken, analystToken } from '../support/harness.js';
import { storedRows } from '../support/neo4j.js';
import { createNode, link } from '../support/nodes.js';

const schemaPath = '/api/v1/admin/schema';
const readSchema = (token?: string, headers: Record<string, string> = {}) => request<GraphSchema>('GET', schemaPath, { token, headers });
const sorted = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

describe("the graph's schema for analysts (GET /api/v1/admin/schema)", () => {
  /** What Neo4j itself says, read past the service. */
  const direct = (query: string) => storedRows(query);

  it('gives the analyst token and the operator token the labels, relationship types, property keys, indexes and constraints', async () => {
    const ws = await createWorkspace();
    const a = await createNode(ws, { title: 'Schema route A' });
    const b = await createNode(ws, { title: 'Schema route B' });
    await link(ws, a.id, b.id, 'requires');
    for (const token of [analystToken, adminToken]) {
      const res = await readSchema(token);
      expect(res.status, res.text).to.equal(200);
      const schema = res.body;
      expect(schema.labels).to.include.members(['ContextNode', 'Workspace']);
      expect(schema.relationshipTypes).to.include('REQUIRES');
      expect(schema.propertyKeys).to.include.members(['workspaceId', 'id']);
      for (const names of [schema.labels, schema.relationshipTypes, schema.propertyKeys]) expect(names).to.deep.equal(sorted(names));

      // Neo4j 5.26 calls it UNIQUENESS; the calendar releases NODE_PROPERTY_UNIQUENESS.
      const idConstraint = schema.constraints.find((c) => c.name === 'context_node_id');
      expect(idConstraint).to.deep.include({ entityType: 'NODE', labelsOrTypes: ['ContextNode'], properties: ['id'] });
      expect(idConstraint!.type).to.match(/^(NODE_PROPERTY_)?UNIQUENESS$/);
      const fullText = schema.indexes.find((i) => i.name === 'context_node_text');
      expect(fullText).to.deep.include({ type: 'FULLTEXT', entityType: 'NODE', labelsOrTypes: ['ContextNode'], state: 'ONLINE' });
      expect(fullText!.properties).to.include.members(['title', 'content']);
      // A constraint's own index is listed among the indexes too.
      expect(schema.indexes.map((i) => i.name)).to.include('context_node_id');
      expect(schema.indexes.map((i) => i.name)).to.deep.equal(sorted(schema.indexes.map((i) => i.name)));
      expect(schema.constraints.map((c) => c.name)).to.deep.equal(sorted(schema.constraints.map((c) => c.name)));
    }
  });

  it('lists every index and constraint Neo4j has, each with the same fields', async () => {
    const res = await readSchema(analystToken);
    expect(res.status, res.text).to.equal(200);
    const indexes = await direct('SHOW INDEXES YIELD name, type, entityType, labelsOrTypes, properties, state RETURN * ORDER BY name');
    const constraints = await direct('SHOW CONSTRAINTS YIELD name, type, entityType, labelsOrTypes, properties RETURN * ORDER BY name');
    const byName = (rows: Record<string, unknown>[]) => sorted(rows.map((r) => String(r.name))).map((name) => rows.find((r) => r.name === name));
    expect(byName(res.body.indexes)).to.deep.equal(byName(indexes));
    expect(byName(res.body.constraints)).to.deep.equal(byName(constraints));
    // A LOOKUP index (one comes with every new database) is on every label or type: null, not a list.
    for (const lookup of res.body.indexes.filter((i) => i.type === 'LOOKUP')) expect(lookup).to.include({ labelsOrTypes: null, properties: null });
  });

  it('answers 401 without a token or with another one, 403 to a user key and to an agent key, as problems', async () => {
    const ws = await createWorkspace();
    const agent = await createAgent(ws, { role: 'owner' });
    problem(await readSchema(), 401, 'unauthorized');
    problem(await readSchema(''), 401, 'unauthorized');
    problem(await readSchema('not-the-analyst-token-at-all'), 401, 'unauthorized');
    problem(await readSchema(ws.owner.key), 403, 'forbidden');
    problem(await readSchema(agent.key), 403, 'forbidden');
  });

  it("a workspace's members cannot reach it, whatever their role", async () => {
    const ws = await createWorkspace();
    for (const role of ['viewer', 'editor', 'owner'] as const) {
      const member = await addMember(ws, role);
      problem(await readSchema(member.key), 403, 'forbidden');
    }
  });

  it('is not recorded in the audit log: it reads names shared by every workspace, no workspace’s data', async () => {
    const requestId = `schema-${randomUUID()}`;
    const res = await readSchema(analystToken, { 'x-request-id': requestId });
    expect(res.status, res.text).to.equal(200);
    const events = await request('GET', '/api/v1/admin/audit-events?actor=analyst&limit=200', { token: adminToken });
    expect(events.status, events.text).to.equal(200);
    expect(events.body.events.filter((e: { requestId: string }) => e.requestId === requestId)).to.deep.equal([]);
  });
});

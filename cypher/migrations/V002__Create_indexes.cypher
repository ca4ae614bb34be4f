// Full-text search must see a committed write at once, so the index is updated in the writing transaction.
// Indexes the list, filter and retrieval queries use.
CREATE INDEX agent_workspace IF NOT EXISTS FOR (a:Agent) ON (a.workspaceId);
CREATE INDEX playbook_workspace_updated IF NOT EXISTS FOR (p:Playbook) ON (p.workspaceId, p.updatedAt);
CREATE INDEX context_node_workspace_updated IF NOT EXISTS FOR (n:ContextNode) ON (n.workspaceId, n.updatedAt);
CREATE INDEX context_node_workspace_read_first IF NOT EXISTS FOR (n:ContextNode) ON (n.workspaceId, n.readFirst);
CREATE INDEX annotation_target IF NOT EXISTS FOR (a:Annotation) ON (a.workspaceId, a.targetId);
CREATE INDEX feedback_workspace IF NOT EXISTS FOR (f:Feedback) ON (f.workspaceId, f.createdAt);
CREATE FULLTEXT INDEX context_node_text IF NOT EXISTS FOR (n:ContextNode) ON EACH [n.title, n.description, n.content, n.agentSummary]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: false}};

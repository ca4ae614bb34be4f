// Identity of every stored thing: ids are unique across the whole service.
CREATE CONSTRAINT migration_version IF NOT EXISTS FOR (m:__Migration) REQUIRE m.version IS UNIQUE;
CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE;
CREATE CONSTRAINT user_email IF NOT EXISTS FOR (u:User) REQUIRE u.email IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE;
CREATE CONSTRAINT workspace_id IF NOT EXISTS FOR (w:Workspace) REQUIRE w.id IS UNIQUE;
CREATE CONSTRAINT agent_id IF NOT EXISTS FOR (a:Agent) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT playbook_id IF NOT EXISTS FOR (p:Playbook) REQUIRE p.id IS UNIQUE;
CREATE CONSTRAINT playbook_slug IF NOT EXISTS FOR (p:Playbook) REQUIRE (p.workspaceId, p.slug) IS UNIQUE;
CREATE CONSTRAINT playbook_version_id IF NOT EXISTS FOR (v:PlaybookVersion) REQUIRE v.id IS UNIQUE;
CREATE CONSTRAINT playbook_version_number IF NOT EXISTS FOR (v:PlaybookVersion) REQUIRE (v.playbookId, v.versionNumber) IS UNIQUE;
CREATE CONSTRAINT context_node_id IF NOT EXISTS FOR (n:ContextNode) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT context_node_slug IF NOT EXISTS FOR (n:ContextNode) REQUIRE (n.workspaceId, n.slug) IS UNIQUE;
CREATE CONSTRAINT annotation_id IF NOT EXISTS FOR (a:Annotation) REQUIRE a.id IS UNIQUE;
CREATE CONSTRAINT feedback_id IF NOT EXISTS FOR (f:Feedback) REQUIRE f.id IS UNIQUE;
CREATE CONSTRAINT usage_period IF NOT EXISTS FOR (u:UsagePeriod) REQUIRE (u.workspaceId, u.period) IS UNIQUE;

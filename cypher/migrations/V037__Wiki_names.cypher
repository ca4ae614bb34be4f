// Wikilinks name nodes by slug, file name, path, title or alias (src/nodes/names.ts): one (:WikiName) per workspace
// and key, which nodes NAME and wikilinks point at (WIKILINK_TO), resolved or not. It replaces (:UnresolvedLink),
// which only slugs could wait on; the nodes' names and wikilinks are rebuilt from their fields and contents at
// start-up (NodeService.backfillNames). Aliases are searchable, through aliasText (the aliases on lines), and a
// re-import finds a file's node by its sourcePath.
CREATE CONSTRAINT wiki_name_key IF NOT EXISTS FOR (k:WikiName) REQUIRE (k.workspaceId, k.key) IS UNIQUE;
MATCH (u:UnresolvedLink) DETACH DELETE u;
DROP CONSTRAINT unresolved_link_slug IF EXISTS;
CREATE INDEX context_node_workspace_source_path IF NOT EXISTS FOR (n:ContextNode) ON (n.workspaceId, n.sourcePath);
DROP INDEX context_node_text IF EXISTS;
CREATE FULLTEXT INDEX context_node_text IF NOT EXISTS FOR (n:ContextNode) ON EACH [n.title, n.aliasText, n.description, n.content, n.agentSummary]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: false}};
CALL db.awaitIndexes(300);

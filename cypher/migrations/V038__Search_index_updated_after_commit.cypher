// The full-text index of context nodes is updated just after each commit rather than inside it: kept inside, it
// made every node write's commit wait for the index (and the writes of one workspace for each other). A search
// first waits for the updates of every transaction committed before it (nodes/search.cypher), so a committed
// write is still found by the next search.
DROP INDEX context_node_text IF EXISTS;
CREATE FULLTEXT INDEX context_node_text IF NOT EXISTS FOR (n:ContextNode) ON EACH [n.title, n.aliasText, n.description, n.content, n.agentSummary]
  OPTIONS {indexConfig: {`fulltext.eventually_consistent`: true}};
CALL db.awaitIndexes(300);

// One (:RetrievalCount) per workspace, month and principal: the bundles and manifests an agent (or a user)
// retrieved, added to by every API process (the retrievals-per-agent report reads them).
CREATE CONSTRAINT retrieval_count_principal IF NOT EXISTS FOR (r:RetrievalCount) REQUIRE (r.workspaceId, r.period, r.principalId) IS UNIQUE;

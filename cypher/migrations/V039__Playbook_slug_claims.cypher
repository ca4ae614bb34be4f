// A playbook's creation claims its slug on a (:PlaybookSlug {workspaceId, slug}) of its own rather than locking the
// workspace (playbooks/claim-slug.cypher): creations of other slugs no longer wait for one another.
CREATE CONSTRAINT playbook_slug_claim IF NOT EXISTS FOR (c:PlaybookSlug) REQUIRE (c.workspaceId, c.slug) IS UNIQUE;

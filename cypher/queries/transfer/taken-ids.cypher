// Which of the given ids this deployment already uses, in any workspace, for any kind an import writes
// (playbooks, versions, context nodes, annotations, feedback, and links, which are relationships): ids are unique
// across the service, so an import keeps an id of its document only when it is free everywhere. The one transfer
// query not scoped by workspaceId, on purpose. Every branch seeks an index: the labels' unique id constraints, and
// for links one index per link type (V036; the types of src/nodes/link-types.ts, spelled here so that each
// branch can use its index).
// Params: $ids (a bounded batch). Columns: id, one row per id in use.
CALL () {
  MATCH (x:Playbook) WHERE x.id IN $ids RETURN x.id AS id
  UNION
  MATCH (x:PlaybookVersion) WHERE x.id IN $ids RETURN x.id AS id
  UNION
  MATCH (x:ContextNode) WHERE x.id IN $ids RETURN x.id AS id
  UNION
  MATCH (x:Annotation) WHERE x.id IN $ids RETURN x.id AS id
  UNION
  MATCH (x:Feedback) WHERE x.id IN $ids RETURN x.id AS id
  UNION
  MATCH ()-[r:REQUIRES]->() WHERE r.id IN $ids RETURN r.id AS id
  UNION
  MATCH ()-[r:REFERENCES]->() WHERE r.id IN $ids RETURN r.id AS id
  UNION
  MATCH ()-[r:RELATES_TO]->() WHERE r.id IN $ids RETURN r.id AS id
  UNION
  MATCH ()-[r:SUPERSEDES]->() WHERE r.id IN $ids RETURN r.id AS id
  UNION
  MATCH ()-[r:INDEX_ENTRY]->() WHERE r.id IN $ids RETURN r.id AS id
}
RETURN id

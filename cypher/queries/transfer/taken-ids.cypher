// How many of an export's ids this deployment already uses, in any workspace: ids are unique across the service,
// so an import keeps the export's ids only when none is taken (this is the one transfer query not scoped by
// workspaceId, on purpose; each count seeks the label's unique id index).
// Params: $playbookIds, $versionIds, $nodeIds, $annotationIds, $feedbackIds. Columns: taken.
RETURN COUNT { MATCH (p:Playbook) WHERE p.id IN $playbookIds }
     + COUNT { MATCH (v:PlaybookVersion) WHERE v.id IN $versionIds }
     + COUNT { MATCH (n:ContextNode) WHERE n.id IN $nodeIds }
     + COUNT { MATCH (a:Annotation) WHERE a.id IN $annotationIds }
     + COUNT { MATCH (f:Feedback) WHERE f.id IN $feedbackIds } AS taken

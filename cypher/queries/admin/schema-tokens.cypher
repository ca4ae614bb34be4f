// The database's labels, relationship types and property keys, each sorted. No params.
// Columns: labels, relationshipTypes, propertyKeys (lists of strings). Not scoped by workspace: these names are the
// database's, shared by every workspace.
RETURN COLLECT { CALL db.labels() YIELD label RETURN label ORDER BY label } AS labels,
       COLLECT { CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType ORDER BY relationshipType } AS relationshipTypes,
       COLLECT { CALL db.propertyKeys() YIELD propertyKey RETURN propertyKey ORDER BY propertyKey } AS propertyKeys

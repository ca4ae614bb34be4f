// Links are relationships of the five link types (src/nodes/link-types.ts), each with an id unique across the
// service. A workspace import keeps an id of its document only when nothing uses it yet, links included: one
// index per link type turns that check into seeks. A new link type needs its index in a new migration.
CREATE INDEX link_id_requires IF NOT EXISTS FOR ()-[r:REQUIRES]-() ON (r.id);
CREATE INDEX link_id_references IF NOT EXISTS FOR ()-[r:REFERENCES]-() ON (r.id);
CREATE INDEX link_id_relates_to IF NOT EXISTS FOR ()-[r:RELATES_TO]-() ON (r.id);
CREATE INDEX link_id_supersedes IF NOT EXISTS FOR ()-[r:SUPERSEDES]-() ON (r.id);
CREATE INDEX link_id_index_entry IF NOT EXISTS FOR ()-[r:INDEX_ENTRY]-() ON (r.id);

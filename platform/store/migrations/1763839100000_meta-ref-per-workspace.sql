-- Up Migration
-- A meta ref set by a caller is unique in its workspace only: a global UNIQUE told one workspace that another used
-- a ref, and let it take the ref first. The meta row carries its entry's workspace, kept equal to it by a composite
-- foreign key. The service's own wizard-link refs (key 'approval-link', src 'gov-fr') stay unique across the whole
-- service: the wizard finds its entry by the ref alone, before knowing any workspace.
ALTER TABLE entries ADD CONSTRAINT entries_id_workspace UNIQUE (id, workspace_id);

ALTER TABLE entry_meta ADD COLUMN workspace_id uuid;
UPDATE entry_meta m SET workspace_id = e.workspace_id FROM entries e WHERE e.id = m.entry_id;
ALTER TABLE entry_meta ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE entry_meta ADD CONSTRAINT entry_meta_entry_workspace
  FOREIGN KEY (entry_id, workspace_id) REFERENCES entries (id, workspace_id);

ALTER TABLE entry_meta DROP CONSTRAINT entry_meta_ref_key;
CREATE UNIQUE INDEX entry_meta_ref_per_workspace ON entry_meta (workspace_id, ref);
CREATE UNIQUE INDEX entry_meta_approval_ref ON entry_meta (ref) WHERE key = 'approval-link' AND src = 'gov-fr';

-- Down Migration
DROP INDEX entry_meta_approval_ref;
DROP INDEX entry_meta_ref_per_workspace;
ALTER TABLE entry_meta ADD CONSTRAINT entry_meta_ref_key UNIQUE (ref);
ALTER TABLE entry_meta DROP CONSTRAINT entry_meta_entry_workspace;
ALTER TABLE entry_meta DROP COLUMN workspace_id;
ALTER TABLE entries DROP CONSTRAINT entries_id_workspace;

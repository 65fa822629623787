-- Up Migration
-- What the directory step read back of each line of ours after writing it (GET by idInstance): the day it starts
-- and when that was read. A line not held as written fails the step, so a row with read_back_at is a line the
-- directory recorded as we meant it. Rows written before this have neither.
ALTER TABLE directory_lines ADD COLUMN starts_on date, ADD COLUMN read_back_at timestamptz;

-- Down Migration
ALTER TABLE directory_lines DROP COLUMN starts_on, DROP COLUMN read_back_at;

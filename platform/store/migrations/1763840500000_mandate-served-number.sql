-- Up Migration
-- The number of the mandate last served unsigned (GET agreement, through the API or the wizard): a signature that
-- names no mandate number is refused (409 mandate-changed) when the mandate was issued again since it was served,
-- so that nobody signs, unread, a mandate re-issued a moment before (a party change). Reset with each new mandate
-- of a new job.
ALTER TABLE agreements ADD COLUMN served_number text;

-- Down Migration
ALTER TABLE agreements DROP COLUMN served_number;

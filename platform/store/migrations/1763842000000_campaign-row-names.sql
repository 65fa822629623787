-- Up Migration
-- A row at fault keeps the company name it was given, so that the rows and the report name the company beside its
-- faults (a valid row's name is in its data). Personal data is not in it: it is the company's name.
ALTER TABLE campaign_rows ADD COLUMN name text;

-- Down Migration
ALTER TABLE campaign_rows DROP COLUMN name;

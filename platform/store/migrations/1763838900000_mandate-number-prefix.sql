-- Up Migration
-- Issuing a mandate counts the numbers already issued with its prefix (SIREN_matricule_day_): without an index
-- fit for LIKE 'prefix%' under a non-C collation, that count read the whole table for every mandate.
CREATE INDEX mandate_numbers_prefix ON mandate_numbers (number text_pattern_ops);

-- Down Migration
DROP INDEX mandate_numbers_prefix;

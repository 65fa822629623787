-- Up Migration
-- What showed that an uploaded ("pre-signed") mandate was signed: a digital signature over our mandate, a visible
-- signature added to it, or a scan of the signed paper (the operator checks the number and the signature by eye).
-- NULL for in-app signatures (drawn or typed) and before any signature.
ALTER TABLE agreements ADD COLUMN upload_evidence text CHECK (upload_evidence IN ('digital-signature', 'visible-signature', 'scan'));

-- Down Migration
ALTER TABLE agreements DROP COLUMN upload_evidence;

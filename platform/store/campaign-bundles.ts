// Bundles (table campaign_bundles, campaign_rows.bundle_id): a started campaign's rows naming the same signer, signed
// in one wizard session through the bundle's link; its members as the signer and the operators see them.
import type { Queryable } from './db';
import { LAUNCHED_VERDICTS } from './campaign-launches';

/**
 * Groups the campaign's rows to register by signer (names and email, case, accents and blanks aside): each group
 * of two rows or more becomes a bundle, its ref 244 random bits (two version-4 UUIDs, PostgreSQL's strong random
 * source) as base64url. Rows already in a bundle stay in it. Returns how many bundles were made.
 */
export async function formBundles(q: Queryable, campaignId: string): Promise<number> {
  const { rows } = await q.query<{ n: string }>(
    `WITH grouped AS MATERIALIZED (
       SELECT gen_random_uuid() AS id,
              rtrim(translate(encode(decode(replace(gen_random_uuid()::text, '-', '')
                                            || replace(gen_random_uuid()::text, '-', ''), 'hex'), 'base64'),
                              '+/', '-_'), '=') AS ref,
              lines
         FROM (SELECT array_agg(line) AS lines FROM campaign_rows
                WHERE campaign_id = $1 AND verdict = ANY($2::text[]) AND bundle_id IS NULL AND signer_key IS NOT NULL
                GROUP BY signer_key HAVING count(*) > 1) g),
     made AS (INSERT INTO campaign_bundles (id, campaign_id, ref) SELECT id, $1, ref FROM grouped RETURNING id),
     joined AS (
       UPDATE campaign_rows r SET bundle_id = m.id
         FROM (SELECT id, unnest(lines) AS line FROM grouped) m
        WHERE r.campaign_id = $1 AND r.line = m.line RETURNING 1)
     SELECT (SELECT count(*) FROM made) AS n, (SELECT count(*) FROM joined) AS rows`,
    [campaignId, LAUNCHED_VERDICTS],
  );
  return Number(rows[0]!.n);
}

export interface BundleRecord {
  id: string;
  campaign_id: string;
  workspace_id: string;
  campaign_status: string;
}

export async function bundleByRef(q: Queryable, ref: string): Promise<BundleRecord | undefined> {
  const { rows } = await q.query<BundleRecord>(
    `SELECT b.id, b.campaign_id, c.workspace_id, c.status AS campaign_status
       FROM campaign_bundles b JOIN campaigns c ON c.id = b.campaign_id WHERE b.ref = $1`,
    [ref],
  );
  return rows[0];
}

export interface BundleMember {
  line: number;
  siren: string;
  name: string | null;
  entry_id: string | null;
  state: string | null;
  /** The member's own wizard link and its ref, once its registration issued them. */
  link_url: string | null;
  link_ref: string | null;
}

/** A bundle's companies in the file's order (at most `limit`), with their entries' states and wizard links. */
export async function bundleMembers(q: Queryable, bundleId: string, limit = 1000): Promise<BundleMember[]> {
  const { rows } = await q.query<BundleMember>(
    `SELECT r.line, r.siren, r.data #>> '{party,name}' AS name, r.entry_id, e.state,
            m.link_url, m.ref AS link_ref
       FROM campaign_rows r
       LEFT JOIN entries e ON e.id = r.entry_id
       LEFT JOIN entry_meta m ON m.entry_id = r.entry_id AND m.key = 'approval-link' AND m.src = 'gov-fr'
      WHERE r.bundle_id = $1 ORDER BY r.line LIMIT $2`,
    [bundleId, limit],
  );
  return rows;
}

export interface BundleOfEntry {
  id: string;
  campaign_id: string;
  companies: {
    entry_id: string | null;
    siren: string;
    name: string | null;
    state: string | null;
    submitted_at: Date | null;
    decision: 'approved' | 'rejected' | null;
  }[];
}

/** The bundle an entry was signed in, with each company's facts (the operator's view); undefined when none. */
export async function bundleOfEntry(q: Queryable, entryId: string): Promise<BundleOfEntry | undefined> {
  const { rows } = await q.query<{ id: string; campaign_id: string } & BundleOfEntry['companies'][number]>(
    `SELECT b.id, b.campaign_id, r.entry_id, r.siren, r.data #>> '{party,name}' AS name, e.state,
            md.submitted_at, CASE d.approved WHEN true THEN 'approved' WHEN false THEN 'rejected' END AS decision
       FROM campaign_rows mine
       JOIN campaign_bundles b ON b.id = mine.bundle_id
       JOIN campaign_rows r ON r.bundle_id = b.id
       LEFT JOIN entries e ON e.id = r.entry_id
       LEFT JOIN mandates md ON md.entry_id = r.entry_id
       LEFT JOIN approval_decisions d ON d.id = md.decision_id
      WHERE mine.entry_id = $1
      ORDER BY r.line LIMIT 1000`,
    [entryId],
  );
  if (!rows[0]) return undefined;
  const { id, campaign_id } = rows[0];
  return { id, campaign_id, companies: rows.map(({ id: _i, campaign_id: _c, ...company }) => company) };
}

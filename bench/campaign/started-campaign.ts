// A campaign as an integrator makes one, for the benchmarks: the file uploaded, the dry run waited for, the campaign
// started; returns its id once every row waits for its signer.
import { waitUntil } from '../../bin/stack/onboard';
import type { Cluster } from '../../bin/stack/cluster';
import { countCampaignJobsInStatus } from '../../platform/store/stats';

export const CAMPAIGN_HEADER = 'siren;name;signer_given_name;signer_surname;signer_role;contact_email;signer_id_number';

export async function startedCampaign(c: Cluster, rows: string[], timeoutMs: number): Promise<string> {
  const api = c.apiUrls[0]!;
  const auth = { authorization: `Bearer ${c.apiKey}` };
  const res = await fetch(`${api}/campaigns/v1/campaigns`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'text/csv' },
    body: `${CAMPAIGN_HEADER}\n${rows.join('\n')}\n`,
  });
  const { id } = (await res.json()) as { id: string };
  if (res.status !== 201) throw new Error(`upload: ${res.status}`);
  const status = async () =>
    ((await (await fetch(`${api}/campaigns/v1/campaigns/${id}`, { headers: auth })).json()) as { status: string })
      .status;
  await waitUntil(async () => (await status()) === 'checked', timeoutMs, 'the dry run', 1000);
  const started = await fetch(`${api}/campaigns/v1/campaigns/${id}/start`, { method: 'POST', headers: auth });
  if (!started.ok) throw new Error(`start: ${started.status}`);
  await waitUntil(
    async () => (await countCampaignJobsInStatus(c.db, id, 'WAIT')) === rows.length,
    timeoutMs,
    `${rows.length} waiting for their signers`,
    1000,
  );
  return id;
}

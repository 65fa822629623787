// Each verdict from what the directory, the SML's DNS and our store say, as the registration's own plan sees it.
import { describe, expect, it } from 'vitest';
import { judgeRow, type RowLookups } from '../../../domain/campaigns/verdict';
import type { Line } from '../../../domain/directory/lines';

const US = '0145';
const TODAY = '2026-12-01';
const OUR_SMP = 'https://smp.example.fr/smp';
const SIREN = '552032534';

const line = (platform: string, start: string, over: Partial<Line> = {}): Line => ({
  idInstance: Math.floor(Math.random() * 1e6),
  address: SIREN,
  siren: SIREN,
  platform,
  start,
  end: null,
  ...over,
});

const judge = (lookups: Partial<RowLookups>, row: { formerPlatform?: string; start?: string } = {}) =>
  judgeRow({
    us: US,
    today: TODAY,
    ourSmpUrl: OUR_SMP,
    row: {
      siren: SIREN,
      ...(row.formerPlatform && { formerPlatform: row.formerPlatform }),
      ...(row.start && { invoicing: { entrust: 'all', addresses: [{}], start: row.start } }),
    },
    lookups: { lines: [], participants: [], ...lookups },
  });

describe('a row’s verdict', () => {
  it('new: on the fictive platform, or with no line of a known company', () => {
    expect(judge({ lines: [line('9998', '2025-09-01')] })).toEqual({
      verdict: 'new',
      reasons: ['on the fictive platform 9998: registered from 2026-12-01'],
    });
    expect(judge({ companyState: 'A' }, { formerPlatform: '0042' }).reasons).toEqual([
      'no line in the Annuaire: the registration creates them from 2026-12-01',
      'the file names platform 0042, but it holds no line of the company: nothing to take over',
    ]);
  });

  it('takeover: another platform’s line in force, named from the Annuaire whatever the file says', () => {
    const j = judge({ lines: [line('0042', '2026-09-01')] }, { formerPlatform: '0077', start: '2026-12-15' });
    expect(j).toMatchObject({ verdict: 'takeover', formerPlatform: '0042' });
    expect(j.reasons).toEqual([
      `held by platform 0042 (${SIREN} since 2026-09-01): its lines end on 2026-12-15 and the mandate names it as the platform the company leaves`,
      'the file names platform 0077, but the Annuaire shows 0042: the mandate names 0042',
    ]);
  });

  it('migrate: a participant at another SMP, with the key to ask for; a take-over says so too', () => {
    const participants = [{ id: `0225:${SIREN}`, smpUrls: ['https://smp.other.example/'] }];
    expect(judge({ lines: [line('9998', '2025-09-01')], participants })).toMatchObject({
      verdict: 'migrate',
      migrations: [{ participant: `0225:${SIREN}`, smp: 'https://smp.other.example/' }],
    });
    expect(
      judge({ lines: [line('9998', '2025-09-01')], participants: [{ id: `0225:${SIREN}`, smpUrls: [`${OUR_SMP}/`] }] })
        .verdict,
    ).toBe('new');
    expect(judge({ lines: [line('0042', '2026-09-01')], participants })).toMatchObject({
      verdict: 'takeover',
      migrations: [{ participant: `0225:${SIREN}` }],
    });
  });

  it('already-ours: held by an entry here, or our line in the Annuaire', () => {
    expect(judge({ heldHere: { sameWorkspace: true } }).reasons).toEqual([
      `SIREN ${SIREN} is registered here already, by an entry of this workspace`,
    ]);
    expect(judge({ heldHere: { sameWorkspace: false } }).reasons).toEqual([
      `SIREN ${SIREN} is registered on this platform already`,
    ]);
    expect(judge({ lines: [line(US, '2026-10-01')] }).verdict).toBe('already-ours');
  });

  it('blocked: ceased, unknown, or another platform’s line to come', () => {
    expect(judge({ companyState: 'C' }).reasons).toEqual([`SIREN ${SIREN} has ceased (the Annuaire's state C)`]);
    expect(judge({ companyState: null }).reasons[0]).toMatch(/is unknown to the Annuaire/);
    const toCome = judge({ lines: [line('9998', '2025-09-01', { end: '2026-12-10' }), line('0042', '2026-12-10')] });
    expect(toCome).toEqual({
      verdict: 'blocked',
      reasons: [
        `platform 0042 receives for ${SIREN} from 2026-12-10 (a line to come): the company has chosen it from that day`,
      ],
    });
  });

  it('duplicate: a registration of the SIREN under way in the workspace', () => {
    expect(judge({ runningJob: 'j1', lines: [line('9998', '2025-09-01')] })).toEqual({
      verdict: 'duplicate',
      reasons: [`a registration of SIREN ${SIREN} is under way in this workspace (job j1)`],
    });
  });
});

// The Peppol Directory client against the simulator, over real HTTP.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDirectoryClient,
  DirectoryError,
  type DirectoryClient,
} from '../../../integrations/peppol/directory-client';
import { startPeppolDirectorySimulator, type PeppolDirectorySimulator } from '../../../simulators/peppol-directory';

const ID = 'iso6523-actorid-upis::0225:552032534';

describe('Peppol Directory client ↔ simulator', () => {
  let dir: string;
  let sim: PeppolDirectorySimulator;
  let pd: DirectoryClient;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-sim-'));
    sim = await startPeppolDirectorySimulator({ host: '127.0.0.1', port: 0, stateFile: path.join(dir, 'pd.json') });
    pd = createDirectoryClient({ url: sim.url });
  });
  afterAll(async () => {
    await sim.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers /health', async () => {
    expect((await fetch(`${sim.url}/health`)).status).toBe(200);
  });

  it('indexes a participant (once, however often asked) and removes it', async () => {
    await pd.index('0225:552032534');
    await pd.index(ID);
    expect(sim.indexed()).toEqual([ID]);
    expect(await pd.isIndexed(ID)).toBe(true);
    await pd.remove(ID);
    expect(sim.indexed()).toEqual([]);
    expect(await pd.isIndexed(ID)).toBe(false);
    await expect(pd.remove(ID)).resolves.toBeUndefined(); // unknown: nothing to remove
  });

  it('speaks the indexer protocol: text/plain PUT body, percent-encoded id in DELETE', async () => {
    const put = await fetch(`${sim.url}/indexer/1.0/`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: ID,
    });
    expect(put.status).toBe(204);
    expect((await fetch(`${sim.url}/indexer/1.0/0225:552032534`, { method: 'PUT', body: ID })).status).toBe(405);
    expect((await fetch(`${sim.url}/indexer/1.0/`, { method: 'PUT', body: '0225:552032534' })).status).toBe(400); // no scheme
    expect(
      (await fetch(`${sim.url}/indexer/1.0/iso6523-actorid-upis%3A%3A0225%3A552032534`, { method: 'DELETE' })).status,
    ).toBe(204);
    expect(sim.indexed()).toEqual([]);
  });

  it('keeps the indexed set in the state file across restarts', async () => {
    await pd.index(ID);
    await sim.close();
    sim = await startPeppolDirectorySimulator({ port: 0, stateFile: path.join(dir, 'pd.json') });
    pd = createDirectoryClient({ url: sim.url });
    expect(sim.indexed()).toEqual([ID]);
    await pd.remove(ID);
  });

  it('makes 5xx and network failures retryable, 4xx not', async () => {
    sim.setFaults({ rate: 1, status: 503 });
    await expect(pd.index(ID)).rejects.toMatchObject({ retryable: true, status: 503 });
    sim.setFaults({ rate: 1, status: 403 });
    await expect(pd.index(ID)).rejects.toMatchObject({ retryable: false, status: 403 });
    sim.setFaults(undefined);
    const err = await createDirectoryClient({ url: 'http://127.0.0.1:1' })
      .index(ID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DirectoryError);
    expect((err as DirectoryError).retryable).toBe(true);
    expect(sim.indexed()).toEqual([]);
  });

  it('with an SMP URL, reads the business card back on PUT: 404 and invalid cards are refused, the SMP down is 503', async () => {
    let card: { status: number; body: string } = { status: 404, body: '' };
    const seen: string[] = [];
    const smp = http.createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(card.status, { 'content-type': 'text/xml' }).end(card.body);
    });
    await new Promise<void>((r) => smp.listen(0, '127.0.0.1', r));
    const smpUrl = `http://127.0.0.1:${(smp.address() as AddressInfo).port}/smp`;
    const withCards = await startPeppolDirectorySimulator({ port: 0, smpUrl });
    const client = createDirectoryClient({ url: withCards.url });
    try {
      await expect(client.index(ID)).rejects.toMatchObject({ status: 404, retryable: false });
      expect(seen).toEqual(['/smp/businesscard/iso6523-actorid-upis%3A%3A0225%3A552032534']);
      card = { status: 200, body: '<BusinessCard xmlns="http://www.peppol.eu/schema/pd/businesscard/20180621/"/>' };
      await expect(client.index(ID)).rejects.toMatchObject({ status: 422, retryable: false });
      card = { status: 500, body: '' };
      await expect(client.index(ID)).rejects.toMatchObject({ status: 503, retryable: true });
      const valid =
        '<BusinessCard xmlns="http://www.peppol.eu/schema/pd/businesscard/20180621/"><ParticipantIdentifier scheme="iso6523-actorid-upis">0225:552032534</ParticipantIdentifier><BusinessEntity><Name>Danone</Name><CountryCode>FR</CountryCode></BusinessEntity></BusinessCard>';
      card = { status: 200, body: valid };
      expect(withCards.indexed()).toEqual([]);
      await client.index(ID);
      expect(withCards.indexed()).toEqual([ID]);
      expect(withCards.businessCard(ID)).toBe(valid);
      await client.remove(ID);
      expect(withCards.businessCard(ID)).toBeUndefined();
    } finally {
      await withCards.close();
      await new Promise<void>((r) => smp.close(() => r()));
    }
  });
});

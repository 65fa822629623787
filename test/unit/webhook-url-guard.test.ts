// Webhook destinations: private, loopback and link-local addresses refused, in the URL and after resolution.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, publicOnlyDispatcher, refusedWebhookUrl } from '../../events/url-guard';

describe('webhook URL guard', () => {
  it('knows private addresses from public ones', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.20.0.5', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd12::1', 'fe80::1', '::ffff:127.0.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::6810:85e5']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses private and local URLs up front, with the reason', () => {
    expect(refusedWebhookUrl('http://169.254.169.254/latest/meta-data')).toMatch(/private or local/);
    expect(refusedWebhookUrl('http://localhost:5432/')).toMatch(/private or local/);
    expect(refusedWebhookUrl('http://[::1]:8080/')).toMatch(/private or local/);
    expect(refusedWebhookUrl('https://hooks.example.com/pa')).toBeUndefined();
  });

  it('does not connect to a name that resolves to a private address', async () => {
    const server = http.createServer((_req, res) => res.end('reached')).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const err = await fetch(`http://localhost:${port}/`, { dispatcher: publicOnlyDispatcher() }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error & { cause?: Error }).cause?.message)).toMatch(/private address: refused/);
      expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe('reached'); // the server was there
    } finally {
      server.close();
    }
  });
});

// Webhook destinations: global unicast only (ipaddr.js ranges, IPv4 inside IPv6 forms), in the URL, after resolution
// and for IP literals at connection time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, publicOnlyDispatcher, refusedWebhookUrl } from '../../../domain/events/url-guard';

describe('webhook URL guard', () => {
  it('knows private addresses from public ones', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.5',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd12::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '93.184.216.34', '2606:4700::6810:85e5']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('judges IPv6 forms carrying an IPv4 address by that address, and allows global unicast only', () => {
    const refused = [
      '::127.0.0.1',
      '[::127.0.0.1]',
      '::7f00:1', // IPv4-compatible (deprecated)
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '[::ffff:169.254.169.254]', // IPv4-mapped
      '64:ff9b::7f00:1',
      '64:ff9b::127.0.0.1',
      '64:ff9b::a9fe:a9fe', // NAT64 of loopback, metadata
      '2002:7f00:1::',
      '2002:c0a8:101::1', // 6to4 of 127.0.0.1, 192.168.1.1
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      '2001:db8::1', // documentation
      '::',
      '::1',
      'fe80::1%eth0',
      'ff02::1',
      'fc00::1',
      '100::1', // unspecified, loopback, link-local, multicast, ULA, discard
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '255.255.255.255',
      '240.0.0.1',
      '198.18.0.1', // reserved, benchmarking
    ];
    for (const a of refused) expect(isPrivateAddress(a), a).toBe(true);
    // The same forms around a public IPv4 address are public.
    for (const a of ['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4007:80e::200e'])
      expect(isPrivateAddress(a), a).toBe(false);
    expect(isPrivateAddress('hooks.example.com')).toBe(false); // a name: judged when resolved
  });

  it('refuses the URL forms of those addresses and trailing-dot local names', () => {
    for (const url of [
      'http://[::127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[2002:7f00:1::]/',
      'http://[2001::1]/',
      'http://[::ffff:127.0.0.1]:8080/',
      'http://localhost./',
      'http://LOCALHOST../x',
      'http://api.localhost./',
      'http://0x7f.1/',
      'http://2130706433/',
      'http://127.1/',
      'http://0177.0.0.1/',
    ])
      expect(refusedWebhookUrl(url), url).toMatch(/private or local/);
    expect(refusedWebhookUrl('https://hooks.example.com./pa')).toBeUndefined();
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
      const err = await fetch(`http://localhost:${port}/`, { dispatcher: publicOnlyDispatcher() }).catch(
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(String((err as Error & { cause?: Error }).cause?.message)).toMatch(/private address: refused/);
      // An IP literal is connected to without any lookup: refused all the same (a subscription stored before a fix).
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]']) {
        const literal = await fetch(`http://${host}:${port}/`, { dispatcher: publicOnlyDispatcher() }).catch(
          (e: Error) => e,
        );
        expect(String((literal as Error & { cause?: Error }).cause?.message), host).toMatch(/private address: refused/);
      }
      expect(await (await fetch(`http://localhost:${port}/`)).text()).toBe('reached'); // the server was there
    } finally {
      server.close();
    }
  });
});

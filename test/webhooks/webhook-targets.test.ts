import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { RunningService } from '../../src/runtime.js';
import { sendWebhook } from '../../src/webhooks/sender.js';
import { checkTarget, specialRangeOf } from '../../src/webhooks/url-guard.js';
import { type TestWorkspace, createWorkspace, problem, request } from '../support/api.js';
import { env, startExtraService } from '../support/harness.js';
import { createNode } from '../support/nodes.js';
import { until } from '../support/waits.js';

/** Hosts in every special-purpose range a tester or the IANA registries name, IP literals as a URL writes them. */
const refusedHosts = [
  '192.0.2.1', '198.51.100.1', '203.0.113.5', '[2001:db8::1]', '[fec0::1]', '[::127.0.0.1]', '[2002:7f00:1::]',
  '0.0.0.0', '100.64.0.1', '169.254.169.254', '224.0.0.1', '255.255.255.255', '[::1]', '[::ffff:127.0.0.1]', '[fe80::1]',
  '[fc00::1]', '[64:ff9b::7f00:1]', '[2001::1]',
];
const moreRefusedHosts = [
  '127.0.0.1', '2130706433', '10.0.0.1', '172.16.0.1', '192.168.1.1', '192.0.0.8', '192.88.99.1', '198.18.0.1', '240.0.0.1',
  '192.31.196.1', '192.52.193.1', '192.175.48.1', '[::]', '[::ffff:0:7f00:1]', '[64:ff9b:1::1]', '[100::1]', '[100:0:0:1::1]',
  '[2001:2::1]', '[2001:20::1]', '[2620:4f:8000::1]', '[3fff::1]', '[5f00::1]', '[ff02::1]',
];
const publicHosts = ['93.184.215.14', '8.8.8.8', '[2606:4700::1111]', '[2a00:1450:4001::1]'];

/** An HTTP receiver on 127.0.0.1 that answers 200 and counts what reached it. */
async function countingReceiver() {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    req.resume();
    req.on('end', () => res.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return { port, url: `http://127.0.0.1:${port}/hook`, hits: () => hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const oneMessage = () => ({ id: `whd_${randomBytes(8).toString('hex')}`, body: '{"type":"node.created"}', at: new Date() });
const secret = `whsec_${randomBytes(32).toString('base64')}`;

const subscribeOn = (w: TestWorkspace, url: string, baseUrl?: string) =>
  request('POST', w.path('/webhooks'), { token: w.owner.key, body: { url, eventTypes: ['node.created'] }, baseUrl });

describe('webhook targets', () => {
  describe('the guard', () => {
    it('refuses every special-purpose address, IP literals included, unless private targets are allowed', async () => {
      for (const host of [...refusedHosts, ...moreRefusedHosts]) {
        const url = `http://${host}:8080/hook`;
        const refused = await checkTarget(url, false);
        expect(refused, url).to.have.property('refused').that.matches(/^reaches a special-purpose address \(\w+\)/);
        expect(await checkTarget(url, true), url).not.to.have.property('refused');
      }
    });

    it('allows public unicast addresses and hands back the addresses it checked, for the connection', async () => {
      for (const host of publicHosts) {
        const checked = await checkTarget(`https://${host}/hook`, false);
        expect(checked, host).not.to.have.property('refused');
        expect((checked as { addresses: unknown[] }).addresses, host).to.deep.equal([{ address: host.replace(/^\[|\]$/g, ''), family: host.startsWith('[') ? 6 : 4 }]);
      }
    });

    it('refuses a host name that resolves to a special-purpose address', async () => {
      expect(await checkTarget('http://localhost:9/hook', false)).to.have.property('refused').that.matches(/special-purpose address \(loopback\)/);
    });

    it('names the range of each address as ipaddr.js classifies it, judging IPv4-mapped IPv6 by the IPv4 it carries', () => {
      expect(specialRangeOf('::ffff:127.0.0.1')).to.equal('loopback');
      expect(specialRangeOf('::ffff:93.184.215.14')).to.equal(undefined);
      expect(specialRangeOf('fec0::1')).to.equal('deprecatedSiteLocal');
      expect(specialRangeOf('fe80::1%eth0')).to.equal('linkLocal');
      expect(specialRangeOf('2002:7f00:1::')).to.equal('6to4');
      expect(specialRangeOf('2001::1')).to.equal('teredo');
      expect(specialRangeOf('64:ff9b::7f00:1')).to.equal('rfc6052');
      expect(specialRangeOf('203.0.113.5')).to.equal('reserved');
      // ipaddr.js calls these unicast; they lie outside the IPv6 global unicast block.
      expect(specialRangeOf('::7f00:1')).to.equal('reserved');
      expect(specialRangeOf('100:0:0:1::1')).to.equal('reserved');
      expect(specialRangeOf('not an address')).to.equal('unparseable');
    });

    it('refuses other schemes and credentials in the URL even when private targets are allowed', async () => {
      expect(await checkTarget('ftp://example.com/x', true)).to.deep.equal({ refused: 'must be an http or https URL' });
      expect(await checkTarget('http://user:pw@127.0.0.1/x', true)).to.deep.equal({ refused: 'must not carry credentials' });
      expect(await checkTarget('not a url', true)).to.deep.equal({ refused: 'is not a URL' });
    });
  });

  describe('one delivery attempt', () => {
    it('sends nothing to an IP-literal loopback target and fails the attempt with the reason, unless private targets are allowed', async () => {
      const hook = await countingReceiver();
      try {
        for (const url of [hook.url, `http://[::ffff:127.0.0.1]:${hook.port}/hook`, `http://localhost:${hook.port}/hook`]) {
          const result = await sendWebhook({ url, secret }, oneMessage(), { timeoutMs: 2_000, allowPrivate: false });
          expect(result, url).to.deep.equal({ ok: false, statusCode: null, error: 'not sent: the URL reaches a special-purpose address (loopback), which webhooks may not target unless the operator allows private targets' });
        }
        expect(hook.hits()).to.equal(0);
        const allowed = await sendWebhook({ url: hook.url, secret }, oneMessage(), { timeoutMs: 2_000, allowPrivate: true });
        expect(allowed).to.deep.equal({ ok: true, statusCode: 200, error: null });
        expect(hook.hits()).to.equal(1);
      } finally {
        await hook.close();
      }
    });
  });

  describe('through the API', () => {
    it('a subscription to any special-purpose address is a 400 naming the url field, and nothing is stored', async () => {
      const api = await startExtraService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off', WEBHOOK_RELAY_INTERVAL_MS: '3600000' });
      try {
        const w = await createWorkspace();
        for (const host of refusedHosts) {
          const body = problem(await subscribeOn(w, `http://${host}/hook`, api.url), 400, 'invalid_request');
          expect(body.errors?.[0].path, host).to.equal('/url');
          expect(body.errors?.[0].message, host).to.match(/^reaches a special-purpose address/);
        }
        const listed = await request('GET', w.path('/webhooks'), { token: w.owner.key, baseUrl: api.url });
        expect(listed.body.subscriptions).to.deep.equal([]);
      } finally {
        await api.stop();
      }
    });

    it('moving a subscription to a special-purpose address is a 400 and leaves its URL as it was', async () => {
      const api = await startExtraService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off', WEBHOOK_RELAY_INTERVAL_MS: '3600000' });
      try {
        const w = await createWorkspace();
        const created = await subscribeOn(w, 'https://[2606:4700::1111]/hook', api.url);
        expect(created.status, created.text).to.equal(201);
        const path = w.path(`/webhooks/${created.body.id}`);
        const moved = await request('PATCH', path, { token: w.owner.key, body: { url: 'http://[2002:7f00:1::]/hook' }, baseUrl: api.url });
        expect(problem(moved, 400).errors?.[0].path).to.equal('/url');
        expect((await request('GET', path, { token: w.owner.key, baseUrl: api.url })).body.url).to.equal('https://[2606:4700::1111]/hook');
        await request('DELETE', path, { token: w.owner.key, baseUrl: api.url });
      } finally {
        await api.stop();
      }
    });

    it('a process that refuses private targets does not deliver to a loopback subscription made while they were allowed', async () => {
      const hook = await countingReceiver();
      const w = await createWorkspace();
      // Made on the run's shared process, which allows private targets.
      const sub = await subscribeOn(w, hook.url);
      expect(sub.status, sub.text).to.equal(201);
      // Any process's worker may take a drain; only the refusing process may try this one.
      await env.service.dispatcher.stop();
      let api: RunningService | undefined;
      try {
        api = await startExtraService({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off' });
        await createNode(w);
        const path = w.path(`/webhooks/${sub.body.id}`);
        const disabled = await until('the subscription disabled', async () => {
          if (hook.hits() > 0) throw new Error('the receiver was reached');
          const res = await request('GET', path, { token: w.owner.key });
          return res.body.status === 'disabled' ? res.body : undefined;
        });
        expect(hook.hits()).to.equal(0);
        expect(disabled.disabledReason).to.match(/not sent: the URL reaches a special-purpose address \(loopback\)/);
        const log = (await request('GET', `${path}/deliveries`, { token: w.owner.key })).body.deliveries;
        expect(log).to.have.length(1);
        expect(log[0]).to.include({ status: 'failed', attempts: env.config.webhooks.maxAttempts, lastStatusCode: null });
        expect(log[0].lastError).to.match(/^not sent: the URL reaches a special-purpose address \(loopback\)/);
      } finally {
        await api?.stop();
        env.service.dispatcher.start();
        await hook.close();
      }
    });
  });
});

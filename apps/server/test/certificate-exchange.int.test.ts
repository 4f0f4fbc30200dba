import { beforeAll, describe, expect, it } from 'vitest';
import type { TCertificateChainResponse } from '@manifold/contract';
import { parseCertificateBundle } from '../src/crypto/certificates.js';
import type { DevelopmentCa } from '../src/crypto/development-ca.js';
import { requestPeerCertificates } from '../src/peers/certificate-exchange.client.js';
import { DEFAULT_PEER_HTTP_LIMITS, parsePeerHostPolicy } from '../src/peers/http-client.js';
import { multipartForm } from './helpers/multipart.js';
import { describeEachDatabase, expectToken, type TestApp } from './helpers/test-app.js';
import { DAY_MS, peerIdentity, testIntermediate, testRoot } from './helpers/test-pki.js';

const loopbackPeers = { ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('127.0.0.0/8, ::1') };

const url = '/certificate/certificateChain';

function exchange(ctx: TestApp, body: unknown) {
  return ctx.call('POST', url, { body });
}

describeEachDatabase(
  'certificate exchange',
  (ctx) => {
    let networkRoot: DevelopmentCa;
    let peer: { certificatePem: string };

    beforeAll(async () => {
      networkRoot = await testRoot('Partner Network Root');
      peer = await peerIdentity(networkRoot);
    });

    /** This server gets keys, certificates (development CA) and the partner network as trust anchor; once. */
    let provisioning: Promise<void> | undefined;
    const provisioned = () =>
      (provisioning ??= (async () => {
        const token = await ctx().adminToken();
        expect((await ctx().call('POST', '/ui/admin/provision', { token, body: { keyType: 'EC' } })).statusCode).toBe(200);
        expect((await ctx().call('POST', '/ui/admin/provision/development-ca', { token })).statusCode).toBe(200);
        const { body, headers } = multipartForm({
          certificateType: 'trustAnchor',
          file: { filename: 'root.pem', content: networkRoot.certificatePem },
        });
        expect((await ctx().call('POST', '/ui/admin/upload/provision', { token, body, headers })).statusCode).toBe(200);
      })());

    describe(`POST ${url} while this server has no certificates`, () => {
      it('is a partner interface: no session is needed', async () => {
        const response = await exchange(ctx(), { replyRequest: 'both', certificate: [peer.certificatePem] });
        expect(response.statusCode).not.toBe(401);
        expect(response.statusCode).toBe(420);
      });

      it('refuses a missing or unknown replyRequest and an unknown certificateType', async () => {
        for (const body of [
          { certificate: [peer.certificatePem] },
          { replyRequest: 'all', certificate: [peer.certificatePem] },
        ]) {
          const response = await exchange(ctx(), body);
          expectToken(response, 420, 'replyRequestInvalid');
          expect(response.json()).toMatchObject({ field: 'replyRequest' });
        }
        expectToken(
          await exchange(ctx(), { replyRequest: 'both', certificateType: 'factory', certificate: [peer.certificatePem] }),
          420,
          'certificateTypeInvalid',
        );
      });

      it('answers certificateExchangeMissingCertificate without the caller’s certificate', async () => {
        for (const body of [
          { replyRequest: 'both' },
          { replyRequest: 'both', certificate: [] },
          { replyRequest: 'signing', certificate: ['  '] },
        ]) {
          expectToken(await exchange(ctx(), body), 420, 'certificateExchangeMissingCertificate');
        }
        expectToken(await exchange(ctx(), { replyRequest: 'both', certificate: peer.certificatePem }), 400, 'malformedRequest');
        expectToken(await exchange(ctx(), { replyRequest: 'both', certificate: [42] }), 400, 'malformedRequest');
      });

      it('answers certificateExchangeNotInitialized while this server has no certificates', async () => {
        const description = expectToken(
          await exchange(ctx(), { replyRequest: 'both', certificate: [peer.certificatePem] }),
          420,
          'certificateExchangeNotInitialized',
        ).errorDescription;
        expect(description).toMatch(/signing and encryption certificate/);
      });
    });

    describe(`POST ${url} once this server has certificates and trusts the partner network`, () => {
      beforeAll(provisioned);

      it('answers the certificates asked for to a caller whose chain ends in a trust anchor', async () => {
        const { credentials } = ctx().app.services;
        const signing = await credentials.signingIdentity();
        const encryption = await credentials.encryptionIdentity();
        const both = await exchange(ctx(), {
          replyRequest: 'both',
          certificateType: 'trace',
          certificate: [peer.certificatePem],
        });
        expect(both.statusCode, both.body).toBe(200);
        expect(both.json()).toEqual({ signingCertificate: signing.chainPem, encryptionCertificate: encryption.chainPem });
        expect(parseCertificateBundle(both.json<TCertificateChainResponse>().signingCertificate!)[0]!.pem).toBe(
          signing.certificatePem,
        );

        const onlySigning = await exchange(ctx(), { replyRequest: 'signing', certificate: [peer.certificatePem] });
        expect(onlySigning.json()).toEqual({ signingCertificate: signing.chainPem, encryptionCertificate: null });
        const onlyEncryption = await exchange(ctx(), {
          replyRequest: 'encryption',
          certificateType: null,
          certificate: [peer.certificatePem],
        });
        expect(onlyEncryption.json()).toEqual({ signingCertificate: null, encryptionCertificate: encryption.chainPem });
      });

      it('accepts a caller chain through an intermediate, given as separate elements or as one bundle', async () => {
        const intermediate = await testIntermediate(networkRoot, 'Partner Issuing CA');
        const viaIntermediate = await peerIdentity(intermediate);
        for (const certificate of [
          [viaIntermediate.certificatePem, intermediate.certificatePem],
          [`${viaIntermediate.certificatePem}\n${intermediate.certificatePem}`],
        ]) {
          const response = await exchange(ctx(), { replyRequest: 'signing', certificate });
          expect(response.statusCode, response.body).toBe(200);
        }
        const description = expectToken(
          await exchange(ctx(), { replyRequest: 'signing', certificate: [viaIntermediate.certificatePem] }),
          420,
          'certificateExchangeChainVerifyFail',
        ).errorDescription;
        expect(description).toMatch(/untrustedRoot/);
      });

      it('answers certificateExchangeChainVerifyFail for a chain from another network, an expired one, or garbage', async () => {
        const stranger = await peerIdentity(await testRoot('Stranger Network Root'));
        const expired = await peerIdentity(networkRoot, {
          issue: { notBefore: new Date(Date.now() - 400 * DAY_MS), notAfter: new Date(Date.now() - DAY_MS) },
        });
        const cases: [string[], RegExp][] = [
          [[stranger.certificatePem], /untrustedRoot.*Stranger Network Root/],
          [[expired.certificatePem], /\(expired\)/],
          [['hello'], /\(malformed\)/],
        ];
        for (const [certificate, reason] of cases) {
          const description = expectToken(
            await exchange(ctx(), { replyRequest: 'both', certificate }),
            420,
            'certificateExchangeChainVerifyFail',
          ).errorDescription;
          expect(description).toMatch(reason);
        }
      });
    });

    describe('the certificate exchange client against this server', () => {
      beforeAll(provisioned);
      it('fetches and verifies the certificates over HTTP', async () => {
        const address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
        const { credentials } = ctx().app.services;
        const answer = await requestPeerCertificates({
          peerUrl: address,
          http: loopbackPeers,
          replyRequest: 'both',
          certificate: [peer.certificatePem],
          trustAnchors: await credentials.trustAnchors(),
        });
        expect(answer.signingCertificate).toBe((await credentials.signingIdentity()).chainPem);
        expect(answer.signingPath!.map((step) => step.subject)).toEqual([
          'CN=Manifold manage signing, O=Manifold, OU=manage',
          expect.stringContaining('not for production'),
        ]);
        await expect(
          requestPeerCertificates({
            peerUrl: address,
            http: loopbackPeers,
            replyRequest: 'both',
            certificate: [peer.certificatePem],
            trustAnchors: [networkRoot.certificatePem],
          }),
        ).rejects.toMatchObject({ token: 'certificateExchangeChainVerifyFail' });
        const stranger = await peerIdentity(await testRoot('Another Stranger Root'));
        await expect(
          requestPeerCertificates({
            peerUrl: address,
            http: loopbackPeers,
            replyRequest: 'signing',
            certificate: [stranger.certificatePem],
            trustAnchors: await credentials.trustAnchors(),
          }),
        ).rejects.toMatchObject({
          token: 'certificateExchangeChainVerifyFail',
          message: expect.stringMatching(/^The peer answered: /),
        });
      });
    });
  },
  { DEVELOPMENT_CA: 'true' },
);

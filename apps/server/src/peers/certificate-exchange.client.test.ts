import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCsr } from '../crypto/csr.js';
import { createDevelopmentRootCa, signCsrWithDevelopmentCa, type DevelopmentCa } from '../crypto/development-ca.js';
import { generateKeyPair } from '../crypto/key-pairs.js';
import { requestPeerCertificates, type CertificateExchangeRequest } from './certificate-exchange.client.js';
import { DEFAULT_PEER_HTTP_LIMITS, parsePeerHostPolicy } from './http-client.js';

type Handler = (request: http.IncomingMessage, body: string, response: http.ServerResponse) => void;

let server: http.Server;
let baseUrl: string;
let handler: Handler;
let root: DevelopmentCa;
let otherRoot: DevelopmentCa;
let signingCertificate: string;
let encryptionCertificate: string;
const received: { url: string | undefined; body: unknown }[] = [];

async function certificateFor(ca: DevelopmentCa, purpose: 'signing' | 'encryption'): Promise<string> {
  const { privateKeyPem } = await generateKeyPair('EC');
  return signCsrWithDevelopmentCa(ca, await createCsr({ siteName: 'Peer', service: 'manage', purpose, privateKeyPem }));
}

const json = (response: http.ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};

beforeAll(async () => {
  root = await createDevelopmentRootCa({ keyType: 'EC', commonName: 'Client Test Root' });
  otherRoot = await createDevelopmentRootCa({ keyType: 'EC', commonName: 'Client Other Root' });
  signingCertificate = await certificateFor(root, 'signing');
  encryptionCertificate = await certificateFor(root, 'encryption');
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      received.push({ url: request.url, body: body ? JSON.parse(body) : undefined });
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const request = (overrides: Partial<CertificateExchangeRequest> = {}): CertificateExchangeRequest => ({
  peerUrl: baseUrl,
  http: { ...DEFAULT_PEER_HTTP_LIMITS, allowedHosts: parsePeerHostPolicy('127.0.0.0/8') },
  replyRequest: 'both',
  certificate: ['-----BEGIN CERTIFICATE-----\nours\n-----END CERTIFICATE-----'],
  trustAnchors: [root.certificatePem],
  timeoutMs: 2000,
  ...overrides,
});

describe('requestPeerCertificates', () => {
  it('posts our chain to /certificate/certificateChain and answers the verified certificates', async () => {
    handler = (_request, _body, response) => json(response, 200, { signingCertificate, encryptionCertificate });
    received.length = 0;
    const answer = await requestPeerCertificates(request({ peerUrl: `${baseUrl}/manage/`, certificateType: 'trace' }));
    expect(received).toEqual([
      {
        url: '/manage/certificate/certificateChain',
        body: { replyRequest: 'both', certificateType: 'trace', certificate: request().certificate },
      },
    ]);
    expect(answer.signingCertificate).toBe(signingCertificate);
    expect(answer.encryptionCertificate).toBe(encryptionCertificate);
    expect(answer.signingPath!.map((step) => step.subject)).toEqual([
      'CN=Peer manage signing, O=Peer, OU=manage',
      expect.stringContaining('CN=Client Test Root'),
    ]);
  });

  it('sends certificateType manage by default and keeps only what was asked for', async () => {
    handler = (_request, _body, response) => json(response, 200, { signingCertificate, encryptionCertificate: null });
    received.length = 0;
    const answer = await requestPeerCertificates(request({ replyRequest: 'signing' }));
    expect(received[0]!.body).toMatchObject({ replyRequest: 'signing', certificateType: 'manage' });
    expect(answer).toMatchObject({ signingCertificate, encryptionCertificate: null, encryptionPath: null });
  });

  it('answers certificateExchangeMissingCertificate when a certificate asked for is absent', async () => {
    handler = (_request, _body, response) => json(response, 200, { signingCertificate, encryptionCertificate: null });
    await expect(requestPeerCertificates(request())).rejects.toMatchObject({
      token: 'certificateExchangeMissingCertificate',
      message: expect.stringContaining('encryption'),
    });
  });

  it('answers certificateExchangeChainVerifyFail for certificates from another network', async () => {
    const stranger = await certificateFor(otherRoot, 'signing');
    handler = (_request, _body, response) => json(response, 200, { signingCertificate: stranger, encryptionCertificate: null });
    await expect(requestPeerCertificates(request({ replyRequest: 'signing' }))).rejects.toMatchObject({
      token: 'certificateExchangeChainVerifyFail',
      message: expect.stringMatching(/untrustedRoot.*Client Other Root/),
    });
  });

  it('answers certificateExchangeInvalidResponse for an answer that is not JSON, has the wrong shape, or is too large', async () => {
    const answers: Handler[] = [
      (_request, _body, response) => response.end('<html>hello</html>'),
      (_request, _body, response) => json(response, 200, { signingCertificate: 42 }),
      (_request, _body, response) =>
        json(response, 200, { signingCertificate: 'x'.repeat(300_000), encryptionCertificate: null }),
      (_request, _body, response) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = 'x'.repeat(64 * 1024);
        for (let i = 0; i < 8; i += 1) response.write(chunk);
        response.end();
      },
    ];
    for (const answer of answers) {
      handler = answer;
      await expect(requestPeerCertificates(request({ maxResponseBytes: 256 * 1024 }))).rejects.toMatchObject({
        token: 'certificateExchangeInvalidResponse',
      });
    }
  });

  it('relays the peer’s own exchange token when it refuses our chain', async () => {
    handler = (_request, _body, response) =>
      json(response, 420, { errorToken: 'certificateExchangeChainVerifyFail', errorDescription: 'untrusted root' });
    await expect(requestPeerCertificates(request())).rejects.toMatchObject({
      token: 'certificateExchangeChainVerifyFail',
      message: 'The peer answered: untrusted root',
    });
    handler = (_request, _body, response) =>
      json(response, 420, { errorToken: 'certificateExchangeNotInitialized', errorDescription: 'no certificates' });
    await expect(requestPeerCertificates(request())).rejects.toMatchObject({ token: 'certificateExchangeNotInitialized' });
  });

  it('answers certificateExchangeCommunicationFailed for another status, a redirect, a timeout or no server', async () => {
    handler = (_request, _body, response) => json(response, 500, { errorToken: 'unknownError', errorDescription: 'boom' });
    await expect(requestPeerCertificates(request())).rejects.toMatchObject({
      token: 'certificateExchangeCommunicationFailed',
      message: expect.stringContaining('HTTP 500'),
    });
    handler = (_request, _body, response) => {
      response.writeHead(302, { location: 'http://169.254.169.254/' });
      response.end();
    };
    await expect(requestPeerCertificates(request())).rejects.toMatchObject({ token: 'certificateExchangeCommunicationFailed' });
    handler = () => undefined; // never answers
    await expect(requestPeerCertificates(request({ timeoutMs: 200 }))).rejects.toMatchObject({
      token: 'certificateExchangeCommunicationFailed',
      message: expect.stringContaining('no answer within 200 ms'),
    });
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    await expect(requestPeerCertificates(request({ peerUrl: `http://127.0.0.1:${port}` }))).rejects.toMatchObject({
      token: 'certificateExchangeCommunicationFailed',
    });
  });

  it('refuses addresses that are not http or https with httpClientBadUrl', async () => {
    for (const peerUrl of ['not an address', 'ftp://peer.example/', 'file:///etc/passwd', 'http://user:secret@peer.example/']) {
      await expect(requestPeerCertificates(request({ peerUrl }))).rejects.toMatchObject({ token: 'httpClientBadUrl' });
    }
  });
});

import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyDetachedJws } from '@manifold/server/src/crypto/jws.js';
import { canonicalJson } from '@manifold/server/src/lib/canonical-json.js';
import { eventHash } from '@manifold/server/src/modules/events/trace-event-format.js';
import { stpSignedContent } from '@manifold/contract';
import { developmentCaFile, readCaFile } from './ca-file.js';
import { createMachineCredentials, EventChain, jobSettings, stpEnvelope, type AuthorizedParameter } from './protocol.js';

const parameter = (overrides: Partial<AuthorizedParameter>): AuthorizedParameter => ({
  parameterId: 'p',
  type: 'integer',
  adjust: 'FREE',
  low: null,
  high: null,
  units: null,
  values: [],
  resetValue: null,
  choices: [],
  ...overrides,
});

describe('the machine side of the protocol', () => {
  it('chains events: each names the hash of the one before; event() leaves the head alone', () => {
    const chain = new EventChain('device-1');
    const first = chain.next('machineIdle');
    const second = chain.next('machineOffline');
    expect(first.previousHash).toBeNull();
    expect(second.previousHash).toBe(eventHash(first));
    const aside = chain.event('machineIdle');
    expect(aside.previousHash).toBeNull();
    expect(chain.head).toBe(eventHash(second));
    expect(EventChain.body(second)).not.toHaveProperty('deviceId');
  });

  it('keeps job settings inside the authorized parameters', () => {
    const settings = jobSettings(
      [
        parameter({ parameterId: 'bedTemperature', low: 55, high: 100, adjust: 'INCREASE' }),
        parameter({ parameterId: 'layerHeight', type: 'decimal', adjust: 'LOCK', low: 0.05, high: 0.3, values: ['0.1'] }),
        parameter({ parameterId: 'material', type: 'choice', choices: ['PLA', 'PETG'], values: ['PETG'] }),
        parameter({ parameterId: 'note', type: 'string' }),
        parameter({ parameterId: '9lives', resetValue: '1' }),
      ],
      () => 0.999,
    );
    expect(settings).toEqual({ param_bedTemperature: '100', param_layerHeight: '0.1', param_material: 'PETG' });
  });

  it('signs STP envelopes the server verifies, and registration records with the machine key', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'simulator-'));
    try {
      const { ca, created } = await developmentCaFile(path.join(dir, 'ca.pem'));
      expect(created).toBe(true);
      const read = await readCaFile(path.join(dir, 'ca.pem'));
      expect([read.keyType, read.certificatePem.trim(), read.privateKeyPem.trim()]).toEqual([
        ca.keyType,
        ca.certificatePem.trim(),
        ca.privateKeyPem.trim(),
      ]);
      expect((await developmentCaFile(path.join(dir, 'ca.pem'))).created).toBe(false);
      expect((await fs.stat(path.join(dir, 'ca.pem'))).mode & 0o777).toBe(0o600);
      const credentials = await createMachineCredentials(ca, { identity: { name: 'Line 1' } });
      expect(credentials.apl.deviceIdentity.name).toBe('Line 1');
      const envelope = await stpEnvelope(credentials.signingKeyPem, 'device-1', '/stp/order/list', { pageNum: 1 });
      const { signature, ...unsigned } = envelope;
      await verifyDetachedJws(
        signature,
        canonicalJson(stpSignedContent(unsigned, '/stp/order/list')),
        credentials.apl.signingCertificate,
      );
      await expect(
        verifyDetachedJws(
          signature,
          canonicalJson(stpSignedContent(unsigned, '/stp/authorization/list')),
          credentials.apl.signingCertificate,
        ),
      ).rejects.toThrow();
      const request = (await credentials.request()) as { apl: unknown; signature: string };
      await verifyDetachedJws(request.signature, canonicalJson(request.apl), credentials.apl.signingCertificate);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { ZTraceEventBody } from '@manifold/contract';
import { parseXmlSafely } from '../../crypto/xml-signature.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { canonicalEvent, eventHash, fieldsOfEventXml, traceEventXml } from './trace-event-format.js';

const body = ZTraceEventBody.parse({
  eventId: '0b7f3c1e-8d5a-4c2b-9f61-3e2d1c0b9a87',
  kind: 'jobEnded',
  occurredAt: '2026-11-24T09:00:00.000Z',
  authorizationId: '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  jobId: 'job-1',
  quantity: 3,
  data: { operator: 'Ada', note: 'ok' },
});
const deviceId = 'f0e1d2c3-b4a5-4697-8877-665544332211';

describe('the canonical form of a trace event', () => {
  it('is every field, keys sorted, absent ones null, no whitespace', () => {
    const canonical =
      '{"authorizationId":"5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d","data":{"note":"ok","operator":"Ada"},' +
      '"deviceId":"f0e1d2c3-b4a5-4697-8877-665544332211","eventId":"0b7f3c1e-8d5a-4c2b-9f61-3e2d1c0b9a87",' +
      '"jobId":"job-1","kind":"jobEnded","occurredAt":"2026-11-24T09:00:00.000Z","previousHash":null,"quantity":3}';
    expect(eventHash(canonicalEvent(body, deviceId))).toBe(createHash('sha256').update(canonical).digest('hex'));
  });

  it('hashes the bytes canonicalJson writes, whatever the order of its members and data', () => {
    const events = [
      canonicalEvent(body, deviceId),
      { ...canonicalEvent({ ...body, data: { b_2: 'x', B1: 'y', a: '"\\u00e9\u2028', Z: '' } }, deviceId) },
      canonicalEvent(
        { ...body, authorizationId: null, jobId: null, quantity: null, previousHash: 'ab'.repeat(32), data: {} },
        deviceId,
      ),
    ];
    for (const event of events) {
      const reordered = Object.fromEntries(Object.entries(event).reverse()) as typeof event;
      expect(eventHash(reordered)).toBe(createHash('sha256').update(canonicalJson(event)).digest('hex'));
    }
  });

  it('reads back from its XML form to the same event', () => {
    const event = canonicalEvent(body, deviceId);
    const fields = fieldsOfEventXml(parseXmlSafely(traceEventXml(event)).documentElement!);
    expect(fields.deviceId).toBe(deviceId);
    expect(canonicalEvent(ZTraceEventBody.parse(fields.body), fields.deviceId)).toEqual(event);
  });

  it('refuses repeated fields and foreign elements in the XML form', () => {
    const xml = traceEventXml(canonicalEvent(body, deviceId));
    const twice = xml.replace('<Kind>', '<JobId>x</JobId><Kind>');
    expect(() => fieldsOfEventXml(parseXmlSafely(twice).documentElement!)).toThrow('JobId appears twice');
    const foreign = xml.replace('<Kind>', '<x:Kind xmlns:x="urn:other">jobEnded</x:Kind><Kind>');
    expect(() => fieldsOfEventXml(parseXmlSafely(foreign).documentElement!)).toThrow('Unexpected element');
  });
});

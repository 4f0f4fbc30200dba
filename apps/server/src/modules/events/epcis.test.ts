import { describe, expect, it } from 'vitest';
import * as oracle from 'epcis2.js';
import { epcisDocument, epcisEventHash, type EpcisEventInput, preHashString } from './epcis.js';

/** The `epcis2.js` package (GS1 EPCIS 2.0 JSON Schema and event hash), a test-only oracle. */
const epcis2 = ((oracle as { default?: unknown }).default ?? oracle) as {
  eventToHashedId(event: unknown, context: unknown): string;
  validateEpcisDocument(document: unknown, throwError: boolean): { success: boolean; errors: unknown[] };
};

const part = 'urn:uuid:0b7f3c1e-8d5a-4c2b-9f61-3e2d1c0b9a87';
const machine = 'urn:uuid:f0e1d2c3-b4a5-4697-8877-665544332211';
const order = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

const samples: EpcisEventInput[] = [
  {
    type: 'TransformationEvent',
    eventTime: '2026-11-24T10:00:00+01:00',
    outputEPCList: [part, 'urn:uuid:00000000-0000-4000-8000-000000000001'],
    transformationID: 'urn:uuid:11111111-2222-4333-8444-555555555555',
    bizStep: 'commissioning',
    readPoint: machine,
    extensions: { orderId: order, dsiId: 'a8f2c0de-0000-4000-8000-000000000000', dsiVersion: '3', jobId: 'job-1' },
  },
  {
    type: 'ObjectEvent',
    eventTime: '2026-11-24T09:00:00.5Z',
    epcList: [part],
    action: 'ADD',
    bizStep: 'commissioning',
    disposition: 'active',
    readPoint: machine,
    extensions: { orderId: order, serialNumber: 'SN-1', partQmsState: 'NO_QMS_STEP' },
  },
  {
    type: 'ObjectEvent',
    eventTime: '2026-11-24T09:30:00.000Z',
    epcList: [part],
    action: 'OBSERVE',
    bizStep: 'inspecting',
    disposition: 'non_conformant',
    readPoint: machine,
    extensions: { kind: 'qualityCheckFailed', eventId: 'e1', eventHash: 'ab'.repeat(32), data: '{"height":"12.0"}' },
  },
  {
    type: 'ObjectEvent',
    eventTime: '2026-11-24T09:30:00Z',
    epcList: [part],
    action: 'DELETE',
    bizStep: 'destroying',
    disposition: 'destroyed',
  },
  {
    type: 'ObjectEvent',
    eventTime: '2026-11-24T09:30:00Z',
    epcList: [machine],
    action: 'OBSERVE',
    readPoint: machine,
    extensions: { kind: 'machineIdle' },
  },
];

describe('EPCIS 2.0 export', () => {
  const document = epcisDocument(samples, '2026-11-24T11:00:00Z');

  it('writes documents the GS1 EPCIS 2.0 JSON Schema accepts', () => {
    expect(epcis2.validateEpcisDocument(document, false)).toEqual({ success: true, errors: [] });
  });

  it('gives each event the CBV 2.0 event hash an independent implementation computes', () => {
    for (const [index, event] of document.epcisBody.eventList.entries()) {
      const { eventID, ...content } = event;
      expect(eventID, preHashString(samples[index]!)).toBe(epcis2.eventToHashedId(content, document['@context']));
      expect(eventID).toMatch(/^ni:\/\/\/sha-256;[0-9a-f]{64}\?ver=CBV2\.0$/);
    }
  });

  it('changes the hash with any field, not with the order of list members or the time\u2019s offset', () => {
    const base = samples[0]!;
    expect(epcisEventHash({ ...base, outputEPCList: [...base.outputEPCList!].reverse() })).toBe(epcisEventHash(base));
    expect(epcisEventHash({ ...base, eventTime: '2026-11-24T09:00:00.000Z' })).toBe(epcisEventHash(base));
    expect(epcisEventHash({ ...base, extensions: { ...base.extensions, jobId: 'job-2' } })).not.toBe(epcisEventHash(base));
    expect(epcisEventHash({ ...base, bizStep: 'other' })).not.toBe(epcisEventHash(base));
  });
});

import { describe, expect, it } from 'vitest';
import { switchOn, traceEnabled } from './trace-enabled.js';

describe('switchOn', () => {
  it('reads a stored switch as on unless it says false or 0, as every reader of it does', async () => {
    for (const off of ['false', 'FALSE', ' false ', '0']) expect(switchOn(off), off).toBe(false);
    for (const on of [undefined, 'true', '1', 'yes']) expect(switchOn(on), String(on)).toBe(true);
    expect(await traceEnabled({ get: async () => '0' })).toBe(false);
    expect(await traceEnabled({ get: async () => undefined })).toBe(true);
  });
});

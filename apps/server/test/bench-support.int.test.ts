import { describe, expect, it } from 'vitest';
import { type BenchCall, provisionBenchServer, registerBenchMachine } from '../bench/bench-support.js';
import { describeEachDatabase } from './helpers/test-app.js';

/**
 * The benchmarks' set-up (apps/server/bench/bench-support.ts) against the server as it is: the
 * suite does not run the benchmarks, and their machine registration once fell behind the
 * network's rules unseen (`registrationExchangeInvalidApl`). What `bench:authorize`,
 * `bench:instances`, `bench:orders` and `bench:ingest` do before they measure is done here.
 */
describeEachDatabase('benchmark set-up', (ctx) => {
  describe('provisionBenchServer and registerBenchMachine', () => {
    it('provision the server, then register a machine and approve it, as the benchmarks do', async () => {
      const token = await ctx().adminToken();
      // the benchmarks' call (a non-2xx answer throws), through the app
      const call: BenchCall = async (method, url, body, headers = {}) => {
        const response = await ctx().call(method as 'GET' | 'POST', url, { token, body, headers });
        if (response.statusCode < 200 || response.statusCode > 299) {
          throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
        }
        return response.body.startsWith('{') ? (response.json() as unknown) : response.body;
      };
      const { root, signing } = await provisionBenchServer(call);
      expect(signing).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const { deviceId, signingKeyPem } = await registerBenchMachine(call, root, 'bench-machine');
      expect(signingKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
      const devices = await ctx().call('GET', '/ui/device/list', { token });
      expect(devices.statusCode).toBe(200);
      const listed = devices.json<{ data: { deviceId: string; registrationState: string }[] }>().data;
      expect(listed.map((device) => [device.deviceId, device.registrationState])).toEqual([[deviceId, 'Approved']]);
    });
  });
});

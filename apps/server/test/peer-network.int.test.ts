import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TManageInstance } from '@manifold/contract';
import { joinNetwork, startPeer, type PeerProcess } from './helpers/peer-network.js';
import { testRoot } from './helpers/test-pki.js';

/** Two real server processes (own DATA_DIR, SQLite) provisioned under one network root. */
describe('two Manage instances register with each other', () => {
  let upstream: PeerProcess;
  let downstream: PeerProcess;

  beforeAll(async () => {
    const root = await testRoot('Two Instances Root');
    [upstream, downstream] = await Promise.all([
      startPeer('Upstream Site', { JOBS_POLL_MS: '200' }),
      startPeer('Downstream Site', { JOBS_POLL_MS: '200' }),
    ]);
    await Promise.all([joinNetwork(upstream.call, root), joinNetwork(downstream.call, root)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([upstream?.stop(), downstream?.stop()]);
  });

  const list = async (instance: PeerProcess, registrationType: string) =>
    ((await instance.call('GET', `/ui/manage/list?registrationType=${registrationType}`)).json() as { data: TManageInstance[] })
      .data;

  async function register(asking: PeerProcess, answering: PeerProcess, registrationType: string, answeringType: string) {
    const added = await asking.call('POST', '/ui/manage/add', { body: { registrationType, manageUrl: answering.url } });
    expect(added.statusCode, added.body).toBe(200);
    const ours = added.json() as TManageInstance;
    expect(ours).toMatchObject({ manageType: registrationType, initiator: true, registrationState: 'Pending' });
    const theirs = (await list(answering, answeringType)).find((entry) => entry.registrationNonce === ours.registrationNonce)!;
    expect(theirs).toMatchObject({
      manageType: answeringType,
      initiator: false,
      registrationState: 'Pending',
      manageURL: asking.url,
    });
    const approved = await answering.call('POST', '/ui/manage/approve', { body: { id: theirs.manageId, approve: true } });
    expect(approved.statusCode, approved.body).toBe(200);
    expect((await list(asking, registrationType)).find((entry) => entry.manageId === ours.manageId)).toMatchObject({
      registrationState: 'Approved',
    });
    expect((await list(answering, answeringType)).find((entry) => entry.manageId === theirs.manageId)).toMatchObject({
      registrationState: 'Approved',
    });
  }

  it('the upstream adds the downstream, which approves', async () => {
    await register(upstream, downstream, 'downStreamManage', 'upStreamManage');
    expect((await list(upstream, 'downStreamManage'))[0]).toMatchObject({
      manageSiteName: 'Downstream Site',
      cryptoCertsForEncryption: [expect.objectContaining({ keyUse: 'encryption', companyName: 'Downstream Site' })],
    });
  });

  it('the other side cannot register the same relation again, but asks for its own, which the first approves', async () => {
    const again = await downstream.call('POST', '/ui/manage/add', {
      body: { registrationType: 'upStreamManage', manageUrl: upstream.url },
    });
    expect(again.json()).toMatchObject({ errorToken: 'registrationExchangeAlreadyRegistered' });
    await register(downstream, upstream, 'downStreamManage', 'upStreamManage');
    expect(
      (await list(upstream, 'all')).map((entry) => [entry.manageType, entry.initiator, entry.registrationState]).sort(),
    ).toEqual([
      ['downStreamManage', true, 'Approved'],
      ['upStreamManage', false, 'Approved'],
    ]);
  });

  it('a deletion reaches the other side through the background job runner', async () => {
    const [ours] = (await list(upstream, 'upStreamManage')).filter((entry) => !entry.initiator);
    const theirs = (await list(downstream, 'downStreamManage')).find(
      (entry) => entry.registrationNonce === ours!.registrationNonce,
    )!;
    expect((await upstream.call('POST', '/ui/manage/delete', { body: { id: ours!.manageId } })).statusCode).toBe(200);
    const deadline = Date.now() + 20_000;
    let state = theirs.registrationState;
    while (state !== 'Cancelled' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = (await list(downstream, 'downStreamManage')).find((entry) => entry.manageId === theirs.manageId)!.registrationState;
    }
    expect(state).toBe('Cancelled');
  }, 30_000);

  it('an instance of another network is refused at the certificate exchange', async () => {
    const extra = await startPeer('Third Site');
    try {
      await joinNetwork(extra.call, await testRoot('Unrelated Root'));
      const refused = await upstream.call('POST', '/ui/manage/add', { body: { manageUrl: extra.url } });
      expect(refused.json()).toMatchObject({ errorToken: 'certificateExchangeChainVerifyFail' });
    } finally {
      await extra.stop();
    }
  }, 60_000);
});

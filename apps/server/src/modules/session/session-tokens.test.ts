import { createHmac } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import type { SettingsRepository } from '../settings/settings.repository.js';
import { SessionTokens } from './session-tokens.js';

const key = Buffer.alloc(32, 7);
const settings = { insertIfAbsent: async () => key.toString('base64') } as unknown as SettingsRepository;
const sign = (payload: Record<string, unknown>, head: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }) => {
  const input = `${Buffer.from(JSON.stringify(head)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
};
const good = () => ({ sid: 's1', sub: '5', iss: 'manifold', aud: 'manifold-console', exp: Math.floor(Date.now() / 1000) + 60 });

describe('SessionTokens', () => {
  it('signs standard JWTs that a standard library verifies, and reads them back', async () => {
    const tokens = await SessionTokens.load(settings);
    const token = await tokens.sign({ sessionId: 'abc', userId: 12 }, new Date(Date.now() + 60_000));
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: 'manifold',
      audience: 'manifold-console',
    });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(payload).toMatchObject({ sid: 'abc', sub: '12' });
    expect(await tokens.verify(token)).toEqual({ sessionId: 'abc', userId: 12 });
  });

  it('refuses other algorithms, extra header fields, expiry, wrong issuer or audience, and tampering', async () => {
    const tokens = await SessionTokens.load(settings);
    expect(await tokens.verify(sign(good()))).toEqual({ sessionId: 's1', userId: 5 });
    const hs512 = await new SignJWT(good()).setProtectedHeader({ alg: 'HS512', typ: 'JWT' }).sign(Buffer.alloc(64, 7));
    const refused = [
      sign(good(), { alg: 'none', typ: 'JWT' }),
      sign(good(), { alg: 'HS256' }),
      sign(good(), { alg: 'HS256', typ: 'JWT', kid: 'x' }),
      hs512,
      sign({ ...good(), exp: Math.floor(Date.now() / 1000) - 1 }),
      sign({ ...good(), exp: undefined }),
      sign({ ...good(), iss: 'someone' }),
      sign({ ...good(), aud: 'other' }),
      sign({ ...good(), sub: 'x' }),
      sign({ ...good(), sid: 1 }),
      // every other spelling of the last character, including ones that decode to the same bytes
      ...['A', 'B', 'C', 'D'].map((c) => sign(good()).slice(0, -1) + c).filter((t) => t !== sign(good())),
      `${sign(good()).split('.').slice(0, 2).join('.')}.`,
      'a.b',
      '',
    ];
    for (const token of refused) expect(await tokens.verify(token), token).toBeUndefined();
  });
});

import type { TestCa } from './certificates';
import { signCsr } from './certificates';
import { startServer, type RunningServer } from './server';

/**
 * A second (third…) Manifold instance for the peer-network browser tests: a real server process
 * of its own, provisioned through its API with keys and certificates of a root CA the test made,
 * which it trusts — so every instance provisioned with the same root trusts the others.
 */
export interface PeerInstance extends RunningServer {
  siteName: string;
  /** Calls its API as its admin. */
  call<T>(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<T>;
}

async function answer<T>(label: string, response: Response): Promise<T> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${label} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : {}) as T;
}

export async function startPeerInstance(siteName: string, root: TestCa): Promise<PeerInstance> {
  const server = await startServer({ SITE_NAME: siteName });
  try {
    const login = await fetch(`${server.baseUrl}/ui/user/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: server.adminUsername, password: server.adminPassword }),
    });
    const { sessionToken } = await answer<{ sessionToken: string }>('login', login);
    const authorization = { Authorization: `Bearer ${sessionToken}` };
    const call = async <T>(method: 'GET' | 'POST', pathname: string, body?: unknown): Promise<T> =>
      answer<T>(
        `${method} ${pathname}`,
        await fetch(`${server.baseUrl}${pathname}`, {
          method,
          headers: body === undefined ? authorization : { ...authorization, 'Content-Type': 'application/json' },
          body: body === undefined ? null : JSON.stringify(body),
        }),
      );
    const upload = async (certificateType: string, pem: string) => {
      const form = new FormData();
      form.append('certificateType', certificateType);
      form.append('file', new Blob([pem], { type: 'application/x-pem-file' }), `${certificateType}.pem`);
      await answer(
        `upload ${certificateType}`,
        await fetch(`${server.baseUrl}/ui/admin/upload/provision`, { method: 'POST', headers: authorization, body: form }),
      );
    };
    await call('POST', '/ui/admin/provision', { keyType: 'EC' });
    const csrs = await call<{ signingCSR: string; encryptionCSR: string }>('GET', '/ui/admin/provision?csr=both&service=manage');
    await upload('trustAnchor', root.certificatePem);
    await upload('signing', await signCsr(root, csrs.signingCSR));
    await upload('encryption', await signCsr(root, csrs.encryptionCSR));
    return { ...server, siteName, call };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

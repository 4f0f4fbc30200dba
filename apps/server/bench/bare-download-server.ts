// The bare limit of `GET /ui/authorization/download`: a minimal Fastify program doing the work of
// a signed authorization with the same drivers and the same crypto — the session check
// (bare-session.ts); the authorization, its order, its machine, the revision's files, the server's
// two key pairs with the signing certificate (one query) and the server address, each statement
// prepared once; every private file's content key unwrapped with the server's encryption key and
// wrapped for the machine (compact-jwe.ts); the document built (authorizationDocument) and signed
// (signXml, with its check that the result verifies); the audit row — and nothing else (no rules,
// no hooks, no schema, no logging, no access checks). The server's private keys are opened once,
// as the server keeps them. Environment: PORT, DATA_DIR (the key-encryption key), DATABASE_URL.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyObject } from 'node:crypto';
import Fastify from 'fastify';
import { parseCertificate } from '../src/crypto/certificates.js';
import { decryptCompact, encryptCompact, type JweKeyManagement } from '../src/crypto/compact-jwe.js';
import { certificateThumbprint } from '../src/crypto/jws.js';
import { importPrivateKey, keyTypeOf } from '../src/crypto/key-pairs.js';
import { signXml } from '../src/crypto/xml-signature.js';
import { authorizationDocument, effectiveParameters } from '../src/modules/licensing/authorization-document.js';
import { KEY_ENCRYPTION_KEY_FILE } from '../src/modules/provision/key-encryption-key.js';
import { KeySealer } from '../src/modules/provision/key-sealer.js';
import { openBareSession } from './bare-session.js';

type Row = Record<string, unknown>;
const statements = (p: (n: number) => string) => ({
  authorization: `select * from authorizations where id = ${p(1)} and order_id = ${p(2)}`,
  order: `select * from orders where id = ${p(1)}`,
  device: `select * from devices where id = ${p(1)}`,
  files: `select * from revision_files where revision_id = ${p(1)} order by file_id`,
  keys: `select k.purpose, k.sealed_private_key, c.certificate_pem from server_key_pairs k
           left join server_certificates c on c.purpose = k.purpose`,
  serverUrl: `select value from settings where key = ${p(1)}`,
  audit: `insert into audit_events (event_type, actor, subject, details, source_ip, created_at)
         values (${[1, 2, 3, 4, 5, 6].map(p).join(', ')})`,
});
type Name = keyof ReturnType<typeof statements>;

const session = await openBareSession();
let all: (name: Name, values: unknown[]) => Promise<Row[]>;
if (session.database.kind === 'postgres') {
  const { pool } = session.database;
  const text = statements((n) => `$${n}`);
  all = async (name, values) => (await pool.query({ name: `bare-${name}`, text: text[name], values })).rows as Row[];
} else {
  const { db } = session.database;
  const prepared = Object.fromEntries(
    Object.entries(statements(() => '?')).map(([name, sql]) => [name, db.prepare(sql)]),
  ) as Record<Name, ReturnType<typeof db.prepare>>;
  all = async (name, values) => {
    if (name !== 'audit') return prepared[name].all(values) as Row[];
    prepared[name].run(values);
    return [];
  };
}

const sealer = new KeySealer(
  Buffer.from(fs.readFileSync(path.join(process.env.DATA_DIR!, KEY_ENCRYPTION_KEY_FILE), 'utf8').trim(), 'base64'),
);
const opened = new Map<string, { privateKeyPem: string; privateKey: KeyObject }>();
const open = (sealed: string) => {
  let key = opened.get(sealed);
  if (!key) {
    const privateKeyPem = sealer.open(sealed);
    key = { privateKeyPem, privateKey: importPrivateKey(privateKeyPem) };
    opened.set(sealed, key);
  }
  return key;
};
const WRAP: Record<string, JweKeyManagement> = { EC: 'ECDH-ES+A256KW', RSA: 'RSA-OAEP-256' };
const json = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value) as never;

const app = Fastify({ logger: false });
app.get('/ui/authorization/download', async (request, reply) => {
  const caller = await session.authenticate(request.headers.authorization);
  if (!caller) return reply.status(401).send({ errorToken: 'invalidSessionToken' });
  const { orderId, authorizationId } = request.query as { orderId: string; authorizationId: string };
  const [authorizationRow] = await all('authorization', [authorizationId, orderId]);
  const [orderRow] = await all('order', [orderId]);
  if (!authorizationRow || !orderRow) return reply.status(420).send({ errorToken: 'authorizationIdNotValid' });
  const [deviceRow] = await all('device', [authorizationRow.device_id]);
  const files = await all('files', [orderRow.revision_id]);
  const keys = new Map((await all('keys', [])).map((row) => [row.purpose as string, row]));
  const [url] = await all('serverUrl', ['serverUrl']);
  const encryption = open(keys.get('encryption')!.sealed_private_key as string);
  const signing = keys.get('signing')!;
  const certificatePem = parseCertificate(signing.certificate_pem as string).pem;
  const recipientPem = parseCertificate(deviceRow!.encryption_certificate as string).pem;
  const recipientKey = parseCertificate(recipientPem).node.publicKey;
  const alg = WRAP[keyTypeOf(recipientKey)]!;
  const thumbprint = certificateThumbprint(recipientPem);
  const wrapped = files.map((file) => ({
    file,
    wrappedKey: file.wrapped_key
      ? encryptCompact(
          decryptCompact(file.wrapped_key as string, encryption.privateKey, WRAP[keyTypeOf(encryption.privateKey)]!),
          recipientKey,
          alg,
          { 'x5t#S256': thumbprint },
        )
      : null,
  }));
  const authorization = {
    ...authorizationRow,
    authorized_users: json(authorizationRow.authorized_users),
    tracking: json(authorizationRow.tracking),
    device_parameters: json(authorizationRow.device_parameters),
    quality_parameters: json(authorizationRow.quality_parameters),
  };
  const order = {
    ...orderRow,
    device_identity: orderRow.device_identity ? json(orderRow.device_identity) : null,
    device_parameters: json(orderRow.device_parameters),
    quality_parameters: json(orderRow.quality_parameters),
    authorized_users: json(orderRow.authorized_users),
  };
  const device = { ...deviceRow!, parameters: json(deviceRow!.parameters) };
  const xml = authorizationDocument({
    authorization,
    order,
    device,
    manageId: null,
    issuer: {
      manageUrl: (url?.value as string | undefined) ?? '',
      keySerialNumber: parseCertificate(certificatePem).node.serialNumber,
    },
    recipientThumbprint: thumbprint,
    files: wrapped,
    deviceParameters: effectiveParameters(
      [authorization.device_parameters, order.device_parameters, device.parameters],
      (parameter: { parameterId: string }) => parameter.parameterId,
    ),
    qualityParameters: effectiveParameters(
      [authorization.quality_parameters, order.quality_parameters],
      (parameter: { id: string }) => parameter.id,
    ),
  } as never);
  const signed = signXml(xml, { ...open(signing.sealed_private_key as string), certificatePem });
  await all('audit', [
    'licenceDownloaded', caller.username, orderId, JSON.stringify({ authorizationId }), request.ip, new Date().toISOString(),
  ]); // prettier-ignore
  return reply.type('application/xml; charset=utf-8').send(signed);
});
app.get('/healthz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));

import type { TManageInstance, TManageType, TRegistrationState, TTraceInstance } from '@manifold/contract';
import { describeCertificate, parseCertificateBundle } from '../../crypto/certificates.js';
import type { ManageInstanceRow } from '../../db/schema-licensing.js';

type CryptoCert = TManageInstance['cryptoCertsForSigning'][number];

/** The `O=` of a certificate subject: the site name a CSR of this product carries. */
export function organizationOf(subject: string): string | undefined {
  return /(?:^|, )O=([^,]+)/.exec(subject)?.[1];
}

/** Spec §3 Crypto cert of a stored chain's leaf; none when the row has no certificate. */
function cryptoCerts(pem: string | null, keyUse: 'signing' | 'encryption'): CryptoCert[] {
  if (!pem) return [];
  const [leaf] = parseCertificateBundle(pem);
  const description = describeCertificate(leaf!);
  return [
    { keyUse, companyName: organizationOf(description.subject) ?? '', keySerialNumber: description.serialNumber, revoked: false },
  ];
}

export function toManageInstance(row: ManageInstanceRow): TManageInstance {
  return {
    manageId: row.id,
    version: row.version,
    dateCreated: row.created_at,
    manageSiteName: row.manage_site_name,
    manageURL: row.manage_url,
    manageType: row.manage_type as TManageType,
    registrationNonce: row.registration_nonce,
    upstream: row.manage_type === 'upStreamManage',
    registrationState: row.registration_state as TRegistrationState,
    initiator: row.initiator === 1,
    cryptoCertsForSigning: cryptoCerts(row.signing_certificate, 'signing'),
    cryptoCertsForEncryption: cryptoCerts(row.encryption_certificate, 'encryption'),
  };
}

export function toTraceInstance(row: ManageInstanceRow): TTraceInstance {
  return {
    id: row.id,
    version: row.version,
    dateCreated: row.created_at,
    traceSiteName: row.manage_site_name,
    traceURL: row.manage_url,
    registrationState: row.registration_state as TRegistrationState,
    initiator: row.initiator === 1,
    cryptoCertsForSigning: cryptoCerts(row.signing_certificate, 'signing'),
    cryptoCertsForEncryption: cryptoCerts(row.encryption_certificate, 'encryption'),
  };
}

import { type TLicenceDocument, type TLicensingStatus } from '@manifold/contract';
import { describeCertificate, parseCertificate } from '../../crypto/certificates.js';
import { importPublicKey } from '../../crypto/key-pairs.js';
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import { isoNow } from '../../lib/time.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { licenceSettingKeys } from '../settings/server-settings.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { licenceState, verifyLicence } from './licence-document.js';
import { LicenceUsageRepository } from './licence.repository.js';

export type LicensedResource = 'machines' | 'peerInstances';

const limitTokens = { machines: 'licenceMachineLimitReached', peerInstances: 'licencePeerInstanceLimitReached' } as const;

/** The publisher's name for the status: a certificate's subject, or "public key" for a bare key. */
function publisherName(pem: string): string {
  if (!pem.includes('BEGIN CERTIFICATE')) return 'public key';
  return describeCertificate(parseCertificate(pem)).subject;
}

/**
 * The instance's operating licence (docs/administration.md#operating-licence). Without a licence
 * nothing is limited; with one its machine and peer-instance limits hold and only its addons
 * can be on. Installing verifies the file against the configured publisher first: a file that
 * fails changes nothing.
 */
export class LicenceService {
  private readonly publisher: string | null;

  constructor(
    private readonly database: Database,
    private readonly settings: SettingsRepository,
    private readonly publisherPem: string | null,
  ) {
    // a configured publisher that is not a usable key stops the start, not the first upload
    if (publisherPem !== null) importPublicKey(publisherPem);
    this.publisher = publisherPem === null ? null : publisherName(publisherPem);
  }

  private usage(): LicenceUsageRepository {
    return new LicenceUsageRepository(this.database.db);
  }

  async installed(): Promise<{ terms: TLicenceDocument; installedAt: string } | undefined> {
    const values = await this.settings.getMany([licenceSettingKeys.terms, licenceSettingKeys.installedAt]);
    const terms = values.get(licenceSettingKeys.terms);
    if (terms === undefined) return undefined;
    return { terms: JSON.parse(terms) as TLicenceDocument, installedAt: values.get(licenceSettingKeys.installedAt) ?? '' };
  }

  async status(now = new Date()): Promise<TLicensingStatus> {
    const [installed, machines, peerInstances] = await Promise.all([
      this.installed(),
      this.usage().machines(),
      this.usage().peerInstances(),
    ]);
    const limits = installed?.terms.limits ?? {};
    const standing = installed ? licenceState(installed.terms, now) : undefined;
    return {
      installed: installed !== undefined,
      publisher: this.publisher,
      licence: installed
        ? {
            licenceId: installed.terms.licenceId,
            holder: installed.terms.holder,
            validFrom: installed.terms.validFrom,
            validUntil: installed.terms.validUntil,
            addons: installed.terms.addons,
            installedAt: installed.installedAt,
          }
        : null,
      state: standing?.state ?? 'none',
      daysLeft: standing?.daysLeft ?? null,
      usage: {
        machines: { used: machines, limit: limits.machines ?? null },
        peerInstances: { used: peerInstances, limit: limits.peerInstances ?? null },
      },
    };
  }

  /** Verifies and installs a licence file; refused files leave the installed licence as it was. */
  async install(file: Buffer, caller: Caller, now = new Date()): Promise<TLicensingStatus> {
    if (this.publisherPem === null) throw new AppError('licencePublisherNotConfigured', { field: 'file' });
    const text = file.toString('utf8');
    const terms = await verifyLicence(text, this.publisherPem);
    if (licenceState(terms, now).state === 'expired') throw new AppError('licenceExpired', { field: 'file' });
    await this.database.transaction(async (trx) => {
      const settings = new SettingsRepository(trx);
      await settings.set(licenceSettingKeys.file, text.trim());
      await settings.set(licenceSettingKeys.terms, JSON.stringify(terms));
      await settings.set(licenceSettingKeys.installedAt, isoNow());
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'operatingLicenceInstalled', terms.licenceId, {
        holder: terms.holder,
        validUntil: terms.validUntil,
        limits: terms.limits,
        addons: terms.addons,
      });
    });
    return this.status(now);
  }

  /** Refuses one more machine or peer instance when the installed licence's limit is reached. */
  async assertRoom(resource: LicensedResource): Promise<void> {
    const installed = await this.installed();
    const limit = installed?.terms.limits[resource];
    if (limit === undefined) return;
    const used = resource === 'machines' ? await this.usage().machines() : await this.usage().peerInstances();
    if (used >= limit) {
      throw new AppError(limitTokens[resource], {
        description: `The licence allows ${limit} ${resource === 'machines' ? 'machines' : 'peer instances'}; ${used} are registered`,
      });
    }
  }
}

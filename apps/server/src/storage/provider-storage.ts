import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { z } from 'zod';
import { storageProviderIdentifiers, type TStorageProviderSettings } from '@manifold/contract';
import { AppError } from '../lib/app-error.js';
import type { KeySealer } from '../modules/provision/key-sealer.js';
import type { SettingsRepository } from '../modules/settings/settings.repository.js';
import { AzureStorage } from './azure-storage.js';
import type { LocalStorage } from './local-storage.js';
import { type ProviderSettings, publicSettings } from './provider-settings.js';
import { S3Storage } from './s3-storage.js';
import {
  type AbandonedUploadRule,
  type ListedObject,
  type PutOptions,
  type Storage,
  type StorageProvider,
  type StoredObject,
  StorageNotFoundError,
} from './storage.js';

/** The setting that holds the selected provider (its presence completes the wizard's storage step). */
export const STORAGE_PROVIDER_SETTING = 'storage.provider';

const ZProviderRecord = z.object({
  identifier: z.enum(storageProviderIdentifiers),
  /** The sealed JSON of {@link ProviderSettings}; null for the local disk. */
  sealed: z.string().nullable(),
  location: z.string(),
});
export type ProviderRecord = z.infer<typeof ZProviderRecord>;

/** The selected provider and, while its objects are being moved away, the one selected before. */
export const ZProviderSelection = z.object({
  current: ZProviderRecord,
  previous: ZProviderRecord.nullable(),
  /** Changes with every selection: a move job works for the selection it was started for. */
  selectionId: z.string(),
});
export type ProviderSelection = z.infer<typeof ZProviderSelection>;

/** How long an instance trusts the selection it read before reading it again. */
const SELECTION_TTL_MS = 2000;

interface Resolved {
  selection: ProviderSelection | undefined;
  current: StorageProvider;
  previous: StorageProvider | undefined;
}

/**
 * The server's storage: the selected provider (the local disk until an admin selects one),
 * read from the settings every instance shares. While a move runs, writes go to the new
 * provider and reads fall back to the previous one for objects not moved yet; deletes reach
 * both. Credentials are opened from their sealed form only here and never leave it (of them only
 * the settings that are no secret, `publicSettings`, are answered).
 */
export class ProviderStorage implements Storage {
  private resolved: { at: number; raw: string | undefined; value: Resolved } | undefined;
  private readonly opened = new Map<string, StorageProvider>();

  constructor(
    private readonly settings: SettingsRepository,
    private readonly sealer: KeySealer,
    readonly local: LocalStorage,
  ) {}

  /** The provider selection in the settings (undefined: none yet, the local disk). */
  async selection(): Promise<ProviderSelection | undefined> {
    return (await this.resolve(true)).selection;
  }

  /** Seals a provider's settings for the selection record. */
  seal(settings: ProviderSettings): string | null {
    return settings.identifier === 'local' ? null : this.sealer.seal(JSON.stringify(settings));
  }

  /** Opens a provider from its settings (for the probe; not remembered). */
  openSettings(settings: ProviderSettings): StorageProvider {
    if (settings.identifier === 'local') return this.local;
    if (settings.identifier === 'aws') return new S3Storage(settings.s3);
    return new AzureStorage(settings.azure);
  }

  /** A selection record's settings opened from their sealed form; `storageProviderNotConfigured` when they cannot be. */
  private openSealed(sealed: string): ProviderSettings {
    try {
      return JSON.parse(this.sealer.open(sealed)) as ProviderSettings;
    } catch {
      throw new AppError('storageProviderNotConfigured', {
        description: 'The storage provider credentials cannot be opened (was the key-encryption key changed?)',
      });
    }
  }

  /**
   * The settings of a selection record's provider that are no secret (`publicSettings`); null for
   * the local disk, or when the sealed settings cannot be opened (the provider is then unusable, and
   * says so where it is used). The keys stay here.
   */
  publicSettings(record: ProviderRecord): TStorageProviderSettings | null {
    if (record.identifier === 'local' || record.sealed === null) return null;
    try {
      return publicSettings(this.openSealed(record.sealed));
    } catch {
      return null;
    }
  }

  /** Opens a selection record's provider (kept for reuse); `storageProviderNotConfigured` when its sealed settings cannot be opened. */
  open(record: ProviderRecord): StorageProvider {
    if (record.identifier === 'local' || record.sealed === null) return this.local;
    const known = this.opened.get(record.sealed);
    if (known) return known;
    const provider = this.openSettings(this.openSealed(record.sealed));
    this.opened.set(record.sealed, provider);
    return provider;
  }

  /** Forget the cached selection (after this instance changed it). */
  invalidate(): void {
    this.resolved = undefined;
  }

  /** The selected provider and the previous one while a move runs. */
  async providers(): Promise<{ current: StorageProvider; previous: StorageProvider | undefined }> {
    const { current, previous } = await this.resolve();
    return { current, previous };
  }

  private async resolve(fresh = false): Promise<Resolved> {
    const now = Date.now();
    if (!fresh && this.resolved && now - this.resolved.at < SELECTION_TTL_MS) return this.resolved.value;
    const raw = await this.settings.get(STORAGE_PROVIDER_SETTING);
    if (this.resolved && this.resolved.raw === raw) {
      this.resolved.at = now;
      return this.resolved.value;
    }
    const selection = raw === undefined ? undefined : ZProviderSelection.parse(JSON.parse(raw));
    const value: Resolved = {
      selection,
      current: selection ? this.open(selection.current) : this.local,
      previous: selection?.previous ? this.open(selection.previous) : undefined,
    };
    this.resolved = { at: now, raw, value };
    return value;
  }

  async put(source: Readable, options?: PutOptions): Promise<StoredObject> {
    return (await this.providers()).current.put(source, options);
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const { current, previous } = await this.providers();
    try {
      return await current.get(key, range);
    } catch (error) {
      if (!(error instanceof StorageNotFoundError) || !previous) throw error;
    }
    try {
      return await previous.get(key, range);
    } catch (error) {
      // moved in between: copied to the current provider and removed from the previous one
      if (error instanceof StorageNotFoundError) return current.get(key, range);
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const { current, previous } = await this.providers();
    await current.delete(key);
    if (previous) await previous.delete(key);
  }

  async exists(key: string): Promise<boolean> {
    const { current, previous } = await this.providers();
    return (await current.exists(key)) || (previous !== undefined && (await previous.exists(key)));
  }

  async *list(): AsyncIterable<ListedObject> {
    const { current, previous } = await this.providers();
    yield* current.list();
    if (previous) yield* previous.list();
  }

  async removeAbandonedUploads(rule: AbandonedUploadRule): Promise<number> {
    const { current, previous } = await this.providers();
    return (await current.removeAbandonedUploads(rule)) + ((await previous?.removeAbandonedUploads(rule)) ?? 0);
  }
}

const PROBE_TIMEOUT_MS = 15_000;

/**
 * Writes, reads back and deletes a small probe object. A service that answered and refused
 * (bad credentials, no such bucket) is 420 `storageProviderConfigurationNotValid`; one that did
 * not answer (refused connection, unknown host, timeout, a server error) is 420
 * `storageProviderNotAvailable`.
 */
export async function probeProvider(provider: StorageProvider): Promise<void> {
  const probe = randomBytes(1024);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout()), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([
      (async () => {
        const stored = await provider.put(Readable.from([probe]));
        try {
          const back = await buffer(await provider.get(stored.key));
          if (!back.equals(probe)) {
            throw new AppError('storageProviderConfigurationNotValid', {
              description: 'The provider answered different bytes than were written',
            });
          }
        } finally {
          await provider.delete(stored.key);
        }
      })(),
      timeout,
    ]);
  } catch (error) {
    throw probeFailure(error);
  } finally {
    clearTimeout(timer);
  }
}

class ProbeTimeout extends Error {
  constructor() {
    super(`The provider did not answer within ${PROBE_TIMEOUT_MS / 1000} s`);
  }
}

/** The HTTP status a provider's SDK error carries, if the service answered at all. */
function answeredStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const withMetadata = error as { $metadata?: { httpStatusCode?: number }; statusCode?: number };
  return withMetadata.$metadata?.httpStatusCode ?? withMetadata.statusCode;
}

export function probeFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const status = answeredStatus(error);
  const detail = error instanceof Error ? `${error.name}: ${error.message}`.slice(0, 300) : 'unknown failure';
  if (status !== undefined && status >= 400 && status < 500) {
    return new AppError('storageProviderConfigurationNotValid', { description: `The provider refused the probe: ${detail}` });
  }
  return new AppError('storageProviderNotAvailable', { description: `The provider could not be reached: ${detail}` });
}

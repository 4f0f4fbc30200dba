import { randomUUID } from 'node:crypto';
import {
  storageProviderIdentifiers,
  storageTypeNamePattern,
  type TStorageMove,
  type TStorageProvider,
  type TStorageProviderRequest,
  type TStorageType,
  ZStorageMove,
} from '@manifold/contract';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { retryOnDeadlock } from '../../db/dialect.js';
import type { JobsService } from '../../jobs/jobs.service.js';
import { AppError, ErrorCollector } from '../../lib/app-error.js';
import type { Caller } from '../../lib/caller.js';
import type { PeerHostPolicy } from '../../peers/http-client.js';
import { isProviderIdentifier, providerSettings } from '../../storage/provider-settings.js';
import {
  type ProviderRecord,
  type ProviderSelection,
  type ProviderStorage,
  probeProvider,
  STORAGE_PROVIDER_SETTING,
} from '../../storage/provider-storage.js';
import { AuditRepository } from '../audit/audit.repository.js';
import { SettingsRepository } from '../settings/settings.repository.js';
import { StorageRepository } from './storage.repository.js';

export const STORAGE_MOVE = 'storage.move';
/** Attempts of a move job before the move is `failed`. */
export const STORAGE_MOVE_MAX_ATTEMPTS = 10;
export const STORAGE_MOVE_SETTING = 'storage.move';
export const DAS_ENABLED_SETTING = 'das.enabled';

export const ZStorageMovePayload = z.object({ selectionId: z.string() });

/** A type's folder as data: relative segments of letters, digits, `.`, `_`, `-`; no `..`. */
const storageTypePathPattern = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]{1,64}(\/[A-Za-z0-9._-]{1,64}){0,7}$/;

/**
 * Admin settings of storage: the provider (checked by a probe before it is accepted; switching
 * starts a background move of the stored objects), the storage types, and the design archive
 * service switch.
 */
export class StorageSettingsService {
  constructor(
    private readonly database: Database,
    private readonly storage: ProviderStorage,
    private readonly jobs: JobsService,
    private readonly endpointPolicy: PeerHostPolicy,
  ) {}

  private settings(db = this.database.db): SettingsRepository {
    return new SettingsRepository(db);
  }

  async provider(): Promise<TStorageProvider> {
    const selection = await this.storage.selection();
    return {
      identifier: selection?.current.identifier ?? null,
      configured: selection !== undefined,
      credentials: selection ? this.storage.publicSettings(selection.current) : null,
      move: await this.move(),
    };
  }

  providerList(): { data: string[] } {
    return { data: [...storageProviderIdentifiers] };
  }

  /**
   * Selects a provider: its settings are checked, a probe object is written, read and deleted,
   * then the selection is stored (credentials sealed). When the objects live elsewhere than
   * before, a `storage.move` job moves them; until it has, reads fall back to the old provider.
   */
  async selectProvider(request: TStorageProviderRequest, caller: Caller): Promise<TStorageProvider> {
    const identifier = request.identifier?.trim() ?? '';
    if (!identifier) throw new AppError('storageProviderNotSelected', { field: 'identifier' });
    if (!isProviderIdentifier(identifier)) {
      throw new AppError('storageProviderConfigurationNotValid', {
        field: 'identifier',
        description: `identifier must be one of ${storageProviderIdentifiers.join(', ')}`,
      });
    }
    const settings = providerSettings(identifier, request.credentials ?? {}, this.endpointPolicy);
    const provider = this.storage.openSettings(settings);
    await probeProvider(provider);

    const selection = await this.storage.selection();
    if (selection?.previous) return this.restartMove(selection, provider.location, caller);
    const current: ProviderRecord = { identifier, sealed: this.storage.seal(settings), location: provider.location };
    const before: ProviderRecord = selection?.current ?? {
      identifier: 'local',
      sealed: null,
      location: this.storage.local.location,
    };
    const moving = before.location !== current.location;
    const next: ProviderSelection = { current, previous: moving ? before : null, selectionId: randomUUID() };
    await this.database.transaction(async (trx) => {
      await this.settings(trx).set(STORAGE_PROVIDER_SETTING, JSON.stringify(next));
      if (moving) {
        const move: TStorageMove = {
          from: before.identifier,
          to: current.identifier,
          state: 'running',
          total: 0,
          moved: 0,
          lastError: null,
          startedAt: new Date().toISOString(),
          finishedAt: null,
        };
        await this.settings(trx).set(STORAGE_MOVE_SETTING, JSON.stringify(move));
        await this.jobs.enqueue(trx, STORAGE_MOVE, { selectionId: next.selectionId }, { maxAttempts: STORAGE_MOVE_MAX_ATTEMPTS });
      }
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'storageProviderChanged', identifier, {
        from: before.identifier,
        moving,
      });
    });
    this.storage.invalidate();
    return this.provider();
  }

  /**
   * While a move runs another provider cannot be chosen; choosing the same one again after the
   * move failed starts it again.
   */
  private async restartMove(selection: ProviderSelection, location: string, caller: Caller): Promise<TStorageProvider> {
    const move = await this.move();
    if (move?.state !== 'failed' || location !== selection.current.location) {
      throw new AppError('storageProviderNotAvailable', {
        description: 'The stored files are still being moved to the selected provider; choose again once the move has finished',
      });
    }
    await this.database.transaction(async (trx) => {
      await this.settings(trx).set(
        STORAGE_MOVE_SETTING,
        JSON.stringify({ ...move, state: 'running', lastError: null, finishedAt: null } satisfies TStorageMove),
      );
      await this.jobs.enqueue(
        trx,
        STORAGE_MOVE,
        { selectionId: selection.selectionId },
        { maxAttempts: STORAGE_MOVE_MAX_ATTEMPTS },
      );
      await new AuditRepository(trx, this.database.dialect).recordBy(
        caller,
        'storageProviderChanged',
        selection.current.identifier,
        { restarted: true },
      );
    });
    return this.provider();
  }

  async move(): Promise<TStorageMove | null> {
    const raw = await this.settings().get(STORAGE_MOVE_SETTING);
    return raw === undefined ? null : ZStorageMove.parse(JSON.parse(raw));
  }

  async types(): Promise<{ data: TStorageType[] }> {
    return { data: await new StorageRepository(this.database.db).types() };
  }

  async type(name: string): Promise<TStorageType> {
    const type = await new StorageRepository(this.database.db).type(name);
    if (!type) throw new AppError('storageTypeUnavailable', { field: 'name' });
    return type;
  }

  /**
   * Adds or changes the listed storage types (name and path required); types not listed stay.
   * All problems of the list are answered together (418).
   */
  async saveTypes(
    input: { name?: string | null | undefined; path?: string | null | undefined; configured?: boolean | null | undefined }[],
    caller: Caller,
  ): Promise<{ data: TStorageType[] }> {
    const errors = new ErrorCollector();
    const types: TStorageType[] = [];
    const names = new Set<string>();
    for (const [index, entry] of input.entries()) {
      const name = entry.name?.trim() ?? '';
      const path = entry.path?.trim() ?? '';
      if (!storageTypeNamePattern.test(name) || names.has(name)) {
        errors.add(
          'storageTypeNotConfigured',
          `data[${index}].name`,
          'A storage type needs a unique name of lower-case letters, digits and dashes',
        );
      }
      if (!storageTypePathPattern.test(path)) {
        errors.add(
          'storageTypeNotConfigured',
          `data[${index}].path`,
          'A storage type needs a relative path of letters, digits, ".", "_" and "-" (no "..")',
        );
      }
      names.add(name);
      types.push({ name, path, configured: entry.configured ?? true });
    }
    errors.throwIfAny();
    // in the order of their names, so that two requests saving the same types lock their rows in
    // one order and wait for each other rather than deadlock; a deadlock all the same rolled the
    // whole transaction back and is tried again
    const ordered = [...types].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    await retryOnDeadlock(() =>
      this.database.transaction(async (trx) => {
        const repository = new StorageRepository(trx);
        for (const type of ordered) await repository.saveType(type, this.database.dialect);
        await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'storageTypesChanged', 'storage', {
          types: types.map((type) => type.name),
        });
      }),
    );
    return this.types();
  }

  async das(): Promise<{ enabled: boolean }> {
    return { enabled: (await this.settings().get(DAS_ENABLED_SETTING)) === 'true' };
  }

  async setDas(enabled: boolean, caller: Caller): Promise<{ enabled: boolean }> {
    await this.database.transaction(async (trx) => {
      await this.settings(trx).set(DAS_ENABLED_SETTING, String(enabled));
      await new AuditRepository(trx, this.database.dialect).recordBy(caller, 'dasSettingChanged', 'das', { enabled });
    });
    return { enabled };
  }
}

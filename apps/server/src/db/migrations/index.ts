import type { Kysely, Migration, MigrationProvider } from 'kysely';
import type { DatabaseKind } from '../../config.js';
import * as accounts from './001-accounts.js';
import * as serverCredentials from './002-server-credentials.js';
import * as packagesDevices from './003-packages-devices.js';
import * as licensing from './010-licensing.js';
import * as jobs from './011-jobs.js';
import * as usernameKeys from './012-username-keys.js';
import * as traceability from './013-traceability.js';
import * as peers from './014-peers.js';
import * as outbox from './015-outbox.js';
import * as storage from './017-storage.js';
import * as secureRepo from './018-secure-repo.js';
import * as quality from './019-quality.js';
import * as identity from './021-identity.js';
import * as securityKeysAccess from './022-security-keys-access.js';
import * as outboxDelivery from './024-outbox-delivery.js';
import * as traceEventBatches from './025-trace-event-batches.js';
import * as dasArchiveLabels from './026-das-archive-labels.js';
import * as dashboard from './027-dashboard.js';
import * as traceEventText from './028-trace-event-text.js';
import * as stpNonceExpiry from './029-stp-nonce-expiry.js';
import * as peerDesigns from './023-peer-designs.js';
import * as listChanges from './030-list-changes.js';
import * as peerDevices from './031-peer-devices.js';
import * as orderAuthorizationsIndex from './032-order-authorizations-index.js';
import * as listCounts from './033-list-counts.js';
import * as authorizationFilterIndexes from './034-authorization-filter-indexes.js';
import * as usernameOrder from './035-username-order.js';
import * as storedObjectReferences from './036-stored-object-references.js';
import * as sessionOrigin from './037-session-origin.js';
import * as externalIdentityBinary from './038-external-identity-binary.js';
import * as externalIdentityNopad from './039-external-identity-nopad.js';

interface DialectMigration {
  up(db: Kysely<unknown>, kind: DatabaseKind): Promise<void>;
  down?(db: Kysely<unknown>, kind: DatabaseKind): Promise<void>;
}

/** Ordered by name; append new ones, never change what a released one's `up` does (its `down` must undo it exactly: database-templates.int.test.ts). */
const migrations: Record<string, DialectMigration> = {
  '001-accounts': accounts,
  '002-server-credentials': serverCredentials,
  '003-packages-devices': packagesDevices,
  '010-licensing': licensing,
  '011-jobs': jobs,
  '012-username-keys': usernameKeys,
  '013-traceability': traceability,
  '014-peers': peers,
  '015-outbox': outbox,
  '017-storage': storage,
  '018-secure-repo': secureRepo,
  '019-quality': quality,
  '021-identity': identity,
  '022-security-keys-access': securityKeysAccess,
  '024-outbox-delivery': outboxDelivery,
  '026-das-archive-labels': dasArchiveLabels,
  '027-dashboard': dashboard,
  '023-peer-designs': peerDesigns,
  '030-list-changes': listChanges,
  '025-trace-event-batches': traceEventBatches,
  '028-trace-event-text': traceEventText,
  '029-stp-nonce-expiry': stpNonceExpiry,
  '031-peer-devices': peerDevices,
  '032-order-authorizations-index': orderAuthorizationsIndex,
  '033-list-counts': listCounts,
  '034-authorization-filter-indexes': authorizationFilterIndexes,
  '035-username-order': usernameOrder,
  '036-stored-object-references': storedObjectReferences,
  '037-session-origin': sessionOrigin,
  '038-external-identity-binary': externalIdentityBinary,
  '039-external-identity-nopad': externalIdentityNopad,
};

export function migrationProvider(kind: DatabaseKind): MigrationProvider {
  return {
    async getMigrations() {
      const bound: Record<string, Migration> = {};
      for (const [name, migration] of Object.entries(migrations)) {
        bound[name] = {
          up: (db) => migration.up(db, kind),
          down: migration.down ? (db) => migration.down!(db, kind) : undefined,
        };
      }
      return bound;
    },
  };
}

/** Tables of the peer network (migration 014; docs/peer-network.md). */
export interface PeerNoncesTable {
  /** The registration (`manage_instances.id`) whose peer signed the message. */
  registration_id: string;
  /** The message's own nonce: a second message with it is a replay. */
  nonce: string;
  created_at: string;
}

/** A design owner's Protect instance: a token pair, then its registration (spec §3 Protect registration). */
export interface ProtectRegistrationsTable {
  id: string;
  /** Public half of the pair (`protectId`). */
  token1: string;
  /** SHA-256 (hex) of the secret half; the secret itself is shown once. */
  token2_sha256: string;
  /** The username of the admin who made the pair. */
  user_id: string;
  /** Empty until the Protect has registered with the pair. */
  name: string;
  registration_state: string;
  signing_certificate: string | null;
  encryption_certificate: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** Outbox messages of registered peers applied here, by message id (migration 015). */
export interface PeerMessagesTable {
  registration_id: string;
  message_id: string;
  kind: string;
  received_at: string;
}

export interface PeerTables {
  peer_nonces: PeerNoncesTable;
  peer_messages: PeerMessagesTable;
  protect_registrations: ProtectRegistrationsTable;
}

/** Tables of the peer network (migration 014; docs/peer-network.md). */
export interface PeerNoncesTable {
  /** The registration (`manage_instances.id`) whose peer signed the message. */
  registration_id: string;
  /** The message's own nonce: a second message with it is a replay. */
  nonce: string;
  created_at: string;
}

export interface PeerTables {
  peer_nonces: PeerNoncesTable;
}

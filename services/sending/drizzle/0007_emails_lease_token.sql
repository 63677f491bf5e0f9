-- The delivery lease gains its holder: the replica's token (kit LeaseSet), written by the claim and
-- checked by the renewal and by the SENT, FAILED and release statements, so a worker that stalled past its
-- lease commits nothing beside the one that took the email over. Nullable with no default: adding it
-- rewrites no row, and it is in no index, so the delivery updates stay HOT.
ALTER TABLE "emails" ADD COLUMN "lease_token" uuid;

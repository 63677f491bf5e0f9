-- Delivery updates every email twice, the lease and then the sent record, and neither changes an
-- indexed column. With full pages (inserts fill them) each update went to another page and added an
-- entry to every index: about 3 KB of WAL per update on the campaign benchmark. With half of each page
-- left free most updates stay on their page (HOT) and touch no index: the lease's WAL fell to about
-- 90 bytes. Pages written from now on keep the space; existing rows are not rewritten.
ALTER TABLE "emails" SET (fillfactor = 50);--> statement-breakpoint
-- Only relays that name their messages (SES) fill provider_message_id: the rest of the rows need no
-- entry in its index.
DROP INDEX "emails_provider_message_id_idx";--> statement-breakpoint
CREATE INDEX "emails_provider_message_id_idx" ON "emails" USING btree ("provider_message_id") WHERE provider_message_id is not null;

CREATE TABLE "counted_messages" (
	"id" uuid PRIMARY KEY NOT NULL,
	"counted_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "counted_messages_at_idx" ON "counted_messages" USING btree ("counted_at");

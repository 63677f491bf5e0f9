CREATE TABLE "confirmation_links_used" (
	"email_id" uuid PRIMARY KEY NOT NULL,
	"used_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "confirmation_sends" (
	"project_id" uuid NOT NULL,
	"idempotency_key" text NOT NULL,
	"address" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "confirmation_sends_project_id_idempotency_key_pk" PRIMARY KEY("project_id","idempotency_key")
);
--> statement-breakpoint
CREATE INDEX "confirmation_sends_address_idx" ON "confirmation_sends" USING btree ("address","sent_at");
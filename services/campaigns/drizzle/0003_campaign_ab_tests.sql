ALTER TABLE "campaigns" ADD COLUMN "variants" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_test" jsonb;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "ab_sample_size" integer;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "winner_due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "campaigns" ADD COLUMN "winner_variant" integer;--> statement-breakpoint
CREATE TABLE "campaign_variant_recipients" (
	"campaign_id" uuid NOT NULL,
	"contact_id" text NOT NULL,
	"variant" integer NOT NULL,
	CONSTRAINT "campaign_variant_recipients_campaign_id_contact_id_pk" PRIMARY KEY("campaign_id","contact_id")
);
--> statement-breakpoint
CREATE TABLE "campaign_variants" (
	"campaign_id" uuid NOT NULL,
	"variant" integer NOT NULL,
	"recipients" integer DEFAULT 0 NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"opened" integer DEFAULT 0 NOT NULL,
	"clicked" integer DEFAULT 0 NOT NULL,
	"bounced" integer DEFAULT 0 NOT NULL,
	"complained" integer DEFAULT 0 NOT NULL,
	"unsubscribed" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_variants_campaign_id_variant_pk" PRIMARY KEY("campaign_id","variant")
);
--> statement-breakpoint
ALTER TABLE "campaign_variant_recipients" ADD CONSTRAINT "campaign_variant_recipients_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "campaign_variants" ADD CONSTRAINT "campaign_variants_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "campaigns_winner_due_idx" ON "campaigns" USING btree ("winner_due_at") WHERE status = 'SENDING' and winner_variant is null;

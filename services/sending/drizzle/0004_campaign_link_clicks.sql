-- Clicks per link of each campaign, kept as counters so GET /campaigns/{id}/links never scans the campaign's emails.
CREATE TABLE "campaign_link_clickers" (
	"email_id" uuid NOT NULL,
	"url_key" uuid NOT NULL,
	CONSTRAINT "campaign_link_clickers_email_id_url_key_pk" PRIMARY KEY("email_id","url_key")
);
--> statement-breakpoint
CREATE TABLE "campaign_link_clicks" (
	"project_id" uuid NOT NULL,
	"campaign_id" uuid NOT NULL,
	"url_key" uuid NOT NULL,
	"url" text NOT NULL,
	"clicks" integer DEFAULT 0 NOT NULL,
	"unique_clicks" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "campaign_link_clicks_project_id_campaign_id_url_key_pk" PRIMARY KEY("project_id","campaign_id","url_key")
);

ALTER TABLE "campaigns" ADD COLUMN "topic_id" text;

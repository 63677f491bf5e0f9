ALTER TABLE "campaigns" ADD COLUMN "send_request_id" uuid;

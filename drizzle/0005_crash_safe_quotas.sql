CREATE TABLE "quota_holders" (
	"id" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"heartbeat_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "quota_holdings" (
	"holder_id" text NOT NULL,
	"token_id" text NOT NULL,
	"kind" text NOT NULL,
	"period" text NOT NULL,
	"units" double precision NOT NULL,
	CONSTRAINT "quota_holdings_holder_id_token_id_kind_period_pk" PRIMARY KEY("holder_id","token_id","kind","period")
);
--> statement-breakpoint
CREATE TABLE "usage_journal" (
	"id" text PRIMARY KEY NOT NULL,
	"holder_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"request_id" text NOT NULL,
	"token_id" text NOT NULL,
	"owner" text NOT NULL,
	"model" text NOT NULL,
	"provider" text,
	"streamed" boolean NOT NULL,
	"budget_period" text,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "settled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "reservation_id" text;--> statement-breakpoint
CREATE INDEX "usage_journal_holder_idx" ON "usage_journal" USING btree ("holder_id");--> statement-breakpoint
CREATE UNIQUE INDEX "usage_records_reservation_idx" ON "usage_records" USING btree ("reservation_id") WHERE reservation_id is not null;
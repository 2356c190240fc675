CREATE TABLE "quotas" (
	"token_id" text NOT NULL,
	"kind" text NOT NULL,
	"period" text NOT NULL,
	"value" double precision NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "quotas_token_id_kind_period_pk" PRIMARY KEY("token_id","kind","period")
);
--> statement-breakpoint
CREATE TABLE "usage_records" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"request_id" text NOT NULL,
	"token_id" text NOT NULL,
	"owner" text NOT NULL,
	"model" text NOT NULL,
	"provider" text,
	"upstream_model" text,
	"streamed" boolean NOT NULL,
	"status" integer NOT NULL,
	"finish_reason" text,
	"prompt_tokens" integer NOT NULL,
	"completion_tokens" integer NOT NULL,
	"cached_tokens" integer NOT NULL,
	"reasoning_tokens" integer NOT NULL,
	"ttft_ms" real,
	"duration_ms" real NOT NULL,
	"error_code" text
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "limits" jsonb;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "models" text[];--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "expires_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "usage_records_at_idx" ON "usage_records" USING btree ("at");--> statement-breakpoint
CREATE INDEX "usage_records_owner_at_idx" ON "usage_records" USING btree ("owner","at");
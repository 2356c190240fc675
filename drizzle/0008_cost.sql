CREATE TABLE "price_versions" (
	"id" serial PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"from" timestamp with time zone NOT NULL,
	"declared_from" text NOT NULL,
	"input" bigint NOT NULL,
	"cached_input" bigint NOT NULL,
	"cache_write" bigint NOT NULL,
	"output" bigint NOT NULL,
	"reasoning" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "cost_header" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "cache_write_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "cost_micros" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "usage_records" ADD COLUMN "price_version" integer;--> statement-breakpoint
CREATE INDEX "price_versions_model_from_idx" ON "price_versions" USING btree ("model","from");
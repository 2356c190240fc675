CREATE SEQUENCE "public"."plant_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "docs_revisions" (
	"revision" integer PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"config" jsonb NOT NULL,
	"etag" text NOT NULL,
	"author" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plants" (
	"seq" bigserial PRIMARY KEY NOT NULL,
	"id" bigint NOT NULL,
	"owner" text NOT NULL,
	"name" text NOT NULL,
	"tag" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "plants_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "tokens" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"scopes" text[] NOT NULL,
	"hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "tokens_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE INDEX "plants_owner_seq_idx" ON "plants" USING btree ("owner","seq");
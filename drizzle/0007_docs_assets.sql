CREATE TABLE "docs_assets" (
	"path" text COLLATE "C" PRIMARY KEY NOT NULL,
	"generation" bigint NOT NULL,
	"content" "bytea" NOT NULL,
	"content_type" text NOT NULL,
	"kind" text NOT NULL,
	"sha256" text NOT NULL,
	"size" integer NOT NULL,
	"author" text NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "docs_assets_generation_idx" ON "docs_assets" USING btree ("generation");
CREATE TABLE "docs_search_sections" (
	"origin" text NOT NULL,
	"path" text COLLATE "C" NOT NULL,
	"position" integer NOT NULL,
	"revision" integer NOT NULL,
	"kind" text NOT NULL,
	"anchor" text NOT NULL,
	"page_title" text NOT NULL,
	"heading" text NOT NULL,
	"body" text NOT NULL,
	"head" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN "page_title" ELSE '' END), 'A') || setweight(to_tsvector('english', "heading"), 'B') || setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN '' ELSE "page_title" END), 'D')) STORED NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN "page_title" ELSE '' END), 'A') || setweight(to_tsvector('english', "heading"), 'B') || setweight(to_tsvector('english', "body"), 'C') || setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN '' ELSE "page_title" END), 'D')) STORED NOT NULL,
	CONSTRAINT "docs_search_sections_origin_path_position_pk" PRIMARY KEY("origin","path","position")
);
--> statement-breakpoint
CREATE INDEX "docs_search_sections_head_idx" ON "docs_search_sections" USING gin ("head");--> statement-breakpoint
CREATE INDEX "docs_search_sections_search_idx" ON "docs_search_sections" USING gin ("search");--> statement-breakpoint
-- A section's text is read only for the snippets of the best few hits: kept out of line and uncompressed, so the rows
-- a search scans stay small and their vectors are never decompressed. (Drizzle has no way to say so in schema.ts.)
ALTER TABLE "docs_search_sections" ALTER COLUMN "body" SET STORAGE EXTERNAL;--> statement-breakpoint
ALTER TABLE "docs_search_sections" ALTER COLUMN "search" SET STORAGE MAIN;

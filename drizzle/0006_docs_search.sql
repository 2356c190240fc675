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
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN "page_title" ELSE '' END), 'A') || setweight(to_tsvector('english', "heading"), 'B') || setweight(to_tsvector('english', "body"), 'C') || setweight(to_tsvector('english', CASE WHEN "position" = 0 THEN '' ELSE "page_title" END), 'D')) STORED NOT NULL,
	CONSTRAINT "docs_search_sections_origin_path_position_pk" PRIMARY KEY("origin","path","position")
);
--> statement-breakpoint
CREATE INDEX "docs_search_sections_search_idx" ON "docs_search_sections" USING gin ("search");
CREATE TABLE "docs_pages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "docs_pages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"path" text COLLATE "C" NOT NULL,
	"revision" integer NOT NULL,
	"source" text NOT NULL,
	"title" text,
	"description" text,
	"sidebar_title" text,
	"openapi" text,
	"etag" text NOT NULL,
	"author" text NOT NULL,
	"size" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "docs_pages_path_revision_idx" ON "docs_pages" USING btree ("path","revision" DESC NULLS LAST);
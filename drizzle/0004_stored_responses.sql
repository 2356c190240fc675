CREATE TABLE "response_items" (
	"response_id" text NOT NULL,
	"position" integer NOT NULL,
	"owner" text NOT NULL,
	"item_id" text NOT NULL,
	"kind" text NOT NULL,
	"item" text NOT NULL,
	CONSTRAINT "response_items_response_id_position_pk" PRIMARY KEY("response_id","position")
);
--> statement-breakpoint
CREATE TABLE "responses" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"response" text NOT NULL,
	"context" text NOT NULL,
	"bytes" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "response_items" ADD CONSTRAINT "response_items_response_id_responses_id_fk" FOREIGN KEY ("response_id") REFERENCES "public"."responses"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "response_items_owner_item_idx" ON "response_items" USING btree ("owner","item_id");--> statement-breakpoint
CREATE INDEX "responses_expires_at_idx" ON "responses" USING btree ("expires_at");
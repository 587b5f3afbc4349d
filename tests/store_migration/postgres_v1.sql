-- The rows a2ui-agent a35bb6e (store schema 1, tasks as A2A 0.3 JSON) wrote for the tasks of
-- tests/store_migration.rs, dumped with pg_dump --inserts --no-owner --no-privileges (psql
-- meta-commands and comments removed). Loaded into a fresh database by that test.

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

CREATE TABLE public.a2ui_events (
    id bigint NOT NULL,
    payload text NOT NULL,
    created timestamp with time zone DEFAULT now() NOT NULL
);

CREATE SEQUENCE public.a2ui_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

ALTER SEQUENCE public.a2ui_events_id_seq OWNED BY public.a2ui_events.id;

CREATE TABLE public.a2ui_instances (
    id text NOT NULL,
    heartbeat timestamp with time zone NOT NULL
);

CREATE TABLE public.a2ui_schema_migrations (
    version bigint NOT NULL,
    applied_at text NOT NULL
);

CREATE TABLE public.a2ui_tasks (
    id text NOT NULL COLLATE pg_catalog."C",
    context_id text NOT NULL COLLATE pg_catalog."C",
    state text NOT NULL,
    status_ts text NOT NULL COLLATE pg_catalog."C",
    status_message text,
    history text NOT NULL,
    artifacts text NOT NULL,
    metadata text,
    expires_ms bigint,
    owner text
);

ALTER TABLE ONLY public.a2ui_events ALTER COLUMN id SET DEFAULT nextval('public.a2ui_events_id_seq'::regclass);

INSERT INTO public.a2ui_instances VALUES ('207e4f8f-7238-46ef-a55b-9f2dd28bc795', '2026-12-01 09:48:44.846098+00');

INSERT INTO public.a2ui_schema_migrations VALUES (1, '2026-12-01T09:48:44.842Z');

INSERT INTO public.a2ui_tasks VALUES ('t-waiting', 'ctx-1', 'input-required', '2026-12-01T09:00:01.000Z', '{"kind":"message","messageId":"r1","role":"agent","parts":[{"kind":"text","text":"Pick a time:","metadata":{"lang":"en"}},{"kind":"data","data":{"beginRendering":{"root":"root","surfaceId":"s"}},"metadata":{"mimeType":"application/json+a2ui"}},{"kind":"data","data":{"surfaceUpdate":{"components":[{"component":{"Text":{"text":{"literalString":"héllo \"q\" 😀"}}},"id":"root"}],"surfaceId":"s"}},"metadata":{"mimeType":"application/json+a2ui"}},{"kind":"file","file":{"bytes":"aGVsbG8=","mimeType":"text/plain","name":"hello.txt"}},{"kind":"file","file":{"uri":"https://example.com/menu.pdf"},"metadata":{"size":1234}}],"contextId":"ctx-1","taskId":"t-waiting"}', '[{"kind":"message","messageId":"u1","role":"user","parts":[{"kind":"text","text":"Book a table for two"}],"contextId":"ctx-1","taskId":"t-waiting","referenceTaskIds":["t-done"],"extensions":["https://a2ui.org/a2a-extension/a2ui/v0.8"],"metadata":{"client":"fixture","n":1.5}},{"kind":"message","messageId":"h2","role":"agent","parts":[{"kind":"text","text":"earlier"}]}]', '[{"artifactId":"a1","name":"menu","description":"Tonight''s menu","parts":[{"kind":"text","text":"soup"},{"kind":"data","data":{"price":12,"tags":["hot",null,true]}}],"extensions":["urn:x"],"metadata":{"k":"v"}},{"artifactId":"a2","parts":[]}]', '{"nested":{"a":[1,2.25,-3]},"owner":"fixture"}', 8103318524847, NULL);
INSERT INTO public.a2ui_tasks VALUES ('t-done', 'ctx-2', 'completed', '2026-12-01T09:00:02.000Z', '{"kind":"message","messageId":"r2","role":"agent","parts":[{"kind":"text","text":"Done."}]}', '[{"kind":"message","messageId":"u2","role":"user","parts":[{"kind":"text","text":"thanks"}]}]', '[]', NULL, 8103318524848, NULL);
INSERT INTO public.a2ui_tasks VALUES ('t-bare', 'ctx-2', 'canceled', '', NULL, '[]', '[]', NULL, 8103318524849, NULL);

SELECT pg_catalog.setval('public.a2ui_events_id_seq', 1, false);

ALTER TABLE ONLY public.a2ui_events
    ADD CONSTRAINT a2ui_events_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.a2ui_instances
    ADD CONSTRAINT a2ui_instances_pkey PRIMARY KEY (id);

ALTER TABLE ONLY public.a2ui_schema_migrations
    ADD CONSTRAINT a2ui_schema_migrations_pkey PRIMARY KEY (version);

ALTER TABLE ONLY public.a2ui_tasks
    ADD CONSTRAINT a2ui_tasks_pkey PRIMARY KEY (id);

CREATE INDEX a2ui_tasks_context ON public.a2ui_tasks USING btree (context_id, status_ts DESC, id DESC);

CREATE INDEX a2ui_tasks_expiry ON public.a2ui_tasks USING btree (expires_ms) WHERE (expires_ms IS NOT NULL);

CREATE INDEX a2ui_tasks_listing ON public.a2ui_tasks USING btree (status_ts DESC, id DESC);

CREATE INDEX a2ui_tasks_running ON public.a2ui_tasks USING btree (owner) WHERE (expires_ms IS NULL);


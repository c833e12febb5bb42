-- A read-only role for Grafana's Postgres datasource (Grafana's docs ask for a SELECT-only user).
-- Runs once, when the postgres container initialises an empty data directory, as POSTGRES_USER:
-- the same role that later runs the migrations, so the default privileges below cover every table
-- the migrations create. 02-grafana-reader-password.sh sets the password from the environment.
-- Idempotent: safe to run again by hand (psql -f) against an existing database.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'grafana_reader') THEN
    CREATE ROLE grafana_reader LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO grafana_reader', current_database());
END
$$;

-- Dashboards are read-only; a runaway panel query cannot hold a connection for long.
ALTER ROLE grafana_reader SET default_transaction_read_only = on;
ALTER ROLE grafana_reader SET statement_timeout = '30s';

GRANT USAGE ON SCHEMA public TO grafana_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO grafana_reader;
-- Tables created later by this role (the migrations) are readable too.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO grafana_reader;
-- Note: this includes api_keys, which holds only sha256 hashes and short prefixes. To hide it anyway,
-- run `REVOKE SELECT ON api_keys FROM grafana_reader;` after the first migration.

#!/bin/sh
# Sets grafana_reader's password from GRAFANA_DB_PASSWORD (docker-compose.yml passes it to the
# postgres container). Runs after 01-grafana-reader.sql, once, on an empty data directory.
set -eu
: "${GRAFANA_DB_PASSWORD:?GRAFANA_DB_PASSWORD must be set for the grafana_reader role}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v pw="$GRAFANA_DB_PASSWORD" <<'SQL'
ALTER ROLE grafana_reader PASSWORD :'pw';
SQL

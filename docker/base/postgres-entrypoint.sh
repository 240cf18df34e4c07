#!/bin/sh
# First start: create the cluster in $PGDATA, the user POSTGRES_USER (password
# POSTGRES_PASSWORD, checked with SCRAM over the network) and the database POSTGRES_DB; then
# run the command (postgres). The set-up server listens on a private socket only, so the health
# check (pg_isready on the usual socket) does not pass before the database exists.
set -eu
POSTGRES_USER="${POSTGRES_USER:-postgres}"
POSTGRES_DB="${POSTGRES_DB:-$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set for the first start}"
    setup=$(mktemp -d)
    printf '%s\n' "$POSTGRES_PASSWORD" > "$setup/password"
    initdb --pgdata="$PGDATA" --username="$POSTGRES_USER" --pwfile="$setup/password" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8
    rm -f "$setup/password"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        pg_ctl --pgdata="$PGDATA" --wait \
            --options="-c listen_addresses='' -c unix_socket_directories=$setup" start
        createdb --host="$setup" --username="$POSTGRES_USER" "$POSTGRES_DB"
        pg_ctl --pgdata="$PGDATA" --wait --mode=fast stop
    fi
    rmdir "$setup"
fi
exec "$@"

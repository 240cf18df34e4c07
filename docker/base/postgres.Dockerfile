# Postgres from Debian bookworm's packages (Postgres 15), started like the official image: on
# the first start it creates POSTGRES_USER with POSTGRES_PASSWORD and the database POSTGRES_DB
# in /var/lib/postgresql/data. docker/compose.yml runs it when POSTGRES_IMAGE names it.
ARG DEBIAN_IMAGE=debian:bookworm
FROM ${DEBIAN_IMAGE}
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
# The user Debian's package made (its id is the package's choice, not ours).
# hadolint ignore=DL3066
USER postgres
VOLUME ["/var/lib/postgresql/data"]
EXPOSE 5432
# Postgres' fast shutdown: open transactions are rolled back, the data is consistent.
STOPSIGNAL SIGINT
ENTRYPOINT ["postgres-entrypoint"]
CMD ["postgres"]

# Redis from Debian bookworm's packages (Redis 7.0), for docker/compose.yml's REDIS_IMAGE. Data
# (the append-only file) in /data, like the official image.
ARG DEBIAN_IMAGE=debian:bookworm
FROM ${DEBIAN_IMAGE}
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends redis-server \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /data \
    && chown redis:redis /data
# The user Debian's package made (its id is the package's choice, not ours).
# hadolint ignore=DL3066
USER redis
WORKDIR /data
VOLUME ["/data"]
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]

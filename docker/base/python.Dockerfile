# Python 3.11 from Debian bookworm's packages, for sites that build without an image registry:
# the base given to docker/Dockerfile as BASE_IMAGE (scripts/containers-test builds it).
# DEBIAN_IMAGE is a Debian bookworm root file system imported into Docker (debootstrap).
ARG DEBIAN_IMAGE=debian:bookworm
FROM ${DEBIAN_IMAGE}
# Versions are those of the Debian release the base was made from.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
    && rm -rf /var/lib/apt/lists/*
ENV LANG=C.UTF-8
CMD ["python3"]

# nginx from Debian bookworm's packages, the site's front door (docker/compose.yml's nginx):
# docker/nginx/nginx.conf, filled in from the environment at start by docker/nginx/render, before
# the web and uploads services, serving the app image's collected static files itself.
# Build arguments:
#   DEBIAN_IMAGE  a Debian bookworm image (the official one, or one made without a registry:
#                 docs/operators.md, "Without an image registry")
#   APP_IMAGE     the app's image (docker/Dockerfile), built first: its static files are copied
ARG DEBIAN_IMAGE=debian:bookworm
ARG APP_IMAGE=trackboard:latest
FROM ${APP_IMAGE} AS app

FROM ${DEBIAN_IMAGE}
# curl for the health check only.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx curl \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/trackboard-nginx \
    && chown www-data:www-data /var/lib/trackboard-nginx
COPY --from=app /srv/trackboard/static /srv/trackboard/static
COPY docker/nginx/nginx.conf docker/nginx/render /etc/trackboard-nginx/
# The fields of nginx.conf; compose's service names for the two gunicorn pools. A TLS proxy on
# the host sits in front of this one (docs/operators.md), hence its X-Forwarded-Proto. No access
# log by default (gunicorn logs every request that reaches it; a non-root process may not open
# the container's stdout by name): set NGINX_ACCESS_LOG to a file on a volume for one, in JSON
# lines as the app image's logs (LOG_FORMAT).
ENV NGINX_LISTEN=8080 \
    NGINX_WEB=web:8000 \
    NGINX_UPLOADS=uploads:8000 \
    NGINX_STATIC_ROOT=/srv/trackboard/static \
    NGINX_STATE=/var/lib/trackboard-nginx \
    NGINX_ACCESS_LOG=off \
    NGINX_FORWARDED_PROTO=\$http_x_forwarded_proto \
    LOG_FORMAT=json
# The user Debian's package made (its id is the package's choice, not ours).
# hadolint ignore=DL3066
USER www-data
EXPOSE 8080
# nginx's own location (nginx.conf): nginx answers it, whatever the pools behind it do.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/nginx/livez"]
CMD ["/bin/sh", "-c", "/etc/trackboard-nginx/render /etc/trackboard-nginx/nginx.conf /var/lib/trackboard-nginx/nginx.conf && exec nginx -e stderr -p /var/lib/trackboard-nginx -c /var/lib/trackboard-nginx/nginx.conf -g 'daemon off;'"]

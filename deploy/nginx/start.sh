#!/bin/sh
# The compose kit's nginx (deploy/nginx/Dockerfile): render the site from its
# template with the container's MESA_ settings (only those: nginx's own $host,
# $uri... stay as they are), look twice a day whether certbot renewed the
# certificate and reload nginx only then, and run nginx in the foreground.
#
# Only then: a reload closes every board's channel (nchan hands no subscriber
# to the new worker), and every board long polls for a minute; at 5,000
# boards a move took up to 10 s to be seen after one (docs/LOAD.md).
set -eu
template=${NGINX_TEMPLATE:-/etc/nginx/templates/mesa.conf.template}
site=${NGINX_SITE:-/etc/nginx/conf.d/mesa.conf}
every=${MESA_RELOAD_CHECK:-12h}
names=$(env | sed -n 's/^\(MESA_[A-Z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')
envsubst "$names" < "$template" > "$site"
# The certificate as nginx last read it (its checksum; empty while there is none).
certificate() { cksum < "${MESA_TLS_CERT:-/dev/null}" 2>/dev/null || true; }
(
    read_by_nginx=$(certificate)
    while sleep "$every"; do
        now=$(certificate)
        if [ "$now" != "$read_by_nginx" ] && nginx -s reload; then
            read_by_nginx=$now
        fi
    done
) &
exec nginx -g 'daemon off;'

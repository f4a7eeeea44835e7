#!/bin/sh
# The compose kit's nginx (deploy/nginx/Dockerfile): render the site from its
# template with the container's MESA_ settings (only those: nginx's own $host,
# $uri... stay as they are), reload twice a day so that a certificate certbot
# renewed is picked up, and run nginx in the foreground.
set -eu
template=${NGINX_TEMPLATE:-/etc/nginx/templates/mesa.conf.template}
site=${NGINX_SITE:-/etc/nginx/conf.d/mesa.conf}
names=$(env | sed -n 's/^\(MESA_[A-Z0-9_]*\)=.*/${\1}/p' | tr '\n' ' ')
envsubst "$names" < "$template" > "$site"
(while sleep 12h; do nginx -s reload; done) &
exec nginx -g 'daemon off;'

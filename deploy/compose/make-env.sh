#!/bin/sh
# Writes the secrets docker-compose.yml needs into .env (docker compose reads it from the directory
# it runs in), fresh and random, readable by the owner only. It never overwrites an existing file:
# MAILROOM_SECRET signs links already sent, and the passwords must match the data volumes.
#   sh deploy/compose/make-env.sh [FILE]      (default: .env)
set -eu
file=${1:-.env}
if [ -e "$file" ]; then
  echo "$file exists; not overwriting it" >&2
  exit 1
fi
# nats-server reads each password from its environment as a configuration value, where a leading
# digit would start a number: every password begins with a letter.
hex() { openssl rand -hex "$1"; }
umask 077
{
  echo "MAILROOM_SECRET=$(openssl rand -base64 48 | tr -d '\n')"
  echo "POSTGRES_PASSWORD=p$(hex 24)"
  for service in GATEWAY CONTACTS SENDING CAMPAIGNS WORKFLOWS VERIFY; do
    echo "NATS_${service}_PASSWORD=n$(hex 32)"
  done
} > "$file"
echo "wrote $file"

# One image holds the whole built monorepo; each Deployment (or compose service) picks its process
# with the command, e.g. `node services/sending/dist/main.js`. The CLI is
# `node services/gateway/dist/cli.js`.
ARG NODE_IMAGE=node:20-bookworm-slim

# --- manifests: only the package.json files, so the dependency layers below stay cached until a
# manifest or the lockfile changes, not on every source edit.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /out \
 && cp package.json package-lock.json /out/ \
 # patch-package (postinstall) applies these to node_modules during `npm ci`.
 && cp -r patches /out/ \
 && find packages services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /out/ \;

# --- build: full install (TypeScript, turbo) and compile every workspace.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV TURBO_TELEMETRY_DISABLED=1 NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY --from=manifests /out/ ./
RUN npm ci --no-audit
COPY . .
RUN npx turbo run build \
 # Workspace node_modules hold dev dependencies; the runtime takes them from prod-deps instead.
 && find packages services -mindepth 2 -maxdepth 2 -name node_modules -prune -exec rm -rf {} + \
 && find . -name '*.tsbuildinfo' -not -path './node_modules/*' -delete

# --- prod-deps: a fresh install without dev dependencies (smaller and without build-only tools
# than pruning the build stage's tree).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
COPY --from=manifests /out/ ./
RUN npm ci --omit=dev --no-audit && npm cache clean --force

# --- runtime
FROM ${NODE_IMAGE} AS runtime
# tini runs as PID 1: it forwards SIGTERM to Node (which then drains) and reaps zombies; Node as
# PID 1 would ignore the signal's default action and be SIGKILLed after the grace period.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 mailroom \
 && useradd --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin mailroom
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/packages ./packages
COPY --from=build /app/services ./services
COPY --from=prod-deps /app/node_modules ./node_modules
# Workspaces that got their own nested production dependencies (version conflicts) keep them.
COPY --from=prod-deps /app/packages ./packages
COPY --from=prod-deps /app/services ./services
# Numeric user so Kubernetes can verify runAsNonRoot without reading /etc/passwd.
USER 10001:10001
EXPOSE 8080 2525 9100-9105
ENTRYPOINT ["/usr/bin/tini", "--"]
# the node flags of packages/kit/node-flags.json (the file says why)
CMD ["node", "--min-semi-space-size=16", "--max-semi-space-size=16", "--max-old-space-size=256", "--heap-growing-percent=100", "services/gateway/dist/main.js"]

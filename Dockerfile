# syntax=docker/dockerfile:1
# pbs in a container: `docker compose up` (compose.yaml) starts it with PostgreSQL.
# Two stages: the build stage has the compiler better-sqlite3 may need and the dev dependencies;
# the runtime stage has only production dependencies and dist/, and runs as the `node` user.

ARG NODE_VERSION=20-bookworm-slim

FROM node:${NODE_VERSION} AS build
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary when it can and compiles itself when it cannot.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/sdk/package.json packages/sdk/
# Scripts off: `prepare` builds, and the sources are not here yet; better-sqlite3 is rebuilt below.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json ./
COPY src src
COPY console console
COPY packages/sdk packages/sdk
# The server, the SDK and the operator console (dist/console), then only production dependencies.
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:${NODE_VERSION} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    PBS_DATA_DIR=/data \
    NODE_OPTIONS=--max-semi-space-size=64
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/dist dist
COPY --chown=root:root package.json ./
COPY --chown=root:root bin bin
# The data directory (SQLite file, sandbox credentials) is the only place pbs writes.
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/pbs.js /usr/local/bin/pbs
VOLUME ["/data"]
USER node
EXPOSE 8080
# /readyz answers 200 once the database is reachable and migrations have run (503 while starting
# or stopping). The slim image has no curl: Node's fetch asks.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Migrations run on start (pbs serve applies them before it listens).
CMD ["node", "dist/main.js", "serve"]

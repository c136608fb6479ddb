# opsbench's three images, one stage each: `web` (Next.js UI, /api/v1, /api/health, and the packed CLI at
# /cli/opsbench-cli.tgz), `app` (Node + opsbench-engine (the load engine, engine/) + every benchapp built, so local
# targets run inside the container) and `cli` (the packed CLI alone, `opsbench` as its entrypoint, for CI jobs that
# run containers). The compose file runs `app` three ways under one image name: the one-shot migrate, the
# worker (unprivileged, holds the secrets) and the runner (runs the engine sandboxed, holds no secret).
# They share one dependency layer. The release (scripts/release.mjs, docs/releasing.md) publishes all three.
# Build from the repo root:
#   docker build --target web .      docker build --target app .      docker build --target cli .
# Configuration comes from the environment at run time (see .env.example and docker-compose.yml).
# Base images are pinned to exact versions; bump them on purpose.

# Go: opsbench-engine (as engine/build.mjs builds it), and the Go benchapp (echo/go, study 001's function).
FROM golang:1.26.8-bookworm AS go-build
ENV CGO_ENABLED=0
WORKDIR /src/engine
COPY engine/go.mod engine/go.sum ./
COPY engine/cmd/ cmd/
COPY engine/internal/ internal/
RUN go build -trimpath -ldflags="-s -w" -o /out/opsbench-engine ./cmd/opsbench-engine
WORKDIR /src/echo-go
COPY benchapps/echo/go/ ./
RUN go build -trimpath -o /out/echo-go .
# helm, pinned as apps/worker/helm-build/build.mjs pins it: renders kubernetes targets' charts (docs/kubernetes.md).
RUN GOBIN=/out go install -trimpath -ldflags="-s -w -X helm.sh/helm/v4/internal/version.version=v4.3.1" helm.sh/helm/v4/cmd/helm@v4.3.1

FROM node:24.21.0-bookworm-slim AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Every workspace's manifest first (npm ci checks them against the lock file), so the
# dependency layer is rebuilt only when one of them changes.
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
# The licence and its notices travel with the code into both images (Apache-2.0, section 4).
COPY LICENSE NOTICE ./
COPY apps/web/package.json apps/web/
COPY apps/runner/package.json apps/runner/
COPY apps/worker/package.json apps/worker/
COPY apps/cli/package.json apps/cli/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/jobs/package.json packages/jobs/
COPY packages/host/package.json packages/host/
COPY packages/providers/package.json packages/providers/
COPY packages/api/package.json packages/api/
COPY benchapps/cpu-loop/express/package.json benchapps/cpu-loop/express/
COPY benchapps/cpu-loop/node-http/package.json benchapps/cpu-loop/node-http/
COPY benchapps/echo/node/package.json benchapps/echo/node/
COPY benchapps/iot/package.json benchapps/iot/
COPY benchapps/msd/beps/package.json benchapps/msd/beps/
COPY benchapps/msd/poll/package.json benchapps/msd/poll/
COPY benchapps/shop/package.json benchapps/shop/
COPY benchapps/shop-restate/package.json benchapps/shop-restate/
# No install scripts: the Prisma client is generated below (no engine download needed),
# and the native packages ship prebuilt.
# tsx (a dev dependency) runs the worker's TypeScript, so dev dependencies stay.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY prisma ./prisma
COPY packages ./packages
# The Prisma client is generated into packages/db/src/generated (git-ignored).
RUN npm run generate -w @opsbench/db

# The packed CLI (apps/cli/scripts/pack.mjs, as the release packs it): the web image serves it and the cli image
# installs it, so each image's CLI is the one of its own source.
FROM deps AS cli-pack
COPY apps/cli ./apps/cli
RUN node apps/cli/scripts/pack.mjs --out /out && mv /out/opsbench-cli-*.tgz /out/opsbench-cli.tgz

FROM node:24.21.0-bookworm-slim AS cli
# The packed CLI has no dependencies: unpacked where npm puts a global package, nothing fetched (and
# no install but npm ci in a Dockerfile: tests/self-hosting.test.ts).
COPY --from=cli-pack /out/opsbench-cli.tgz /tmp/opsbench-cli.tgz
RUN mkdir -p /usr/local/lib/node_modules/@opsbench/cli \
 && tar -xzf /tmp/opsbench-cli.tgz --strip-components=1 -C /usr/local/lib/node_modules/@opsbench/cli \
 && chmod 755 /usr/local/lib/node_modules/@opsbench/cli/bin/opsbench.mjs \
 && ln -s ../lib/node_modules/@opsbench/cli/bin/opsbench.mjs /usr/local/bin/opsbench \
 && rm /tmp/opsbench-cli.tgz
# The licence and its notices, where the other images keep theirs too (the package holds them as well).
COPY LICENSE NOTICE /app/
USER node
WORKDIR /work
ENTRYPOINT ["opsbench"]

FROM deps AS web-build
COPY apps/web ./apps/web
RUN npm run build -w @opsbench/web && rm -rf apps/web/.next/cache

FROM deps AS worker-build
COPY apps/worker ./apps/worker
COPY apps/runner ./apps/runner
# The CLI: `opsbench admin setup-link` and `admin create` run in this image (docs/self-hosting.md).
COPY apps/cli ./apps/cli
# The runner's default engine path comes from engine/build.mjs (the image sets OPSBENCH_ENGINE; the import must resolve).
COPY engine/build.mjs ./engine/build.mjs
COPY benchapps ./benchapps

FROM node:24.21.0-bookworm-slim AS web
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
# The code stays owned by root (the app cannot rewrite itself); only Next's cache is writable.
# node_modules stay: pg, @prisma/*, bullmq and ioredis are loaded at run time, not bundled.
COPY --from=web-build /app/package.json /app/tsconfig.base.json /app/LICENSE /app/NOTICE ./
COPY --from=web-build /app/node_modules ./node_modules
COPY --from=web-build /app/packages ./packages
COPY --from=web-build /app/apps/web ./apps/web
COPY --from=cli-pack /out/opsbench-cli.tgz ./apps/web/cli-dist/opsbench-cli.tgz
RUN mkdir -p apps/web/.next/cache && chown -R node:node apps/web/.next/cache
USER node
WORKDIR /app/apps/web
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "../../node_modules/next/dist/bin/next", "start", "-p", "3000"]

FROM node:24.21.0-bookworm-slim AS app
WORKDIR /app
# The engine's sandbox (docs/security.md): bubblewrap, and nftables + iproute2 for its own network
# namespace; the runner service has the capabilities they need, the worker none. Python for the
# Flask benchapp (cpu-loop/flask, Raupi in study 002).
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap nftables iproute2 python3 python3-venv \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production OPSBENCH_ENGINE=/usr/local/bin/opsbench-engine OPSBENCH_HELM=/usr/local/bin/helm OPSBENCH_WORK_DIR=/app/.data/runs
# The code stays owned by root (the worker, which starts benchapps, cannot rewrite it);
# only the runs' working folder is the worker's.
COPY --from=worker-build /app ./
COPY --from=go-build /out/opsbench-engine /usr/local/bin/opsbench-engine
COPY --from=go-build /out/helm /usr/local/bin/helm
# The benchapps with a build step, where their benchapp.json expects them (.tools/benchapps).
COPY --from=go-build /out/echo-go .tools/benchapps/echo-go
RUN python3 -m venv .tools/benchapps/raupi-venv \
 && .tools/benchapps/raupi-venv/bin/pip install --no-cache-dir --disable-pip-version-check -r benchapps/cpu-loop/flask/requirements.txt \
 && mkdir -p .data/runs /run/opsbench-runner && chown -R node:node .data
USER node
# Healthy while this container's worker writes its heartbeat to Redis, asked of the worker on its health socket by a
# plain-JavaScript probe (no tsx start every 10 s). The runner service overrides command and healthcheck (docker-compose.yml).
ENV OPSBENCH_WORKER_HEALTH_SOCKET=/tmp/opsbench-worker-health.sock
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "packages/jobs/health-probe.mjs", "worker"]
CMD ["node", "--import", "tsx", "apps/worker/src/main.ts"]

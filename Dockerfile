# querygate's image: `docker build -t querygate .` (podman: `podman build --format docker`, so that
# the HEALTHCHECK is kept). The base is an argument so that a mirror of it can be used.
ARG NODE_IMAGE=node:20-bookworm-slim

# Compiles TypeScript with the dev dependencies; only dist/ leaves this stage.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && rm -f dist/.tsbuildinfo

FROM ${NODE_IMAGE}
WORKDIR /app
# Production dependencies only, installed here for the image's own platform (DuckDB's binding is
# per platform), the npm cache removed in the same layer. Owned by root: the server cannot
# change its own code.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY queries ./queries
COPY supabase ./supabase
COPY examples ./examples
RUN mkdir /data && chown node:node /data

# Listens on every interface of the container; the data (DuckDB file, ingest journal, generated
# key) lives in the /data volume.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000 QUERYGATE_DATA_DIR=/data
VOLUME /data
EXPOSE 4000
USER node
# No curl in the slim image: Node's fetch. /health answers without a key once the server listens.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node is PID 1 and handles SIGTERM itself: it stops accepting, lets requests under way finish,
# checkpoints the store and exits 0 (`serve` in src/cli/main.ts).
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]

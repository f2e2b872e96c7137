# evident as an MCP Streamable HTTP server (docs/DEPLOY.md). deploy/compose.yaml runs two of
# these behind nginx with Redis; test/deploy checks that it matches the two-replica test.

# Build: install from the lock file, compile, keep the production dependencies only. No
# dependency needs an install script: ripgrep and the compiler come as platform packages.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Run: Node, the compiled package and its production dependencies (ripgrep is the
# @vscode/ripgrep platform package among them), as the image's unprivileged `node` user.
FROM node:20-bookworm-slim
# Memory (docs/DEPLOY.md): jemalloc hands freed memory back to the system where glibc's
# allocator keeps it, and a 1 MB young generation keeps V8 from growing its own; a replica under
# varied calls then levels off and peaks lower at the same CPU (bench/hardening/RESULTS.md).
RUN apt-get update \
 && apt-get install -y --no-install-recommends libjemalloc2 \
 && rm -rf /var/lib/apt/lists/* \
 && ln -s "$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2)" /usr/local/lib/libjemalloc.so.2
# Port: EVIDENT_HTTP_PORT, else the platform's PORT, else 8787.
ENV NODE_ENV=production \
    EVIDENT_HTTP_HOST=0.0.0.0 \
    LD_PRELOAD=/usr/local/lib/libjemalloc.so.2 \
    NODE_OPTIONS=--max-semi-space-size=1
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# code_search searches the working directory: mount the code here, read-only, at the same
# path in every replica (a snapshot names its search root).
WORKDIR /workspace
USER node
EXPOSE 8787
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const e=process.env;fetch('http://127.0.0.1:'+(e.EVIDENT_HTTP_PORT||e.PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/adapters/cli/main.js"]
CMD ["mcp", "--transport", "http"]

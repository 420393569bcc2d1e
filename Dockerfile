# Norma Server. bubblewrap (process sandbox), ripgrep (Grep) and socat (a session's network
# bridge) come from Debian, never downloaded. Node 22 LTS on Debian 13 (trixie): both maintained
# (Node 22 until April 2027). Not Node 24 while better-sqlite3 is 12: from 24.19 on, Node's
# node_object_wrap.h removes an environment cleanup hook in ~ObjectWrap, better-sqlite3 12 (compiled
# here against the base's headers) derives its Statement from ObjectWrap, and a Statement collected
# outside any JavaScript context aborts the server (`Assertion failed: (env) != nullptr`,
# nodejs/node#65446, WiseLibs/better-sqlite3#1515): 7 of 20 starts on Node 24.19.0, 7 of 20 on
# 24.21.0. Node 22's header has no such hook, so its build cannot call it (scripts/container-check.mjs
# checks the compiled addon, and 20 starts in a row). node-pty builds against Node-API, which does
# not change between Node versions.
FROM node:22-trixie-slim AS build
# node-pty (PTY shells) is compiled by node-gyp; better-sqlite3 too when no prebuilt binary fits.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# `npm run build` is scripts/build-if-stale.mjs --always (tsc, the web console's files in
# dist/console, and the stamp `npm start` checks).
COPY scripts/build-if-stale.mjs scripts/build-console.mjs ./scripts/
COPY src ./src
COPY routes ./routes
COPY console ./console
RUN npm run build && npm prune --omit=dev

FROM node:22-trixie-slim
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
# /readyz, not /healthz: healthy means the store and the workspace root are usable, not only that
# the process answers (a missing sandbox or ripgrep is reported there but does not fail it). The
# image has no curl: node asks.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||7070)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# The built server itself: `npm start` would check the build first (scripts/start.mjs), which needs the
# sources the image does not have. The V8 flag is npm start's too: a 2 MB young generation
# keeps the idle server ~25 MB smaller at no measured cost in throughput.
CMD ["node", "--max-semi-space-size=2", "dist/src/main.js"]

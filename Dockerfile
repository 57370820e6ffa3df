# syntax=docker/dockerfile:1
#
# One image build, three targets (one per service), from the same `npm ci` and `npm run build` the
# tests use:
#
#   docker build --target validation    -t registry.example.org/nhsn/validation:0.1.0 .
#   docker build --target tenant        -t registry.example.org/nhsn/tenant:0.1.0 .
#   docker build --target admin-gateway -t registry.example.org/nhsn/admin-gateway:0.1.0 .
#
# Node 24: the same version the npm `node` devDependency pins for the tests (test/deploy checks that
# they agree). The runtime stages hold production dependencies and dist/ only, run as uid 10001,
# and start `node` directly (no npm, so SIGTERM reaches the service and it drains).
ARG NODE_VERSION=24.21.0

# ---- build: full install (dev dependencies included: TypeScript) and compile to dist/
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY adapters ./adapters
COPY contracts ./contracts
COPY services ./services
COPY scripts ./scripts
RUN npm run build

# ---- production dependencies only; install scripts are not needed by any of them
FROM node:${NODE_VERSION}-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ---- common runtime: read-only application files owned by root, executed by an unprivileged user
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
USER 10001:10001

FROM runtime AS validation
# The IG packages embedded in the service (US Core, QI-Core, DEQM, NHSN ...): $initialize and the first
# start load them. The service finds them by walking up from dist/ to services/validation/artifacts.
COPY --from=build /app/services/validation/artifacts ./services/validation/artifacts
EXPOSE 8081
CMD ["node", "dist/services/validation/src/main.js"]

FROM runtime AS tenant
EXPOSE 8082
CMD ["node", "dist/services/tenant/src/main.js"]

FROM runtime AS admin-gateway
EXPOSE 8080
CMD ["node", "dist/services/admin-gateway/src/main.js"]

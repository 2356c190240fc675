# syntax=docker/dockerfile:1
# Multi-stage build of the single `trellis` binary. Base images are ARGs so that an
# offline builder can substitute local stand-ins (see .ci/ship).
ARG BUN_IMAGE=docker.io/oven/bun:1.3.14-debian
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUN_IMAGE} AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile
COPY . .
RUN bun run build

FROM ${RUNTIME_IMAGE} AS runtime
COPY --from=build /src/dist/trellis /usr/local/bin/trellis
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    TRELLIS_DATA_DIR=/data
# The embedded database lives here; mount a volume to keep it.
VOLUME ["/data"]
EXPOSE 3000
USER 65532:65532
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s CMD ["/usr/local/bin/trellis", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/trellis"]
CMD ["serve"]

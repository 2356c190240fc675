# syntax=docker/dockerfile:1
# Trellis as one self-contained binary on a minimal glibc image.
#
#   docker build -t trellis .
#   docker run -p 3000:3000 -v trellis-data:/data trellis
#
# Base images are ARGs so they can be swapped (another mirror, a digest pin, or the local
# stand-ins .ci/ship builds where no registry is reachable). Pin by digest in production:
#   --build-arg BUN_IMAGE=docker.io/oven/bun:1.4.4-debian@sha256:…
ARG BUN_IMAGE=docker.io/oven/bun:1.4.4-debian
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

FROM ${BUN_IMAGE} AS build
WORKDIR /src
# Dependencies first, so a source change does not re-run the install.
COPY package.json bun.lock ./
COPY patches ./patches
RUN bun install --frozen-lockfile --production --ignore-scripts
COPY tsconfig.json ./
COPY src ./src
# Build steps (the PGlite seed cluster the binary embeds).
COPY scripts ./scripts
RUN bun run build \
 && mkdir -p /out/data \
 && /src/dist/trellis --version

FROM ${RUNTIME_IMAGE} AS runtime
ARG UID=65532
COPY --from=build /src/dist/trellis /usr/local/bin/trellis
# The embedded PGlite database lives here; owned by the runtime user so it can write it,
# and a fresh named volume mounted here inherits that ownership.
COPY --from=build --chown=${UID}:${UID} /out/data /data
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    TRELLIS_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000
USER ${UID}:${UID}
# No shell or curl in the image: the binary probes its own /health.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["/usr/local/bin/trellis", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/trellis"]
CMD ["serve"]

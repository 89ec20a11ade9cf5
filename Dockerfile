# cockpit in a container: a static binary on distroless (no shell, no package manager), run as
# the distroless "nonroot" user (65532), the runtime root a volume at /var/lib/cockpit.
#
#   docker build --build-arg VERSION=1.2.3 --build-arg COMMIT=$(git rev-parse HEAD) -t cockpit .
#   docker run --rm -v cockpit-root:/var/lib/cockpit cockpit init
#   docker run -d -v cockpit-root:/var/lib/cockpit -p 127.0.0.1:8765:8765 cockpit
#
# The default command serves MCP over streamable HTTP on the container's port 8765 (the
# container's own network is the boundary, hence --allow-remote); the bearer token is
# /var/lib/cockpit/serve-mcp.token in the volume, and only Host/Origin names localhost, 127.0.0.1
# and ::1 are accepted unless you pass --allowed-hosts.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X cockpit/internal/buildinfo.version=${VERSION} -X cockpit/internal/buildinfo.commit=${COMMIT}" \
      -o /out/cockpit ./cmd/cockpit \
 && mkdir -p /out/root && chmod 0700 /out/root

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/cockpit /usr/local/bin/cockpit
COPY --from=build --chown=65532:65532 /out/root /var/lib/cockpit
ENV COCKPIT_HOME=/var/lib/cockpit
VOLUME /var/lib/cockpit
USER 65532:65532
EXPOSE 8765
ENTRYPOINT ["/usr/local/bin/cockpit"]
CMD ["serve-mcp", "--http", "0.0.0.0:8765", "--allow-remote"]

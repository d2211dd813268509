# slashd in a container: a static binary on distroless, run as a non-root
# user, listening on every interface, its data in a volume.
#
#   docker build -t slashd --build-arg VERSION=$(git describe --tags --always --dirty) \
#     --build-arg REVISION=$(git rev-parse HEAD) .
#   docker run -p 8080:8080 -v slashd-data:/data slashd
#   docker run --rm -v slashd-data:/data slashd app create --name mybot --json
#
# The build needs nothing but the Go module proxy (GOPROXY): the SQLite
# driver is pure Go, so the binary is built with CGO_ENABLED=0.

# The Go of go.mod's `go` line.
ARG GO_VERSION=1.26.8

FROM golang:${GO_VERSION} AS build
WORKDIR /src
ENV CGO_ENABLED=0 GOFLAGS=-trimpath
# Modules first, so that a source change does not download them again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# What `slashd version` and GET /healthz report (see tools/release).
ARG VERSION=""
ARG REVISION=""
RUN go build -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.revision=${REVISION}" \
      -o /out/slashd ./cmd/slashd \
 && install -d -m 0700 /out/data

# distroless/static: CA certificates and time zones, no shell, no libc;
# the :nonroot tag runs as uid 65532.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/slashd /slashd
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
# 0.0.0.0: reachable through the published port; bootstrap.json's
# base_url says http://127.0.0.1:8080, which -p 8080:8080 makes true on
# the host.
ENV SLASHD_ADDR=0.0.0.0:8080 SLASHD_DATA=/data
EXPOSE 8080
VOLUME ["/data"]
# The image has no curl: slashd checks itself (GET /healthz on SLASHD_ADDR).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["/slashd", "healthcheck"]
ENTRYPOINT ["/slashd"]
CMD ["serve"]

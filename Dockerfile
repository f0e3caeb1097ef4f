# casefile: one static binary that runs any role (run, worker, serve, ...).
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/casefile ./cmd/casefile

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/casefile /usr/local/bin/casefile
USER nonroot
ENTRYPOINT ["/usr/local/bin/casefile"]
CMD ["--help"]

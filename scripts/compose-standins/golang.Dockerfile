# Stand-in for the official golang:<version>-bookworm image: Go from the Go module proxy's
# golang.org/toolchain module. Built by scripts/check-compose.mjs; never part of what opsbench ships.
FROM opsbench-standin/debian:bookworm
COPY go /usr/local/go
ENV GOLANG_VERSION=@GO_VERSION@ GOTOOLCHAIN=local GOPATH=/go PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN mkdir -p /go/bin /go/src && go version
WORKDIR /go

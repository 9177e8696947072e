#!/usr/bin/env bash
# Starts one Trino node in /opt/trino (plugin/, etc/); the page cache of docker/catalog/overdrive.properties is in /var/lib/trino/cache.
# Unless etc/config.properties is mounted, it is written from the environment:
#   TRINO_NODE_ID        node id (the container's host name)
#   TRINO_COORDINATOR    true for the coordinator (false)
#   TRINO_HTTP_PORT      HTTP port; with --network host each node needs its own (8080)
#   TRINO_DISCOVERY_URI  the coordinator (http://127.0.0.1:8080)
#   TRINO_HEAP           Java heap (2G)
#   TRINO_QUERY_MAX_MEMORY_PER_NODE (Trino's default: 30% of the heap)
# Catalogs: mount or copy *.properties into /opt/trino/etc/catalog. Overdrive's MBeans are served at /metrics
# (metrics.jmx-object-names=io.overdrive.*:*).
set -euo pipefail
cd /opt/trino
mkdir -p etc/catalog

if [[ ! -f etc/config.properties ]]; then
    coordinator="${TRINO_COORDINATOR:-false}"
    port="${TRINO_HTTP_PORT:-8080}"
    {
        echo "node.environment=overdrive"
        echo "node.id=${TRINO_NODE_ID:-$(hostname)}"
        echo "node.internal-address=127.0.0.1"
        echo "coordinator=$coordinator"
        echo "http-server.http.port=$port"
        echo "discovery.uri=${TRINO_DISCOVERY_URI:-http://127.0.0.1:8080}"
        if [[ -n "${TRINO_QUERY_MAX_MEMORY_PER_NODE:-}" ]]; then
            echo "query.max-memory-per-node=$TRINO_QUERY_MAX_MEMORY_PER_NODE"
        fi
        echo "metrics.jmx-object-names=io.overdrive.*:*"
        if [[ "$coordinator" == true ]]; then
            echo "node-scheduler.include-coordinator=false"
        fi
    } >etc/config.properties
fi
[[ -f etc/log.properties ]] || echo "io.trino=INFO" >etc/log.properties

exec java "-Xmx${TRINO_HEAP:-2G}" \
    -XX:+UseG1GC -XX:G1HeapRegionSize=32M -XX:+ExitOnOutOfMemoryError -XX:+ExplicitGCInvokesConcurrent \
    -Djdk.attach.allowAttachSelf=true -Dfile.encoding=UTF-8 -Duser.timezone=UTC \
    --add-modules=jdk.incubator.vector --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
    -Dconfig=etc/config.properties -Dlog.levels-file=etc/log.properties \
    -cp "/opt/trino/lib/*" io.overdrive.it.server.TrinoServerMain

#!/usr/bin/env bash
# Starts one HDFS daemon: "namenode" (formats /data/name on first start) or "datanode" (blocks in /data/data).
# With --network host every daemon needs its own ports; the defaults are Hadoop's.
#   HDFS_NAMENODE_HOST       address of the NameNode (127.0.0.1)
#   HDFS_NAMENODE_RPC_PORT   NameNode RPC, the port in hdfs:// URIs (9000)
#   HDFS_NAMENODE_HTTP_PORT  NameNode web UI and /jmx (9870)
#   HDFS_DATANODE_PORT       DataNode data transfer (9866)
#   HDFS_DATANODE_HTTP_PORT  DataNode web UI and /jmx (9864)
#   HDFS_DATANODE_IPC_PORT   DataNode IPC (9867)
#   HDFS_REPLICATION         replicas per block (1)
#   HDFS_HEAP                Java heap (512m)
set -euo pipefail

role="${1:-namenode}"
etc=/opt/hdfs/etc
host="${HDFS_NAMENODE_HOST:-127.0.0.1}"

property() { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }

cat >"$etc/core-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
$(property fs.defaultFS "hdfs://$host:${HDFS_NAMENODE_RPC_PORT:-9000}")
</configuration>
XML
cat >"$etc/hdfs-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
$(property dfs.namenode.name.dir /data/name)
$(property dfs.datanode.data.dir /data/data)
$(property dfs.namenode.rpc-bind-host 0.0.0.0)
$(property dfs.namenode.http-address "$host:${HDFS_NAMENODE_HTTP_PORT:-9870}")
$(property dfs.datanode.address "0.0.0.0:${HDFS_DATANODE_PORT:-9866}")
$(property dfs.datanode.http.address "0.0.0.0:${HDFS_DATANODE_HTTP_PORT:-9864}")
$(property dfs.datanode.ipc.address "0.0.0.0:${HDFS_DATANODE_IPC_PORT:-9867}")
$(property dfs.datanode.hostname "$host")
$(property dfs.replication "${HDFS_REPLICATION:-1}")
$(property dfs.permissions.enabled false)
$(property dfs.namenode.datanode.registration.ip-hostname-check false)
$(property dfs.heartbeat.interval 1)
</configuration>
XML

# log4j's configuration and the class path: the generated site files first, then Hadoop's jars
java_options=(-Dlog4j.configuration="file:$etc/log4j.properties" -Dhadoop.home.dir=/opt/hdfs -cp "$etc:/opt/hdfs/lib/*")

case "$role" in
    namenode)
        if [[ ! -f /data/name/current/VERSION ]]; then
            java -Xmx256m "${java_options[@]}" org.apache.hadoop.hdfs.server.namenode.NameNode -format -nonInteractive
        fi
        exec java "-Xmx${HDFS_HEAP:-512m}" "${java_options[@]}" org.apache.hadoop.hdfs.server.namenode.NameNode
        ;;
    datanode)
        mkdir -p /data/data
        exec java "-Xmx${HDFS_HEAP:-512m}" "${java_options[@]}" org.apache.hadoop.hdfs.server.datanode.DataNode
        ;;
    *)
        echo "usage: entrypoint.sh namenode|datanode" >&2
        exit 2
        ;;
esac

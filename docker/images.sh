#!/usr/bin/env bash
# Builds Overdrive's container images on this machine, reusing whatever is already there (a running daemon, images).
#
#   docker/images.sh daemon   Docker installed (Debian's docker.io, docker-compose, debootstrap; prometheus for the
#                             compose test) and its daemon running
#   docker/images.sh base     daemon + overdrive/java:25, a Debian bookworm minbase root file system with this machine's
#                             JDK 25 at /opt/java/openjdk (no registry needed)
#   docker/images.sh build    base + overdrive/hdfs:<Hadoop version>, overdrive/s3:<s3proxy version> and overdrive/trino:483
#                             from what './overdrive package' built; their tags in docker/target/images.properties
#
# Environment: JAVA_HOME (the JDK copied into the base; ./overdrive sets it), BASE_IMAGE (build the HDFS, S3 and Trino
# images FROM another image with Java 25 on PATH, e.g. eclipse-temurin:25-jdk where a registry is reachable; the local
# base is then not built), OVERDRIVE_DEBIAN_MIRROR (debootstrap's mirror, default http://deb.debian.org/debian).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STAGE="$ROOT/docker/target"
BASE_TAG="overdrive/java:25"
TRINO_TAG="overdrive/trino:483"
DOCKERD_LOG="/var/log/overdrive-dockerd.log"

say() { echo "==> $*" >&2; }
fail() { echo "docker/images.sh: $*" >&2; exit 1; }

docker_up() { docker info >/dev/null 2>&1; }

# This kind of machine has no Docker engine and no systemd: the daemon runs with host networking only, which is why
# every container uses --network host.
ensure_daemon() {
    if command -v docker >/dev/null 2>&1 && docker_up; then
        return 0
    fi
    # prometheus: the compose test scrapes the cluster with docker/prometheus.yml, as an operator would
    if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker-compose >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1 || ! command -v prometheus >/dev/null 2>&1; then
        [[ "$(id -u)" == 0 ]] || fail "Docker is missing and installing it needs root: apt-get install docker.io docker-compose debootstrap prometheus"
        command -v apt-get >/dev/null 2>&1 || fail "Docker is missing and this is not a Debian-like system: install Docker, docker-compose, debootstrap (and prometheus)"
        say "installing docker.io, docker-compose, debootstrap and prometheus (apt-get)"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker.io docker-compose debootstrap prometheus >/dev/null
    fi
    if docker_up; then
        return 0
    fi
    [[ "$(id -u)" == 0 ]] || fail "the Docker daemon is not running and starting it needs root: sudo dockerd --bridge=none --iptables=false"
    say "starting dockerd --bridge=none --iptables=false (log: $DOCKERD_LOG)"
    nohup dockerd --bridge=none --iptables=false >"$DOCKERD_LOG" 2>&1 &
    local i
    for i in $(seq 1 60); do
        docker_up && return 0
        sleep 1
    done
    tail -n 20 "$DOCKERD_LOG" >&2 || true
    fail "dockerd did not answer within 60 s (log: $DOCKERD_LOG)"
}

image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

ensure_base() {
    ensure_daemon
    if [[ -n "${BASE_IMAGE:-}" ]] || image_exists "$BASE_TAG"; then
        return 0
    fi
    [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]] || fail "JAVA_HOME must name the JDK 25 to put in $BASE_TAG (./overdrive docker build sets it)"
    [[ "$(id -u)" == 0 ]] || fail "debootstrap needs root to build $BASE_TAG"
    local rootfs="$STAGE/rootfs" context="$STAGE/java"
    rm -rf "$rootfs" "$context"
    mkdir -p "$STAGE"
    if ! image_exists overdrive/debian:bookworm; then
        say "debootstrap --variant=minbase bookworm (about 30 s)"
        debootstrap --variant=minbase bookworm "$rootfs" "${OVERDRIVE_DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$STAGE/debootstrap.log" 2>&1 \
            || { tail -n 20 "$STAGE/debootstrap.log" >&2; fail "debootstrap failed (log: $STAGE/debootstrap.log)"; }
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb
        tar -C "$rootfs" -c . | docker import - overdrive/debian:bookworm >/dev/null
        rm -rf "$rootfs"
    fi
    say "building $BASE_TAG (Debian bookworm + $JAVA_HOME)"
    mkdir -p "$context"
    cp -a "$JAVA_HOME" "$context/jdk"
    cat >"$context/Dockerfile" <<'DOCKERFILE'
FROM overdrive/debian:bookworm
COPY jdk/ /opt/java/openjdk/
# the layout of the official eclipse-temurin images, so either can be the base of the HDFS and Trino images
ENV JAVA_HOME=/opt/java/openjdk \
    PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8
CMD ["java", "-version"]
DOCKERFILE
    docker build -t "$BASE_TAG" "$context" >"$STAGE/build.log" 2>&1 \
        || { tail -n 20 "$STAGE/build.log" >&2; fail "docker build of $BASE_TAG failed (log: $STAGE/build.log)"; }
    rm -rf "$context"
}

# Copies the jars of a Maven-built class path file into a folder (hard links where the file system allows).
stage_classpath() {
    local classpath_file="$1" target="$2" jar jars
    [[ -f "$classpath_file" ]] || fail "missing $classpath_file: run './overdrive package' first"
    mkdir -p "$target"
    IFS=: read -r -a jars <"$classpath_file" || true
    for jar in "${jars[@]}"; do
        ln -f "$jar" "$target/" 2>/dev/null || cp -f "$jar" "$target/"
    done
    [[ "$(ls "$target" | wc -l)" -eq "${#jars[@]}" ]] || fail "$classpath_file names two jars with the same file name"
}

build_image() {
    local tag="$1" context="$2"
    say "building $tag"
    docker build ${BASE_IMAGE:+--build-arg BASE_IMAGE="$BASE_IMAGE"} -t "$tag" "$context" >"$STAGE/build.log" 2>&1 \
        || { tail -n 20 "$STAGE/build.log" >&2; fail "docker build of $tag failed (log: $STAGE/build.log)"; }
}

build_images() {
    ensure_base
    local hdfs="$STAGE/hdfs" s3="$STAGE/s3" trino="$STAGE/trino" zip
    rm -rf "$hdfs" "$s3" "$trino"
    mkdir -p "$STAGE"

    local hdfs_classpath="$ROOT/integration-tests/hdfs-server/target/runtime.classpath" hadoop_version
    hadoop_version="$(tr ':' '\n' <"$hdfs_classpath" | sed -n 's|.*/hadoop-hdfs-\([0-9.]*\)\.jar$|\1|p' | head -n 1)"
    [[ -n "$hadoop_version" ]] || fail "no hadoop-hdfs jar on integration-tests/hdfs-server's class path: run './overdrive package' first"
    HDFS_TAG="overdrive/hdfs:$hadoop_version"
    mkdir -p "$hdfs"
    cp "$ROOT/docker/hdfs/Dockerfile" "$ROOT/docker/hdfs/entrypoint.sh" "$ROOT/docker/hdfs/log4j.properties" "$hdfs/"
    stage_classpath "$hdfs_classpath" "$hdfs/lib"
    build_image "$HDFS_TAG" "$hdfs"

    local s3_classpath="$ROOT/integration-tests/s3-server/target/runtime.classpath" s3proxy_version
    s3proxy_version="$(tr ':' '\n' <"$s3_classpath" | sed -n 's|.*/s3proxy-\([0-9.]*\)\.jar$|\1|p' | head -n 1)"
    [[ -n "$s3proxy_version" ]] || fail "no s3proxy jar on integration-tests/s3-server's class path: run './overdrive package' first"
    S3_TAG="overdrive/s3:$s3proxy_version"
    mkdir -p "$s3"
    cp "$ROOT/docker/s3/Dockerfile" "$ROOT/docker/s3/entrypoint.sh" "$s3/"
    stage_classpath "$s3_classpath" "$s3/lib"
    cp "$ROOT"/integration-tests/s3-server/target/s3-server-[0-9]*.jar "$s3/lib/" 2>/dev/null || fail "no s3-server jar: run './overdrive package' first"
    build_image "$S3_TAG" "$s3"

    mkdir -p "$trino/plugin-overdrive"
    cp "$ROOT/docker/trino/Dockerfile" "$ROOT/docker/trino/entrypoint.sh" "$trino/"
    stage_classpath "$ROOT/integration-tests/trino-server/target/runtime.classpath" "$trino/lib"
    cp "$ROOT"/integration-tests/trino-server/target/trino-server-[0-9]*.jar "$trino/lib/" 2>/dev/null || fail "no trino-server jar: run './overdrive package' first"
    local stock="$ROOT/integration-tests/trino-server/target/trino-server-483/plugin"
    [[ -d "$stock" ]] || fail "no stock plugins: run './overdrive package' first"
    cp -al "$stock" "$trino/plugin-stock" 2>/dev/null || cp -a "$stock" "$trino/plugin-stock"
    for zip in "$ROOT"/plugin-cache/target/overdrive-cache-*.zip "$ROOT"/plugin-merge/target/overdrive-merge-*.zip; do
        [[ -f "$zip" ]] || fail "no $(basename "$zip"): run './overdrive package' first"
        (cd "$trino/plugin-overdrive" && "$JAVA_HOME/bin/jar" xf "$zip")
    done
    build_image "$TRINO_TAG" "$trino"
    rm -rf "$hdfs" "$s3" "$trino"
    printf 'hdfs=%s\ns3=%s\ntrino=%s\n' "$HDFS_TAG" "$S3_TAG" "$TRINO_TAG" >"$STAGE/images.properties"
    # the images these replaced, now untagged
    docker image prune -f --filter label=io.overdrive.image >/dev/null
    say "images: $HDFS_TAG, $S3_TAG, $TRINO_TAG (FROM ${BASE_IMAGE:-$BASE_TAG})"
}

case "${1:-build}" in
    daemon) ensure_daemon ;;
    base) ensure_base ;;
    build) build_images ;;
    *) fail "usage: docker/images.sh [daemon|base|build]" ;;
esac

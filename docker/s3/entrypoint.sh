#!/usr/bin/env bash
# Starts the S3 server: s3proxy over the file system under /data, path-style requests signed with AWS signature
# version 2 or 4 (access key "overdrive", secret key "overdrive-secret"), serving until the container stops.
#   S3_PORT     the port it listens on, on every address (9600)
#   S3_BUCKET   the bucket created at start, if missing (lake)
#   S3_HEAP     Java heap (256m)
set -euo pipefail

exec java "-Xmx${S3_HEAP:-256m}" -cp "/opt/s3/lib/*" io.overdrive.it.s3.S3Server \
    --port "${S3_PORT:-9600}" --serve /data "${S3_BUCKET:-lake}" /tmp/s3-ready.properties

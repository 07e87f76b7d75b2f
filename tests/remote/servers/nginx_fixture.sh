#!/usr/bin/env bash
# Starts or stops the nginx the remote tests read from: `nginx_fixture.sh start DIR` serves DIR/www
# on a free loopback port written to DIR/port (pid in DIR/nginx.pid, logs in DIR); `stop DIR` ends
# that nginx. Exits 77 (ctest's skip code for this fixture) when nginx is not installed; scripts/lib/
# common.sh installs it (Debian package nginx-light).
set -euo pipefail
action=${1:?usage: nginx_fixture.sh start|stop DIR}
dir=${2:?usage: nginx_fixture.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
nginx=$(command -v nginx || true)
[[ -z $nginx && -x /usr/sbin/nginx ]] && nginx=/usr/sbin/nginx

stop() {
    if [[ -f $dir/nginx.pid ]]; then
        local pid
        pid=$(cat "$dir/nginx.pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        rm -f "$dir/nginx.pid"
    fi
    rm -f "$dir/port"
}

if [[ $action == stop ]]; then
    stop
    exit 0
fi
if [[ -z $nginx ]]; then
    echo "nginx is not installed (Debian: nginx-light); the remote HTTP tests are skipped" >&2
    exit 77
fi
stop
mkdir -p "$dir/www" "$dir/tmp"
chmod 0755 "$dir" "$dir/www"
user_line=""
# As root, workers would drop to a user that may not reach DIR; keep them as the caller.
if ((EUID == 0)); then
    user_line="user root root;"
fi
for attempt in 1 2 3 4 5; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$dir/nginx.conf" <<CONF
$user_line
worker_processes 2;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    sendfile on;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
    }
}
CONF
    if "$nginx" -e "$dir/error.log" -p "$dir" -c "$dir/nginx.conf" 2>>"$dir/error.log"; then
        for _ in $(seq 50); do
            if [[ -s $dir/nginx.pid ]] && (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
                echo "$port" >"$dir/port"
                echo "nginx on 127.0.0.1:$port serving $dir/www"
                exit 0
            fi
            sleep 0.1
        done
        stop
    fi
    echo "nginx did not start on port $port (attempt $attempt); see $dir/error.log" >&2
done
exit 1

#!/bin/busybox sh
# shellcheck shell=dash
# /init of the QEMU guest that scripts/test-nvme-qemu boots: mounts ext4 and XFS partitions of two
# emulated NVMe controllers (512-byte and 4 KiB logical blocks), runs nvme_guest_check against
# each with nvme-passthru as the only backend (io_uring and ioctl submission), with writes enabled,
# with the fallback behind it, then the benchmark, and powers off. The host reads the serial log:
# "ok"/"not ok" lines per check, "RUN" lines per program run, "BENCH" lines, and one final
# "NVME-QEMU RESULT" line.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /scratch
while read -r m; do
    insmod "/lib/modules/$m" || echo "insmod $m failed"
done </lib/modules/load-order

i=0
while { [ ! -e /dev/nvme0n1p2 ] || [ ! -e /dev/nvme1n1p2 ]; } && [ $i -lt 300 ]; do
    sleep 0.1
    i=$((i + 1))
done
echo "GUEST kernel $(uname -r), NVMe ready after $(cut -d' ' -f1 /proc/uptime) s"
for b in nvme0n1 nvme1n1; do
    echo "GUEST $b: $(cat /sys/block/$b/queue/logical_block_size)-byte blocks," \
        "max_hw_sectors_kb $(cat /sys/block/$b/queue/max_hw_sectors_kb)"
done

# Kernel command line knobs from scripts/test-nvme-qemu: hf.only=<dir name> runs the checks of
# one filesystem only, hf.log=<level> sets the library's log level.
only=$(sed -n 's/.*hf\.only=\([^ ]*\).*/\1/p' /proc/cmdline)
log_level=$(sed -n 's/.*hf\.log=\([^ ]*\).*/\1/p' /proc/cmdline)
export LD_LIBRARY_PATH=/hf/lib:/lib/x86_64-linux-gnu
export HIPFILE_GPU_RUNTIME=host
conf() { # name, enabled plugins, nvme-passthru group body
    cat >"/etc/$1.conf" <<EOF
log = { level = "${log_level:-warn}"; };
plugins = { directory = "/hf/lib/hipfile/plugins"; enable = [ $2 ]; };
nvme-passthru = { $3 };
EOF
}
conf read-uring '"nvme-passthru"' 'mechanism = "io_uring"; queue_depth = 16;'
conf read-ioctl '"nvme-passthru"' 'mechanism = "ioctl";'
conf write '"nvme-passthru"' 'writes = true;'
conf write-fallback '"nvme-passthru", "fallback"' 'writes = true;'
conf fallback '"fallback"' ''

# Every thread of a program still running after 120 s (each run takes seconds): its state, the
# system call it is in ("running" when in user space) and its kernel stack, so a stalled guest's
# serial log says where it stalled; the host takes the first such line as the stall.
dump_stuck() { # pid
    for t in /proc/"$1"/task/*; do
        echo "STUCK ${t##*/} state $(cut -d' ' -f3 "$t/stat") syscall $(cat "$t/syscall")"
        sed 's/^/STUCK   /' "$t/stack"
    done
}

failed_runs=0
run() { # config, mode, dir, [label]
    [ -z "$only" ] || [ "${3##*/}" = "$only" ] || return 0
    HIPFILE_CONFIG=/etc/$1.conf /hf/bin/nvme_guest_check "$2" "$3" ${4:+"$4"} &
    pid=$!
    (sleep 120 && [ -d /proc/$pid ] && echo "STUCK $1 $2 $3 still running after 120 s" &&
        dump_stuck $pid) &
    watcher=$!
    wait $pid
    rc=$?
    kill $watcher 2>/dev/null
    echo "RUN $1 $2 $3: exit $rc"
    [ $rc -eq 0 ] || failed_runs=$((failed_runs + 1))
}

mkdir -p /mnt/e4-512 /mnt/xfs-512 /mnt/e4-4k /mnt/xfs-4k
mount -t ext4 /dev/nvme0n1p1 /mnt/e4-512 &&
    mount -t xfs /dev/nvme0n1p2 /mnt/xfs-512 &&
    mount -t ext4 /dev/nvme1n1p1 /mnt/e4-4k &&
    mount -t xfs /dev/nvme1n1p2 /mnt/xfs-4k || failed_runs=$((failed_runs + 1))

for d in /mnt/e4-512 /mnt/xfs-512 /mnt/e4-4k /mnt/xfs-4k; do
    run read-uring read $d
    run write write $d
done
run read-ioctl read /mnt/e4-512
run read-ioctl read /mnt/xfs-4k
run write-fallback write-fallback /mnt/xfs-512
run write-fallback write-fallback /mnt/e4-4k
run read-uring decline /scratch

for d in /mnt/e4-512 /mnt/xfs-4k; do
    run read-uring bench $d nvme-passthru:$d
    run fallback bench $d fallback:$d
done

sync
umount /mnt/e4-512 /mnt/xfs-512 /mnt/e4-4k /mnt/xfs-4k
if [ $failed_runs -eq 0 ]; then
    echo "NVME-QEMU RESULT: PASS"
else
    echo "NVME-QEMU RESULT: FAIL ($failed_runs runs failed)"
fi
poweroff -f

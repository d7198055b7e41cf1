# SPDX-License-Identifier: GPL-2.0-or-later
#
# Private libvirtd instances of qemu-planes' libvirt build, for the tests:
# each has its own configuration, sockets, run, state, cache and log
# directories (bind-mounted over /etc/libvirt, /run/libvirt,
# /var/lib/libvirt, /var/cache/libvirt and /var/log/libvirt in a mount
# namespace of its own, optionally inside a network namespace), its own
# host UUID, and is started and stopped by the test.  The system's
# libvirtd, if any, is neither used nor disturbed.  Needs root.
#
#   source private-libvirtd.sh
#   lv_start NAME [NETNS LISTEN_ADDR]   start; sets nothing, see lv_uri
#   lv_uri NAME                         the instance's client URI
#   lv_dir NAME                         its directories, seen from the host
#   lv_stop NAME                        stop it (destroys its domains first)
#   lv_stop_daemon NAME                 stop the daemon alone: its domains
#                                       run on, lv_start NAME reconnects
#   lv_stop_all                         stop every instance started

lv_install=${LV_INSTALL:-}
lv_root=${LV_ROOT:-}
lv_started=()

lv_dir() { echo "$lv_root/$1"; }
lv_uri() { echo "qemu+unix:///system?socket=$lv_root/$1/run/libvirt-sock"; }
lv_virsh() { # NAME virsh-args...
    local name=$1
    shift
    "$lv_install/bin/virsh" -q -c "$(lv_uri "$name")" "$@"
}

lv_start() { # NAME [NETNS LISTEN_ADDR]
    local name=$1 ns=${2:-} addr=${3:-} d m
    d=$(lv_dir "$name")
    mkdir -p "$d"/{etc,run,lib,cache} "$d/log/qemu"
    cat >"$d/etc/libvirtd.conf" <<CONF
host_uuid = "$(cat /proc/sys/kernel/random/uuid)"
listen_tls = 0
listen_tcp = $([ -n "$addr" ] && echo 1 || echo 0)
auth_unix_rw = "none"
auth_tcp = "none"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
CONF
    [ -n "$addr" ] && echo "listen_addr = \"$addr\"" >>"$d/etc/libvirtd.conf"
    # QEMU runs as root, without cgroups, namespaces or a security driver
    # (TCG only); stdio and chardev logs are written by QEMU itself.
    cat >"$d/etc/qemu.conf" <<CONF
user = "root"
group = "root"
dynamic_ownership = 0
remember_owner = 0
security_driver = "none"
namespaces = [ ]
cgroup_controllers = [ ]
stdio_handler = "file"
CONF
    if [ -n "$addr" ]; then
        printf 'migration_host = "%s"\nmigration_address = "%s"\n' \
            "$addr" "$addr" >>"$d/etc/qemu.conf"
    fi
    for m in /etc/libvirt /run/libvirt /var/lib/libvirt /var/cache/libvirt \
             /var/log/libvirt; do
        mkdir -p "$m"
    done
    local run=(unshare --mount --propagation private)
    [ -n "$ns" ] && run=(ip netns exec "$ns" "${run[@]}")
    "${run[@]}" sh -c '
        d=$1; shift
        mount --bind "$d/etc" /etc/libvirt &&
        mount --bind "$d/run" /run/libvirt &&
        mount --bind "$d/lib" /var/lib/libvirt &&
        mount --bind "$d/cache" /var/cache/libvirt &&
        mount --bind "$d/log" /var/log/libvirt || exit 1
        exec "$@"' sh "$d" "$lv_install/sbin/libvirtd" ${addr:+--listen} \
        -f /etc/libvirt/libvirtd.conf -p /run/libvirt/libvirtd.pid \
        >"$d/daemon.out" 2>&1 &
    echo $! >"$d/pid"
    lv_started+=("$name")
    for _ in $(seq 150); do
        lv_virsh "$name" version >/dev/null 2>&1 && return 0
        kill -0 "$(cat "$d/pid")" 2>/dev/null || break
        sleep 0.2
    done
    echo "libvirtd '$name' does not answer: $(cat "$d/daemon.out" \
        "$d/log/libvirtd.log" 2>/dev/null | tail -5)" >&2
    return 1
}

lv_stop() { # NAME
    local dom
    [ -f "$(lv_dir "$1")/pid" ] || return 0
    for dom in $(lv_virsh "$1" list --all --name 2>/dev/null); do
        lv_virsh "$1" destroy "$dom" >/dev/null 2>&1
        lv_virsh "$1" undefine --managed-save "$dom" >/dev/null 2>&1
    done
    lv_stop_daemon "$1"
}

lv_stop_daemon() { # NAME
    local d pid
    d=$(lv_dir "$1")
    [ -f "$d/pid" ] || return 0
    pid=$(cat "$d/pid")
    kill "$pid" 2>/dev/null
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
    rm -f "$d/pid"
}

lv_stop_all() {
    local name
    for name in "${lv_started[@]}"; do
        lv_stop "$name"
    done
}

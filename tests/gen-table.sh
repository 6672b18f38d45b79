#!/bin/sh
# gen-table.sh: made-up output of common table commands, for the tests
# and tests/eval-tables.sh.  Deterministic: the same rows every time.
#
#   gen-table.sh pods N [SEED]    kubectl get pods -A, N rows
#   gen-table.sh docker           docker ps
#   gen-table.sh ps               ps aux
#   gen-table.sh df               df -h
#   gen-table.sh systemctl        systemctl list-units
#
# The pods' STATUS follows a fixed distribution: of every 3,000 rows,
# 2,628 Running, 246 Completed, 50 CrashLoopBackOff, 19 Error,
# 16 ImagePullBackOff, 11 OOMKilled, 30 Pending.  RESTARTS is a count,
# with kubectl's "(3m ago)" after it when the pod restarted.
what=${1:?usage: gen-table.sh pods|docker|ps|df|systemctl [N] [SEED]}
case $what in
pods)
	n=${2:-3000}
	seed=${3:-1}
	awk -v n="$n" -v seed="$seed" 'BEGIN {
		split("default kube-system monitoring payments search " \
		    "ingress-nginx logging cert-manager", ns, " ")
		split("api web worker cache db queue auth frontend " \
		    "scheduler exporter", app, " ")
		st[0] = "Running"
		printf "%-16s %-48s %-6s %-18s %-14s %s\n", "NAMESPACE", \
		    "NAME", "READY", "STATUS", "RESTARTS", "AGE"
		x = seed
		for (i = 0; i < n; i++) {
			r = i % 3000
			if (r < 2628) s = "Running"
			else if (r < 2874) s = "Completed"
			else if (r < 2924) s = "CrashLoopBackOff"
			else if (r < 2943) s = "Error"
			else if (r < 2959) s = "ImagePullBackOff"
			else if (r < 2970) s = "OOMKilled"
			else s = "Pending"
			x = (x * 1103515245 + 12345) % 2147483648
			a = app[x % 10 + 1]
			nm = ns[int(x / 10) % 8 + 1]
			h = sprintf("%s-%d-%05x", a, i, x % 1048576)
			rs = int(x / 7) % 9
			if (s == "CrashLoopBackOff") rs += 6
			ready = (s == "Running") ? "1/1" : "0/1"
			if (s == "Completed" || s == "Pending") rs = 0
			rst = rs
			if (rs > 0) rst = sprintf("%d (%dm ago)", rs, x % 59 + 1)
			age = sprintf("%dd", x % 90 + 1)
			printf "%-16s %-48s %-6s %-18s %-14s %s\n", nm, h, \
			    ready, s, rst, age
		}
	}'
	;;
docker)
	cat <<'T'
CONTAINER ID   IMAGE                 COMMAND                  CREATED        STATUS                      PORTS                    NAMES
4f1c2a9b8e7d   nginx:1.25            "/docker-entrypoint.…"   3 hours ago    Up 3 hours                  0.0.0.0:8080->80/tcp     web
9a8b7c6d5e4f   postgres:16           "docker-entrypoint.s…"   2 days ago     Up 2 days (healthy)         5432/tcp                 db
1b2c3d4e5f6a   redis:7               "redis-server --save…"   2 days ago     Exited (0) 5 minutes ago                             cache
7e6d5c4b3a29   busybox               "sh -c 'sleep 1000'"     5 weeks ago    Up About an hour                                     sleeper
T
	;;
ps)
	cat <<'T'
USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
root           1  0.0  0.1 167744 13000 ?        Ss   Nov30   0:04 /sbin/init splash
root           2  0.0  0.0      0     0 ?        S    Nov30   0:00 [kthreadd]
root         412  0.0  0.2  48212 22104 ?        S<s  Nov30   0:02 /lib/systemd/systemd-journald
message+     801  0.1  0.0   9432  5120 ?        Ss   Nov30   1:12 /usr/bin/dbus-daemon --system --address=systemd:
alice       2231 12.5  4.3 3341280 351224 ?      Sl   09:14  10:41 /usr/lib/firefox/firefox -new-window
alice       9120  0.0  0.0  10072  3340 pts/1    R+   13:50   0:00 ps aux
T
	;;
df)
	cat <<'T'
Filesystem      Size  Used Avail Use% Mounted on
udev            7.8G     0  7.8G   0% /dev
tmpfs           1.6G  2.1M  1.6G   1% /run
/dev/nvme0n1p2  468G  301G  144G  68% /
tmpfs           7.8G  120M  7.7G   2% /dev/shm
/dev/nvme0n1p1  511M  6.1M  505M   2% /boot/efi
T
	;;
systemctl)
	cat <<'T'
  UNIT                       LOAD   ACTIVE SUB     DESCRIPTION
  cron.service               loaded active running Regular background program processing daemon
  dbus.service               loaded active running D-Bus System Message Bus
● nginx.service              loaded failed failed  A high performance web server
  ssh.service                loaded active running OpenBSD Secure Shell server
  systemd-journald.service   loaded active running Journal Service

LOAD   = Reflects whether the unit definition was properly loaded.
ACTIVE = The high-level unit activation state, i.e. generalization of SUB.
SUB    = The low-level unit activation state, values depend on unit type.
5 loaded units listed.
T
	;;
*)
	echo "gen-table.sh: unknown table: $what" >&2
	exit 2
	;;
esac

#!/usr/bin/env python3
"""ptyrun.py ROWS COLS CMD [ARG...]: run CMD with stdin and stdout on a
pseudo-terminal of ROWS x COLS; stderr stays as it is.  What CMD writes to
the terminal is copied to stdout, carriage returns dropped; the exit
status is CMD's (128 + N when a signal N killed it)."""
import errno
import fcntl
import os
import struct
import subprocess
import sys
import termios


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ,
                struct.pack("HHHH", rows, cols, 0, 0))
    p = subprocess.Popen(sys.argv[3:], stdin=slave, stdout=slave)
    os.close(slave)
    out = bytearray()
    while True:
        try:
            b = os.read(master, 65536)
        except OSError as e:
            if e.errno == errno.EIO:
                break
            raise
        if not b:
            break
        out += b
    rc = p.wait()
    sys.stdout.buffer.write(bytes(out).replace(b"\r", b""))
    sys.exit(128 - rc if rc < 0 else rc)


main()

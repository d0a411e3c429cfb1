"""Where a long `semcer score` run spends its time, phase by phase: the command is run under a
pseudo-terminal (so that it draws its progress bar), and every 2 s the lines it has scored (read
off the bar) and the CPU seconds of every process of its tree (from /proc) are sampled. Printed:
for each stretch of about 50,000 lines, wall and CPU seconds per 100,000 lines, per process.

    python bench/phases.py -- semcer score REFS HYPS --workers 2 --json -o out.json

Linux only (/proc, pty).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading
import time

HZ = os.sysconf("SC_CLK_TCK")
_BAR = re.compile(rb"scoring:\s+\d+%\|[^|]*\|\s*([\d.]+)([kM]?)/")
_SCALE = {b"": 1.0, b"k": 1e3, b"M": 1e6}


def _follow(fd: int, done: list[float]) -> None:
    """Keep ``done[0]`` at the line count the progress bar on ``fd`` shows last."""
    tail = b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            return
        if not data:
            return
        tail = (tail + data)[-4096:]
        found = _BAR.findall(tail)
        if found:
            value, unit = found[-1]
            done[0] = float(value) * _SCALE[unit]


def _stat(pid: int | str) -> list[str]:
    """The fields of /proc/PID/stat after the command name (state first)."""
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                parent = int(_stat(name)[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


def _cpu(pid: int) -> float | None:
    try:
        fields = _stat(pid)
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / HZ


def main(argv: list[str]) -> int:
    cmd = argv[1:] if argv and argv[0] == "--" else argv
    if not cmd:
        sys.exit(__doc__)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))  # a width, or no bar is drawn
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    done = [0.0]
    threading.Thread(target=_follow, args=(master, done), daemon=True).start()
    cpu: dict[int, float] = {}
    samples = []
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            seconds = _cpu(pid)
            if seconds is not None:
                cpu[pid] = seconds
        samples.append((time.monotonic() - start, done[0], dict(cpu)))
        time.sleep(2)
    print(f"wall {time.monotonic() - start:.1f} s, exit status {proc.returncode}")
    _report(samples)
    return proc.returncode


def _report(samples: list[tuple[float, float, dict[int, float]]]) -> None:
    last = None
    for t, lines, cpu in samples:
        if last is not None and lines - last[1] >= 50_000:
            per = (lines - last[1]) / 1e5
            used = {pid: (c - last[2].get(pid, 0.0)) / per for pid, c in cpu.items()}
            busy = " ".join(f"{v:.1f}" for v in used.values() if v > 0.2)
            print(f"to line {lines:>9,.0f}: {(t - last[0]) / per:5.1f} s wall and "
                  f"{sum(used.values()):5.1f} CPU s per 100,000 lines (per process: {busy})")
        if last is None or lines - last[1] >= 50_000:
            last = (t, lines, cpu)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

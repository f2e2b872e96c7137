"""Raw ripgrep started the way a shell or hyperfine starts it, for bench.ts.

Node starts a child with fork() and waits until it has called exec; the forked copy of a Node
process is large, so on some machines that alone costs milliseconds. glibc's posix_spawn()
starts the child without copying the parent (vfork semantics), as a small shell nearly does.
This host runs ripgrep that way, so the benchmark can show what raw ripgrep costs without
Node's start-up share. Same line protocol as host.mjs: {"id", "cwd", "args"} in, {"id", "ms",
"bytes"} out, timed from the start request to the child's exit and the end of its output.
"""

import json
import os
import sys
import time

RG = sys.argv[1]

for line in sys.stdin:
    request = json.loads(line)
    read_end, write_end = os.pipe()
    # posix_spawn has no working-directory action before Python 3.13: change it around the call.
    previous = os.getcwd()
    os.chdir(request["cwd"])
    start = time.perf_counter()
    try:
        pid = os.posix_spawn(
            RG,
            [RG, *request["args"]],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0),
                (os.POSIX_SPAWN_CLOSE, read_end),
            ],
        )
    finally:
        os.chdir(previous)
    os.close(write_end)
    size = 0
    while True:
        chunk = os.read(read_end, 1 << 16)
        if not chunk:
            break
        size += len(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    ms = (time.perf_counter() - start) * 1000
    sys.stdout.write(json.dumps({"id": request["id"], "ms": ms, "bytes": size}) + "\n")
    sys.stdout.flush()

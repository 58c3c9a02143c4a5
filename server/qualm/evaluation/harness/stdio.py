# Runs inside the sandbox, in each "stdio" test of an official label (qualm.evaluation.labels
# reads this file as text and sends it with the test; it is never imported as part of qualm).
# Real file descriptors (in-memory files) rather than StringIO, so programs that read fd 0 or
# write sys.stdout.buffer behave as under a judge.

def _qualm_stdio(program, given, expected):
    import builtins, io, math, os, sys

    def scratch(name, data):
        try:
            fd = os.memfd_create(name)
        except (AttributeError, OSError):
            import tempfile
            with tempfile.TemporaryFile(dir=".") as f:
                fd = os.dup(f.fileno())
        with os.fdopen(os.dup(fd), "wb") as f:
            f.write(data)
        os.lseek(fd, 0, 0)
        return fd

    def flush(*streams):
        for s in streams:
            try:
                s.flush()
            except BaseException:
                pass

    def same(got, want):
        a, b = got.split(), want.split()
        if a == b:
            return True
        if len(a) != len(b):
            return False
        for x, y in zip(a, b):
            if x == y:
                continue
            try:
                fx, fy = float(x), float(y)
            except ValueError:
                return False
            integers = x.lstrip("+-").isdigit() and y.lstrip("+-").isdigit()
            if integers or not math.isclose(fx, fy, rel_tol=1e-6, abs_tol=1e-6):
                return False
        return True

    def short(text):
        text = text if len(text) <= 160 else text[:160] + "..."
        return repr(text)

    code = compile(program, "<candidate>", "exec")
    flush(sys.stdout, sys.stderr)
    saved_in, saved_out = os.dup(0), os.dup(1)
    fin, fout = scratch("stdin", given.encode()), scratch("stdout", b"")
    old_in, old_out = sys.stdin, sys.stdout
    os.dup2(fin, 0)
    os.dup2(fout, 1)
    sys.stdin = open(0, "r", encoding="utf-8", errors="replace", closefd=False)
    sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
    ours = sys.stdout
    try:
        try:
            exec(code, {"__name__": "__main__", "__builtins__": builtins})
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise RuntimeError(f"the program exited with code {exc.code!r}") from None
        threading = sys.modules.get("threading")
        if threading is not None:  # an interpreter waits for these at exit; so do we
            for t in threading.enumerate():
                if t is not threading.current_thread() and not t.daemon:
                    t.join()
    finally:
        flush(sys.stdout, ours, sys.__stdout__)
        os.dup2(saved_out, 1)
        os.dup2(saved_in, 0)
        sys.stdin, sys.stdout = old_in, old_out
    os.lseek(fout, 0, 0)
    chunks = []
    while True:
        block = os.read(fout, 1 << 20)
        if not block:
            break
        chunks.append(block)
    got = b"".join(chunks).decode("utf-8", "replace")
    assert same(got, expected), f"wrong output: expected {short(expected)}, got {short(got)}"

"""What the *_vs_torch.py scripts share: torch timed like our benches (CUDA events around one
call, the L2 flushed before each by reading a buffer of twice its size, warm-up, median), and the
geometric mean of ratios."""
import statistics

import torch


def l2_flush_buffer():
    props = torch.cuda.get_device_properties(0)
    return torch.empty(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda")


def time_cold(fn, flush, samples=50, warmup=5, dirty=False):
    """Median microseconds of fn(). dirty: flush by writing the buffer (dirty lines) instead;
    flush None: no flush (a warm cache, for whole-model timings)."""
    def do_flush():
        if flush is None:
            return
        if dirty:
            flush.zero_()
        else:
            flush.sum()  # reads every byte: the L2 holds only clean lines of the flush buffer

    for _ in range(warmup):
        do_flush()
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(samples):
        do_flush()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000.0)
    return statistics.median(times)


def geomean(xs):
    return statistics.geometric_mean(xs) if xs else float("nan")
